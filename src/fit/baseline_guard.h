// train.auto = on, for a trained rating model: its predictions combined with the bias
// baseline's (models/baseline/combined_model.h holds the weights in the saved model).
//
// baseline.combination = members (the default): baseline + w_net (model - baseline) +
// w_U n_U + w_I n_I + w_K n_K, the members chosen and weighted on cross-fitted folds of the validation
// ratings (fit/member_selection.h) and the neighbour members' shrinkages on the same folds
// (models/baseline/neighbour_residuals.h); no member kept: the baseline exactly. A member
// that gains on validation only by fitting its noise is not kept, so the combination does
// not pay on test for weights that a few thousand ratings cannot pin (docs/experiments.md,
// "The combination's members").
//
// baseline.combination = weights: c + a x model + b x baseline, (c, a, b) the least squares
// of all validation ratings under a, b >= 0; never worse than either on validation, but its
// intercept and scale follow the validation carve's noise where the model is worth nothing.
#pragma once

#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "fit/member_selection.h"
#include "models/baseline/bias_fit.h"
#include "models/baseline/neighbour_residuals.h"
#include "symgnn/config.h"
#include "symgnn/dataset.h"

namespace symgnn::fitting {

/// The item k-NN member's name in the verdict and metrics.json's members.
inline constexpr const char* kKnnMemberName = "the similar items (item k-NN)";

/// Fewer validation ratings than this leave the model as trained: three weights fitted to
/// a handful of ratings would follow their noise.
inline constexpr size_t kMinCombinationRatings = 20;

struct BaselineGuard {
  bool applied = false;
  std::string note;  // why not applied ("" when applied)
  std::string mode;  // baseline.combination
  double c = 0, a = 1, b = 0;
  models::NeighbourWeights neighbours;  // members mode: the neighbour members kept
  int64_t knn_neighbours = 0;           // members mode: k of the item k-NN member where tried
  // members mode, a directed graph file's side: each direction's member alone on the folds,
  // "both 0.8520, out 0.8512, in 0.8530" ("" where the side's graph is undirected).
  std::string user_directions, item_directions;
  MemberSelection selection;           // members mode: every member tried, kept or not
  int64_t folds = 0;                   // members mode: the cross-fitted folds
  std::vector<double> val_neighbours;  // w_U n_U + w_I n_I of each validation rating
  models::Shrinkage shrinkage;
  models::Biases final_biases;       // the baseline of the saved model (its training ratings)
  std::vector<double> val_baseline;  // the baseline's validation predictions, clipped
  // The validation rating figures (symgnn/metrics.h, rating_metric()) of the three.
  double val_model = std::numeric_limits<double>::quiet_NaN();
  double val_baseline_error = std::numeric_limits<double>::quiet_NaN();
  double val_combined = std::numeric_limits<double>::quiet_NaN();
  int64_t val_ratings = 0;

  /// The combination of validation rating e (its model and baseline predictions).
  double combine(size_t e, double model, double baseline) const {
    return c + a * model + b * baseline + (e < val_neighbours.size() ? val_neighbours[e] : 0.0);
  }
};

/// Least-squares (c, a, b) of y ~ c + a x model + b x baseline with a, b >= 0 (a tiny ridge
/// keeps the system solvable when the columns coincide). Exposed for its test.
void fit_weights(const std::vector<double>& model, const std::vector<double>& baseline,
                 const std::vector<double>& y, double& c, double& a, double& b);

/// The guard of a run on `ds` whose model predicted `val_model` (ds.validation's order,
/// clipped, from models that did not train on them). `final_on_all`: the baseline the final
/// model is combined with is fitted to training + validation ratings (the final model of a
/// run, whatever its protocol: under early_stop only the network needed validation apart;
/// generated 20,000 x 260,000 x 600,000 set, test RMSE 0.9796 -> 0.97866 against the baseline
/// kind's 0.97872); false: to training alone (a short trial's guard). `cv`: the baseline's
/// cross-validated shrinkage on ds.train (fit/prepared_data.h), null only where the guard
/// cannot apply (too few validation ratings).
BaselineGuard fit_baseline_guard(const std::vector<double>& val_model, const Dataset& ds,
                                 const BaselineConfig& cfg, const models::ShrinkageChoice* cv,
                                 bool final_on_all);

/// "train.auto: validation RMSE 0.9512 (model), 0.9100 (bias baseline), 0.9050 (combination
/// 0.12 + 0.40 x model + 0.57 x baseline, fitted to 2850 validation ratings)"
std::string describe(const BaselineGuard& g);
/// The verdict a summary begins with: what was kept and what each part gained over the
/// baseline on validation, e.g. "kept: the bias baseline + the user graph's neighbours
/// (weight 0.62, gains 0.0190 on validation); not kept: the network (gains -0.0020)".
std::string verdict(const BaselineGuard& g);

/// metrics.json's figures.auto.combination: the weights, the validation RMSEs, and the test
/// RMSE of the model alone (mean and std over the runs) beside the combination's.
nlohmann::json guard_json(const BaselineGuard& g, double model_test, double model_test_std);

}  // namespace symgnn::fitting
