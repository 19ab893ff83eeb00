/// @file
/// What the parts of symgnn::fit (fit.cpp) hand each other: the fitted result with the
/// runs' mean predictions, and the small helpers the kinds' fits share.
#pragma once

#include <ATen/core/Tensor.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "symgnn/dataset.h"
#include "symgnn/fit.h"

namespace symgnn {
struct Evaluation;  // symgnn/recommend.h
}

namespace symgnn::fitting {

struct Fitted {
  FitResult result;
  at::Tensor val_predictions, test_predictions;  // CPU float64, in the split's order
  std::string verdict;  // train.auto's members: what was kept (fit/baseline_guard.h verdict())
  std::map<std::string, at::Tensor> training_state;  // a closed-form kind's (models::ClosedFormFit)
};

/// `line` to o.log, where there is one.
void say(const FitOptions& o, const std::string& line);

/// The ratings of a list as a float tensor: the truth the epoch metrics compare with.
at::Tensor truth(const RatingList& r);

/// A tensor's values as doubles (CPU).
std::vector<double> values(const at::Tensor& t);

/// Ranking at 10 of each fitted model (run 0's first), the popularity baseline beside them,
/// and run 0's whole evaluation: metrics.json's "evaluation" and "ranking_at_10". `first`,
/// where given, is run 0's evaluate() at k = 10 already made (not made again).
void add_ranking(RunMetrics& m, const std::vector<std::shared_ptr<TrainedModel>>& models,
                 const std::string& of, const Evaluation* first = nullptr);

}  // namespace symgnn::fitting
