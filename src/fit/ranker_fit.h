/// @file
/// The closed-form ranker train.ranker names (fit/ranker.h), fitted beside the model into
/// DIR/ranker, a model directory of its own.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "symgnn/config.h"
#include "symgnn/dataset.h"
#include "symgnn/fit.h"

namespace symgnn::fitting {

struct RankerFit {
  std::shared_ptr<const TrainedModel> model;  // null when the model ranks by itself
  nlohmann::json record;                      // metrics.json's "ranker"
  std::vector<std::string> summary;           // its lines for the result
};

/// Several candidates (train.ranker = auto) are each fitted into DIR/ranker.<kind>, and the
/// one with the best validation NDCG@10 becomes DIR/ranker (the others are removed). Then
/// train.ranker_graph = auto is resolved in `cfg` for the ranker kept
/// (fit/ranker_graph_choice.h).
RankerFit fit_ranker(RunConfig& cfg, const Dataset& ds, const FitOptions& o);

}  // namespace symgnn::fitting
