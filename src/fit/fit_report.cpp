// The report beside the fitted model's figures (fit_report.h).
#include "fit/fit_report.h"

#include <cmath>

#include "data/time_split.h"
#include "eval/errors.h"
#include "fit/evaluation_json.h"
#include "infer/model_parts.h"
#include "infer/unseen_test.h"
#include "models/baseline/baseline_figures.h"
#include "symgnn/metrics.h"
#include "symgnn/trained_model.h"
#include "util/text.h"

namespace symgnn::fitting {

namespace {

/// The summary's line on what trained and what was held out as test.
std::string held_out_line(const Dataset& ds, const DataConfig& data) {
  const size_t trained = ds.train.size() + ds.validation.size(),
               test = ds.test.size() + ds.test_unknown.size();
  const std::string validation = std::to_string(ds.validation.size()) + " of them the validation that " +
                                 "stops early and chooses (data.val_fraction " + fixed(data.val_fraction, 2) +
                                 ")";
  const std::string what = ds.implicit() ? " interactions" : " ratings";
  if (test == 0)
    return "data: no test" + what + " held out (data.test_fraction = 0): all " + std::to_string(trained) +
           what + " given train, " + validation + "; no test figures";
  const std::string from =
      ds.test_drawn ? " (a random data.test_fraction " + fixed(data.test_fraction, 2) + "; 0 holds none out)"
                    : "";
  return "data: " + std::to_string(trained) + what + " train, " + validation + "; " + std::to_string(test) +
         " test" + what + " held out" + from;
}

}  // namespace

void add_report(Fitted& f, const RunConfig& cfg, const FitOptions& o, const PreparedData& data,
                const RankerFit& ranker) {
  const Dataset& ds = data.ds;
  // A time-aware split's leakage (data/time_split.h), beside the figures it qualifies.
  if (const std::string split = symgnn::data::describe(ds.time_split); !split.empty())
    f.result.summary.push_back(split);
  // Test ratings of ids the model never saw rated, reported apart (infer/unseen_test.h), as
  // `evaluate` reports them: by the training ratings of the model saved (the retrain
  // protocol's has the validation ratings among them).
  if (f.test_predictions.defined() && !ds.test.empty()) {
    const UnseenTestReport u = infer::report_unseen(f.result.model ? f.result.model->dataset() : ds,
                                                    values(f.test_predictions), cfg.data.unknown_test);
    if (const std::string line = infer::describe(u); !line.empty()) {
      f.result.summary.push_back(line);
      f.result.metrics.figures["test_unseen"] = unseen_json(u);
    }
  }
  // The bias baseline beside every rating figure (models/baseline/baseline_figures.h), as
  // popularity stands beside the ranking ones; on the saved model's data, as `evaluate` does.
  std::string baseline_test;
  if (models::shows_bias_baseline(cfg) && !ds.test.empty()) {
    // The shrinkage chosen on those ratings where the run made it: the saved model's context's
    // (the prepared data's, or the retrain's on all training ratings), else the prepared data's.
    const models::BaselineFigures b = models::baseline_figures(
        f.result.model ? f.result.model->dataset() : ds, cfg.baseline,
        f.result.model ? f.result.model->parts().ctx.bias_shrinkage.get() : data.bias_shrinkage.get());
    f.result.summary.push_back(models::describe(b));
    f.result.metrics.figures["baseline"] = baseline_json(b);
    baseline_test = fixed(eval::figure_of(b.test, rating_figure("test")), 4);
  }
  // The verdict first: what train.auto kept, then the test figure beside the baseline's.
  if (!f.verdict.empty()) {
    std::string line = f.verdict;
    const std::string test = rating_figure("test");
    if (f.result.metrics.metrics.count(test) && std::isfinite(f.result.metrics.mean(test)))
      line += "; test " + rating_label() + " " + fixed(f.result.metrics.mean(test), 4) +
              (baseline_test.empty() ? "" : " (bias baseline " + baseline_test + ")");
    f.result.summary.insert(f.result.summary.begin(), line);
  }
  // How much was held out, so a user who gave every rating knows what trained (Python's
  // fit(holdout=0) and data.test_fraction = 0 hold no test out).
  f.result.summary.insert(f.result.summary.begin() + (f.verdict.empty() ? 0 : 1),
                          held_out_line(ds, cfg.data));
  if (!data.graph_worths.empty()) f.result.metrics.figures["auto"]["graphs"] = graph_json(data.graph_worths);
  if (data.offset_choice.tried)
    f.result.metrics.figures["auto"]["offset_choice"] = offset_choice_json(data.offset_choice);
  if (!data.graph_choice.sides.empty() || data.graph_choice.not_tried)
    f.result.metrics.figures["auto"]["graph_choice"] = graph_choice_json(data.graph_choice);
  if (data.cold_lists.tried)
    f.result.metrics.figures["auto"]["cold_lists"] = cold_list_choice_json(data.cold_lists);
  if (data.epochs_from_short_run > 0)
    f.result.metrics.figures["auto"]["epochs_from_short_run"] = data.epochs_from_short_run;
  if (ranker.model) {
    f.result.metrics.figures["ranker"] = ranker.record;
    f.result.summary.insert(f.result.summary.end(), ranker.summary.begin(), ranker.summary.end());
    f.result.summary.push_back(
        "recommend and evaluate rank by the " + ranker.model->name() + " ranker in " +
        (o.out_dir.empty() ? std::string("memory") : infer::ranker_dir(o.out_dir)) +
        (ds.implicit() ? std::string("; no rating is predicted (data.feedback = ") + ds.feedback + ")"
                       : "; predictions come from " + f.result.model->name()));
  }
}

}  // namespace symgnn::fitting
