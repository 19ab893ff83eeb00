// symgnn::fit for a kind fitted in closed form (fit_closed_form.h).
#include "fit/fit_closed_form.h"

#include <torch/types.h>

#include <chrono>
#include <optional>

#include "fit/sweep_metrics.h"
#include "infer/model_parts.h"
#include "runtime/runtime.h"
#include "symgnn/metrics.h"
#include "symgnn/model.h"
#include "symgnn/ranking.h"
#include "symgnn/recommend.h"
#include "symgnn/trained_model.h"
#include "train/checkpoint.h"
#include "train/dataset_stats.h"
#include "train/epoch_metrics.h"
#include "util/text.h"

namespace symgnn::fitting {

namespace {

/// The test lists' figures of `trained` into `errors`, ranked as `evaluate` ranks (the
/// candidates exclude the training and validation ratings the final fit saw; ties by item
/// index) the TrainedModel's lists (a ranker beside the model, users without ratings by
/// infer/cold_lists.h), so that the summary's figure is the one `evaluate` of the directory
/// prints. Returns the evaluation at k = 10 (add_ranking's too) where it was made.
std::optional<Evaluation> measure_test_lists(const TrainedModel& trained, const Dataset& ds,
                                             const at::Tensor& test_predictions, float lo, float hi,
                                             train::MetricValues& errors) {
  std::optional<Evaluation> at_10;
  eval::Measurable test = train::predicted(test_predictions, truth(ds.test), lo, hi);
  test.rank = [&](const std::vector<int64_t>& ks) {
    EvaluateOptions eo;
    eo.ks = ks;
    Evaluation e = evaluate(trained, eo);
    if (ks == std::vector<int64_t>{10}) at_10 = e;
    return e.ranking;
  };
  eval::add_figures(errors, eval::measure(test, "test", eval::ranking_metrics(10)));
  return at_10;
}

/// "itemknn: test NDCG@10 0.1809, test RMSE 0.8831", and what made the lists where not the
/// kind itself: "baseline: test NDCG@10 0.2237, test RMSE 0.8630 (the lists by the ease ranker)".
std::string test_line(const models::RatingModel& model, const TrainedModel& trained,
                      const train::MetricValues& errors) {
  const std::string ranker = trained.ranker();
  // Interactions (data/feedback.h) have no rating to be wrong about.
  const std::string rating =
      trained.dataset().implicit()
          ? std::string()
          : ", test " + rating_label() + " " + fixed(train::metric_of(errors, rating_figure("test")), 4);
  return model.name() + ": test " + ranking_label() + " " + fixed(errors.at(ranking_figure("test")), 4) +
         rating +
         (!ranker.empty()             ? " (the lists by the " + ranker + " ranker)"
          : trained.ranks_by_rating() ? " (ranked by predicted rating)"
                                      : "");
}

}  // namespace

Fitted fit_closed_form(RunConfig& cfg, const Dataset& ds, const models::ChosenShrinkage& cv,
                       const FitOptions& o, const RankerSource& ranker, bool test_lists) {
  const at::Device device(cfg.train.device);
  infer::ModelParts parts;
  parts.cfg = cfg;
  parts.ds = ds;
  parts.ctx = models::make_context(ds).to(device);
  parts.ctx.bias_shrinkage = cv;
  auto model = models::make_model(cfg, parts.ctx);
  model->to(device);
  if (ranker)
    if (std::shared_ptr<const infer::RankerMember> fitted = ranker()) parts.ranker = fitted;
  parts.cfg = cfg;  // as the ranker's fit resolved it (train.ranker_graph)
  // The kinds that run their own epochs (elsa) allocate the same n_items x d tensors every
  // step; mapped afresh each time, their page faults cost more than the arithmetic.
  runtime::keep_large_blocks_in_heap();
  const auto t0 = std::chrono::steady_clock::now();
  const models::ClosedFormFit c = model->fit(ds, device, [&](const std::string& line) { say(o, line); });
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  runtime::release_freed_memory();  // the epochs' temporaries, kept in the heap while they ran

  Fitted f;
  parts.members = {model};
  const float lo = parts.ctx.rating_min, hi = parts.ctx.rating_max;
  // The lists are the TrainedModel's (a ranker beside the model, users without ratings by
  // infer/cold_lists.h): the figures below rank as recommend and evaluate do.
  f.result.model = std::make_shared<TrainedModel>(std::move(parts));
  const TrainedModel& trained = *f.result.model;
  RunMetrics& m = f.result.metrics;
  m.model = model->name();
  f.val_predictions = torch::tensor(c.val_predictions, torch::kDouble);
  f.test_predictions = torch::tensor(c.test_predictions, torch::kDouble);
  f.training_state = c.training_state;
  // The trainer's epoch metrics (train/epoch_metrics.h), of the one deterministic "run".
  // Interactions (data/feedback.h) have no rating error: their figures are the lists'.
  const bool rated = !ds.implicit();
  train::MetricValues errors;
  const at::Tensor test_truth = truth(ds.test);
  if (rated) train::add_errors(errors, "val", f.val_predictions, truth(ds.validation), lo, hi);
  for (const auto& [name, value] : c.metrics) errors[name] = value;
  std::optional<Evaluation> at_10;
  if (!ds.test.empty()) {
    if (rated)
      eval::add_figures(errors, eval::measure(train::predicted(f.test_predictions, test_truth, lo, hi),
                                              "test", eval::prediction_metrics()));
    if (test_lists) at_10 = measure_test_lists(trained, ds, f.test_predictions, lo, hi, errors);
  }
  SeedMetrics run;
  run.metrics = errors;
  // The rating figures are every run's, NaN where a kind has none (metrics.json: null).
  for (const char* split : {"test", "val"})
    run.metrics[rating_figure(split)] = train::metric_of(errors, rating_figure(split));
  for (const auto& [name, value] : run.metrics) m.set(name, {value});
  run.train_seconds = c.details.value("seconds", seconds);
  m.runs.push_back(run);
  m.figures = c.details;
  m.figures["train_seconds"] = run.train_seconds;
  m.config = to_text(cfg);
  m.dataset = train::dataset_stats(ds);
  m.version = fitting::version_json();
  if (!o.out_dir.empty()) train::save_model(*model, to_text(cfg), o.out_dir + "/model.pt");
  if (!o.out_dir.empty() && test_lists)
    add_ranking(m, {f.result.model}, "the saved model, test ratings", at_10 ? &*at_10 : nullptr);
  f.result.summary = c.summary;
  if (errors.count(ranking_figure("test"))) f.result.summary.push_back(test_line(*model, trained, errors));
  return f;
}

void add_test_lists(Fitted& f, const Dataset& ds, const FitOptions& o) {
  if (ds.test.empty() || !f.result.model) return;
  const TrainedModel& trained = *f.result.model;
  const infer::ModelParts& parts = trained.parts();
  train::MetricValues errors;
  const std::optional<Evaluation> at_10 =
      measure_test_lists(trained, ds, f.test_predictions, parts.ctx.rating_min, parts.ctx.rating_max, errors);
  RunMetrics& m = f.result.metrics;
  for (const auto& [name, value] : errors) {
    m.set(name, {value});
    if (!m.runs.empty()) m.runs.front().metrics[name] = value;
  }
  if (!o.out_dir.empty())
    add_ranking(m, {f.result.model}, "the saved model, test ratings", at_10 ? &*at_10 : nullptr);
  if (!m.runs.empty()) errors[rating_figure("test")] = m.runs.front().metrics.at(rating_figure("test"));
  if (errors.count(ranking_figure("test")))
    f.result.summary.push_back(test_line(*parts.members.front(), trained, errors));
}

}  // namespace symgnn::fitting
