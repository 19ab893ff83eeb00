// The bias baseline's test figures beside a model's (baseline_figures.h).
#include "models/baseline/baseline_figures.h"

#include <algorithm>
#include <cmath>

#include "models/baseline/bias_fit.h"
#include "symgnn/error.h"
#include "symgnn/model_kinds.h"
#include "util/text.h"

namespace symgnn::models {

bool shows_bias_baseline(const RunConfig& cfg) {
  return cfg.model != "baseline" && kind_serves(model_kind(cfg.model), "rating");
}

BaselineFigures baseline_figures(const Dataset& ds, const BaselineConfig& cfg) {
  if (ds.test.empty()) throw DataError(ds.source + ": the dataset has no test ratings to evaluate on");
  const ShrinkageChoice choice = choose_shrinkage(ds, cfg);
  const Biases b = fit_final_biases(ds, choice.best, cfg.sweeps);
  BaselineFigures f;
  double se = 0, ae = 0;
  for (size_t e = 0; e < ds.test.size(); ++e) {
    const double p = std::clamp(b.predict(ds.test.user[e], ds.test.item[e]),
                                static_cast<double>(ds.rating_min), static_cast<double>(ds.rating_max));
    const double d = p - ds.test.value[e];
    se += d * d;
    ae += std::abs(d);
  }
  const auto n = static_cast<double>(ds.test.size());
  f.test_rmse = std::sqrt(se / n);
  f.test_mae = ae / n;
  f.user_shrinkage = choice.best.user;
  f.item_shrinkage = choice.best.item;
  f.chosen_by = choice.how;
  return f;
}

std::string describe(const BaselineFigures& f) {
  return "bias baseline (mu + b_u + b_i, model = baseline): test RMSE " + fixed(f.test_rmse, 4) + ", MAE " +
         fixed(f.test_mae, 4) + " (shrinkage user " + fixed(f.user_shrinkage, 2) + ", item " +
         fixed(f.item_shrinkage, 2) + ", by " + f.chosen_by + ")";
}

}  // namespace symgnn::models
