// `symgnn blend`: non-negative weights of several models' predictions, fitted on the
// validation split alone and applied to the test split (docs/blending.md).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "blend/model_predictions.h"
#include "blend/nnls.h"
#include "eval/errors.h"

namespace symgnn::blend {

/// Weights w >= 0 (and an unconstrained intercept b when `intercept`) minimising
/// ||X w + b - y||^2. With an intercept, b = mean(y) - mean(X) w for any w, so w is the NNLS
/// solution on centred columns and centred y (which also conditions G far better, as
/// predictions share a large common mean).
struct Weights {
  std::vector<double> w;
  double intercept = 0.0;
};
Weights fit_weights(const Matrix& x, const std::vector<double>& y, bool intercept);

/// clip(X w + b) row by row.
std::vector<double> apply_weights(const Matrix& x, const Weights& weights, double lo, double hi);

/// A model's figures on the aligned pairs ("val_rmse", "test_mae": every prediction row of
/// symgnn/metrics.h on both splits) and its weight in the blend.
struct ModelScore {
  std::string dir;
  eval::Figures figures;
  double weight = 0.0;
};

struct BlendResult {
  std::vector<ModelScore> models;
  Weights weights;
  bool intercept = false;
  eval::Figures figures;   // the blend's; those on val are in-sample (the weights were fitted there)
  size_t best_single = 0;  // the model with the best validation rating figure (rating_metric())
  double rating_min = 0.0;
  double rating_max = 0.0;
  AlignedSplit val, test;
  std::vector<double> val_prediction, test_prediction;  // clipped to the rating range
};

/// Aligns the models' splits, checks they agree on the rating range, fits the weights on
/// validation and scores every model and the blend. DataError for fewer than 2 models,
/// mismatched files or ranges, or an empty validation split.
BlendResult blend_models(const std::vector<ModelPredictions>& models, bool intercept);

/// The record written to blend.json: weights, model dirs, their figures and the blend's, and
/// what was fitted on what.
nlohmann::json blend_json(const BlendResult& r);

}  // namespace symgnn::blend
