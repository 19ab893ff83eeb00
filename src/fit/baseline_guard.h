// train.auto = on, for a trained rating model: its predictions combined with the bias
// baseline's, c + a x model + b x baseline, with (c, a, b) the least-squares fit to the
// validation ratings under a, b >= 0 (models/baseline/combined_model.h holds them in the saved model).
// Since (0, 0, 1) is the baseline itself and (0, 1, 0) the model, the combination is never
// worse than either on validation: the default cannot lose to the baseline it prints
// beside itself there (docs/experiments.md, "Defaults on users' own data").
#pragma once

#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "models/baseline/bias_fit.h"
#include "symgnn/config.h"
#include "symgnn/dataset.h"

namespace symgnn::fitting {

/// Fewer validation ratings than this leave the model as trained: three weights fitted to
/// a handful of ratings would follow their noise.
inline constexpr size_t kMinCombinationRatings = 20;

struct BaselineGuard {
  bool applied = false;
  std::string note;  // why not applied ("" when applied)
  double c = 0, a = 1, b = 0;
  models::Shrinkage shrinkage;
  models::Biases final_biases;       // the baseline of the saved model (its training ratings)
  std::vector<double> val_baseline;  // the baseline's validation predictions, clipped
  // The validation rating figures (symgnn/metrics.h, rating_metric()) of the three.
  double val_model = std::numeric_limits<double>::quiet_NaN();
  double val_baseline_error = std::numeric_limits<double>::quiet_NaN();
  double val_combined = std::numeric_limits<double>::quiet_NaN();
  int64_t val_ratings = 0;

  double combine(double model, double baseline) const { return c + a * model + b * baseline; }
};

/// Least-squares (c, a, b) of y ~ c + a x model + b x baseline with a, b >= 0 (a tiny ridge
/// keeps the system solvable when the columns coincide). Exposed for its test.
void fit_weights(const std::vector<double>& model, const std::vector<double>& baseline,
                 const std::vector<double>& y, double& c, double& a, double& b);

/// The guard of a run on `ds` whose model predicted `val_model` (ds.validation's order,
/// clipped, from models that did not train on them). `retrained`: the saved model learned
/// from training + validation ratings (train.protocol = retrain), so the baseline it is
/// combined with is fitted to both.
BaselineGuard fit_baseline_guard(const std::vector<double>& val_model, const Dataset& ds,
                                 const BaselineConfig& cfg, bool retrained);

/// "train.auto: validation RMSE 0.9512 (model), 0.9100 (bias baseline), 0.9050 (combination
/// 0.12 + 0.40 x model + 0.57 x baseline, fitted to 2850 validation ratings)"
std::string describe(const BaselineGuard& g);

/// metrics.json's figures.auto.combination: the weights, the validation RMSEs, and the test
/// RMSE of the model alone (mean and std over the runs) beside the combination's.
nlohmann::json guard_json(const BaselineGuard& g, double model_test, double model_test_std);

}  // namespace symgnn::fitting
