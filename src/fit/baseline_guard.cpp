#include "fit/baseline_guard.h"

#include <algorithm>
#include <cmath>

#include "eval/errors.h"
#include "symgnn/metrics.h"
#include "util/text.h"

namespace symgnn::fitting {
namespace {

/// The rating figure of clipped predictions against the validation ratings.
double error_of(const std::vector<double>& pred, const std::vector<float>& y) {
  return eval::rating_error(eval::differences(pred, y));
}

std::vector<double> predictions(const models::Biases& b, const RatingList& r, float lo, float hi) {
  std::vector<double> out(r.size());
  for (size_t e = 0; e < r.size(); ++e)
    out[e] = std::clamp(b.predict(r.user[e], r.item[e]), double{lo}, double{hi});
  return out;
}

}  // namespace

void fit_weights(const std::vector<double>& model, const std::vector<double>& baseline,
                 const std::vector<double>& y, double& c, double& a, double& b) {
  // Least squares over the columns (1, model, baseline) with a, b >= 0 and c free: the
  // active sets of two weights, each solved centred (the intercept separates) and the
  // feasible one of least squared error kept. Two predictors of one rating are nearly
  // collinear, and unconstrained weights then extrapolate along their difference
  // (-3.4 x model + 4.5 x baseline was seen on validation): non-negative weights keep the
  // combination between them, and (0, 1, 0), (0, 0, 1) stay feasible.
  const auto n = static_cast<double>(y.size());
  double mm = 0, mb = 0, my = 0;
  for (size_t e = 0; e < y.size(); ++e) {
    mm += model[e];
    mb += baseline[e];
    my += y[e];
  }
  mm /= n;
  mb /= n;
  my /= n;
  double sxx = 0, sxz = 0, szz = 0, sxy = 0, szy = 0, syy = 0;
  for (size_t e = 0; e < y.size(); ++e) {
    const double x = model[e] - mm, z = baseline[e] - mb, t = y[e] - my;
    sxx += x * x;
    sxz += x * z;
    szz += z * z;
    sxy += x * t;
    szy += z * t;
    syy += t * t;
  }
  const double ridge = 1e-9 * (sxx + szz) + 1e-12;
  sxx += ridge;
  szz += ridge;
  // Squared error of (wa, wb) on the centred data.
  const auto sse = [&](double wa, double wb) {
    return syy - 2 * (wa * sxy + wb * szy) + wa * wa * sxx + 2 * wa * wb * sxz + wb * wb * szz;
  };
  double best_a = 0, best_b = 0, best = sse(0, 0);
  const auto consider = [&](double wa, double wb) {
    if (wa < 0 || wb < 0) return;
    const double e = sse(wa, wb);
    if (e < best) best = e, best_a = wa, best_b = wb;
  };
  const double det = sxx * szz - sxz * sxz;
  consider((sxy * szz - szy * sxz) / det, (szy * sxx - sxy * sxz) / det);
  consider(sxy / sxx, 0);
  consider(0, szy / szz);
  a = best_a;
  b = best_b;
  c = my - a * mm - b * mb;
}

BaselineGuard fit_baseline_guard(const std::vector<double>& val_model, const Dataset& ds,
                                 const BaselineConfig& cfg, bool retrained) {
  BaselineGuard g;
  if (ds.validation.size() < kMinCombinationRatings || val_model.size() != ds.validation.size()) {
    g.note = "train.auto: " + std::to_string(ds.validation.size()) +
             " validation ratings, too few to weigh the model against the bias baseline (at least " +
             std::to_string(kMinCombinationRatings) + "): the model's predictions as trained";
    return g;
  }
  const float lo = ds.rating_min, hi = ds.rating_max;
  g.shrinkage =
      models::choose_shrinkage_cv(ds.train, ds.users.count, ds.items.count, models::shrinkage_grid(cfg),
                                  cfg.folds, static_cast<uint64_t>(cfg.seed))
          .best;
  const models::Biases on_train =
      models::fit_biases(ds.train, ds.users.count, ds.items.count, g.shrinkage, cfg.sweeps);
  g.val_baseline = predictions(on_train, ds.validation, lo, hi);
  g.final_biases = retrained ? models::fit_final_biases(ds, g.shrinkage, cfg.sweeps) : on_train;

  std::vector<double> y(ds.validation.value.begin(), ds.validation.value.end());
  fit_weights(val_model, g.val_baseline, y, g.c, g.a, g.b);
  std::vector<double> combined(y.size());
  for (size_t e = 0; e < y.size(); ++e)
    combined[e] = std::clamp(g.combine(val_model[e], g.val_baseline[e]), double{lo}, double{hi});
  g.val_model = error_of(val_model, ds.validation.value);
  g.val_baseline_error = error_of(g.val_baseline, ds.validation.value);
  g.val_combined = error_of(combined, ds.validation.value);
  g.val_ratings = static_cast<int64_t>(y.size());
  g.applied = true;
  return g;
}

std::string describe(const BaselineGuard& g) {
  if (!g.applied) return g.note;
  const double best_single = std::min(g.val_model, g.val_baseline_error);
  return "train.auto: validation " + rating_label() + " " + fixed(g.val_model, 4) + " (model), " +
         fixed(g.val_baseline_error, 4) + " (bias baseline), " + fixed(g.val_combined, 4) + " (combination " +
         fixed(g.c, 3) + " + " + fixed(g.a, 3) + " x model + " + fixed(g.b, 3) + " x baseline, fitted to " +
         std::to_string(g.val_ratings) + " validation ratings): " +
         (g.val_model <= g.val_baseline_error
              ? "the model beats the baseline by " + fixed(g.val_baseline_error - g.val_model, 4)
              : "the baseline beats the model by " + fixed(g.val_model - g.val_baseline_error, 4)) +
         ", the combination gains " + fixed(best_single - g.val_combined, 4) + " over the better of the two";
}

nlohmann::json guard_json(const BaselineGuard& g, double model_test, double model_test_std) {
  if (!g.applied) return {{"applied", false}, {"note", g.note}};
  const std::string val = rating_figure("val"), test = rating_figure("test");
  return {{"applied", true},
          {"weights", {{"intercept", g.c}, {"model", g.a}, {"baseline", g.b}}},
          {"validation_ratings", g.val_ratings},
          {val + "_model", g.val_model},
          {val + "_baseline", g.val_baseline_error},
          {val + "_combination", g.val_combined},
          {"baseline_shrinkage", {{"user", g.shrinkage.user}, {"item", g.shrinkage.item}}},
          {test + "_model", model_test},
          {test + "_model_std", model_test_std}};
}

}  // namespace symgnn::fitting
