// The bias baseline's test figures beside a model's (baseline_figures.h).
#include "models/baseline/baseline_figures.h"

#include <algorithm>
#include <cmath>

#include "eval/measure.h"
#include "models/baseline/bias_fit.h"
#include "symgnn/error.h"
#include "symgnn/metrics.h"
#include "symgnn/model_kinds.h"
#include "util/text.h"

namespace symgnn::models {

bool shows_bias_baseline(const RunConfig& cfg) {
  const bool ratings = cfg.data.feedback == "auto" || cfg.data.feedback == "ratings";
  const ModelKind& kind = model_kind(cfg.model);
  return ratings && std::string(kind.role) != "bias_baseline" && kind_serves(kind, "rating");
}

BaselineFigures baseline_figures(const Dataset& ds, const BaselineConfig& cfg, const ShrinkageChoice* cv) {
  if (ds.test.empty()) throw DataError(ds.source + ": the dataset has no test ratings to evaluate on");
  const ShrinkageChoice choice = choose_shrinkage(ds, cfg, cv);
  const Biases b = fit_final_biases(ds, choice.best, cfg.sweeps);
  BaselineFigures f;
  std::vector<double> pred(ds.test.size());
  for (size_t e = 0; e < ds.test.size(); ++e) pred[e] = b.predict(ds.test.user[e], ds.test.item[e]);
  eval::add_errors(f.test, "test", eval::differences(pred, ds.test.value, ds.rating_min, ds.rating_max));
  f.user_shrinkage = choice.best.user;
  f.item_shrinkage = choice.best.item;
  f.chosen_by = choice.how;
  return f;
}

std::string describe(const BaselineFigures& f) {
  std::string figures;
  for (const MetricRow& row : kMetrics)
    if (row.needs == MetricNeeds::predictions)
      figures += std::string(figures.empty() ? "test " : ", ") + metric_label(row) + " " +
                 fixed(eval::figure_of(f.test, metric_figure("test", row)), 4);
  return "bias baseline (mu + b_u + b_i, model = baseline): " + figures + " (shrinkage user " +
         fixed(f.user_shrinkage, 2) + ", item " + fixed(f.item_shrinkage, 2) + ", by " + f.chosen_by + ")";
}

}  // namespace symgnn::models
