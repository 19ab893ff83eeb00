// symgnn::fit for a kind the trainer learns (fit_trained.h).
#include "fit/fit_trained.h"

#include <torch/types.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <optional>

#include "data/dataset_snapshot.h"
#include "fit/baseline_guard.h"
#include "fit/sweep_metrics.h"
#include "infer/model_parts.h"
#include "models/baseline/combined_model.h"
#include "symgnn/graph.h"
#include "symgnn/metrics.h"
#include "symgnn/objectives.h"
#include "train/checkpoint.h"
#include "train/distributed.h"
#include "train/epoch_metrics.h"
#include "util/atomic_file.h"
#include "util/checksum.h"
#include "util/memory_check.h"
#include "util/stats.h"
#include "util/text.h"

namespace fs = std::filesystem;

namespace symgnn::fitting {
namespace {

/// The same model and seeds with both graphs replaced by the identity: what the graphs are
/// worth on the synthetic default (on every rank of a group).
train::SweepResult train_without_graphs(const RunConfig& cfg, const train::TrainerOptions& opts) {
  RunConfig plain = cfg;
  plain.graph.user_graph = plain.graph.item_graph = "identity";
  Dataset ds_plain = load_dataset(plain.data);
  graph::resolve_graphs(ds_plain, plain.graph);  // identity on both sides: nothing to say
  train::TrainerOptions popts;
  popts.on_epoch = opts.on_epoch;
  popts.log = opts.log;
  popts.group = opts.group;
  return train::train_sweep(plain, ds_plain, popts);
}

/// Rewrites the sweep's validation and test figures to the combination of train.auto
/// (fit/baseline_guard.h), whose weights `models` (every run's saved members) now hold: the
/// test predictions are the saved models' own, the validation ones the selection phase's
/// combined with the baseline of ds.train.
void combine_sweep(train::SweepResult& s, const fitting::BaselineGuard& g, const Dataset& ds,
                   const std::vector<std::shared_ptr<TrainedModel>>& models) {
  const float lo = ds.rating_min, hi = ds.rating_max;
  at::Tensor test_sum, val_sum;
  for (size_t r = 0; r < s.runs.size() && r < models.size(); ++r) {
    train::RunResult& run = s.runs[r];
    train::MetricValues errors;
    if (!ds.test.empty()) {
      const std::vector<float> p = models[r]->predict(ds.test.user, ds.test.item);
      run.test_predictions = torch::tensor(p, torch::kFloat).to(torch::kDouble);
      train::add_errors(errors, "test", run.test_predictions, truth(ds.test), lo, hi);
    }
    if (run.val_predictions.defined() &&
        run.val_predictions.numel() == static_cast<int64_t>(ds.validation.size())) {
      const std::vector<double> m = values(run.val_predictions);
      std::vector<double> c(m.size());
      for (size_t e = 0; e < m.size(); ++e)
        c[e] = std::clamp(g.combine(e, m[e], g.val_baseline[e]), double{lo}, double{hi});
      run.val_predictions = torch::tensor(c, torch::kDouble);
      train::add_errors(errors, "val", run.val_predictions, truth(ds.validation), lo, hi);
    }
    for (const auto& [name, value] : errors) run.selected[name] = value;
    if (run.test_predictions.defined())
      test_sum = test_sum.defined() ? test_sum + run.test_predictions : run.test_predictions;
    if (run.val_predictions.defined())
      val_sum = val_sum.defined() ? val_sum + run.val_predictions : run.val_predictions;
  }
  const size_t runs = std::min(s.runs.size(), models.size());
  if (runs == 0) return;
  s.summarise();
  const double n = static_cast<double>(runs);
  if (test_sum.defined()) {
    s.test_predictions = test_sum / n;
    s.ensemble.clear();
    if (runs > 1) train::add_errors(s.ensemble, "test", s.test_predictions, truth(ds.test), lo, hi);
  }
  if (val_sum.defined()) s.val_predictions = val_sum / n;
}

/// "; 5.28 M parameters, 69 per training rating": what the network's width costs beside
/// the data (the prior encoder's width follows the data, fit/prior_choice.h).
std::string parameters_said(const train::SweepResult& s, const Dataset& ds) {
  if (s.runs.empty() || s.runs.front().parameters <= 0 || ds.train.empty()) return "";
  const auto n = static_cast<double>(s.runs.front().parameters);
  return "; " + fixed(n / 1e6, 2) + " M parameters, " + fixed(n / static_cast<double>(ds.train.size()), 0) +
         " per training rating";
}

/// Sets train.auto's combination into every member of run `r`'s `parts` and saves them
/// again where the trainer wrote them (DIR/[final/]run<r>/model.pt, and DIR/model.pt, run
/// 0's copy).
void set_combination(infer::ModelParts& parts, size_t r, const fitting::BaselineGuard& g,
                     const RunConfig& cfg, const Dataset& ds, const FitOptions& o) {
  std::vector<train::ModuleState> states;
  for (const auto& m : parts.members) {
    m->set_combination({g.c, g.a, g.b, g.neighbours}, g.final_biases, g.shrinkage);
    states.push_back(train::module_state(*m));
  }
  if (o.out_dir.empty()) return;
  const std::string run_path =
      o.out_dir + (train::retrains(cfg, ds) ? "/final" : "") + "/run" + std::to_string(r) + "/model.pt";
  if (!fs::exists(run_path)) return;
  train::save_model(*parts.members.front(), train::read_model_config(run_path), run_path,
                    states.size() > 1 ? states : std::vector<train::ModuleState>{});
  // DIR/model.pt is run 0's file: linked to it again (train_sweep's copy), not written twice.
  if (r == 0 && fs::exists(o.out_dir + "/model.pt"))
    link_file_atomic(run_path, o.out_dir + "/model.pt", read_verified_file(run_path));
}

}  // namespace

Fitted fit_trained(RunConfig& cfg, const Dataset& ds, const models::ChosenShrinkage& cv, const FitOptions& o,
                   train::TrainerOptions& topts, bool rank0,
                   const std::shared_ptr<const infer::RankerMember>& ranker) {
  topts.bias_shrinkage = cv;
  // The ranker fitted beside the model holds the graphs' tensors of the same nodes: the
  // network's contexts share them (real/ciaodvd: 21 MB of its peak were the second copy).
  if (ranker) topts.shared_graphs = {&ranker->model().parts().ds, &ranker->model().parts().ctx};
  // train.auto's combination of one run, one process, fitted between the selection phase
  // and the retrain (train.protocol = retrain): where it gives the network weight 0, the
  // retrain on all ratings cannot change the predictions and is skipped
  // (TrainerOptions::retrain_pays); the guard is the one used below, not fitted again.
  std::optional<fitting::BaselineGuard> early_guard;
  const bool guard_early =
      models::combines_with_baseline(cfg) && cfg.train.runs == 1 && !topts.group && train::retrains(cfg, ds);
  if (guard_early)
    topts.retrain_pays = [&](const train::RunResult& chosen) {
      early_guard = with_memory_context("weighing the model against the bias baseline", [&] {
        return fitting::fit_baseline_guard(values(chosen.val_predictions), ds, cfg.baseline, cv.get(),
                                           /*final_on_all=*/true);
      });
      return !early_guard->applied || early_guard->a > 0;
    };
  train::SweepResult s = with_memory_context("training the " + cfg.model + " model",
                                             [&] { return train::train_sweep(cfg, ds, topts); });
  topts.retrain_pays = nullptr;
  const bool compare = cfg.data.source == "synthetic" && o.compare_without_graphs && !o.resume;
  Fitted f;
  if (!rank0) {
    // The other ranks share the training (the comparison's too) and write nothing.
    if (compare) train_without_graphs(cfg, topts);
    topts.group->barrier();
    return f;
  }
  // The runs' saved models in memory (under protocol = retrain the ones trained on all
  // training ratings, whose data has no validation split): run 0's is the result; every
  // run's is ranked where the run writes its model directory, as metrics.json reports it.
  RunConfig saved_cfg = cfg;
  // Under protocol = retrain the saved models read all training ratings as their context,
  // also where the retrain was skipped (its selection phase's weights stand for it).
  const bool retrained = train::retrains(cfg, ds);
  if (retrained) saved_cfg.data.val_fraction = 0;
  // train.auto: the final combination with the bias baseline, fitted on validation.
  // The rating figure (symgnn/metrics.h) the summary lines lead with.
  const std::string test = rating_figure("test"), label = rating_label();
  const double model_test = s.mean(test), model_test_std = s.std_of(test);
  std::optional<fitting::BaselineGuard> guard = early_guard;
  if (models::combines_with_baseline(cfg) && !guard)
    guard = with_memory_context("weighing the model against the bias baseline", [&] {
      // The final baseline is fitted to training + validation whatever the protocol: an
      // early-stopped network needed the validation ratings apart, the baseline does not.
      return fitting::fit_baseline_guard(
          s.val_predictions.defined() ? values(s.val_predictions) : std::vector<double>{}, ds, cfg.baseline,
          cv.get(), /*final_on_all=*/true);
    });
  const bool combined = guard && guard->applied;
  std::vector<std::shared_ptr<TrainedModel>> models;
  for (size_t r = 0; r < s.runs.size(); ++r) {
    infer::ModelParts parts =
        infer::model_parts(saved_cfg, retrained ? data::with_validation_in_train(ds) : ds, s.runs[r].saved,
                           retrained ? s.retrain_bias_shrinkage : cv);
    if (ranker) parts.ranker = ranker;
    if (combined) set_combination(parts, r, *guard, cfg, ds, o);
    models.push_back(std::make_shared<TrainedModel>(std::move(parts)));
    if (o.out_dir.empty() && !combined) break;
  }
  if (combined) combine_sweep(s, *guard, ds, models);
  RunMetrics& m = f.result.metrics;
  m = fitting::sweep_metrics(s, cfg, ds);
  if (guard) {
    m.figures["auto"]["combination"] = fitting::guard_json(*guard, model_test, model_test_std);
    f.result.summary.push_back(fitting::describe(*guard));
    if (retrained) {
      const bool ran = std::all_of(s.runs.begin(), s.runs.end(), [](const auto& r) { return r.retrained; });
      m.figures["auto"]["combination"]["network_retrained"] = ran;
      if (!ran)
        f.result.summary.push_back(
            "train.auto: the network was not retrained on all training ratings: the combination gives it "
            "weight 0 on validation, so its retrain could not change a prediction");
    }
    f.verdict = fitting::verdict(*guard);
  }
  f.result.summary.push_back(
      s.model_name + (combined ? " with the bias baseline" : "") + " on " + ds.name + ": test " + label +
      " " + fixed(s.mean(test), 4) + " +- " + fixed(s.std_of(test), 4) + " over " +
      std::to_string(s.runs.size()) + " run(s) (validation " + fixed(s.mean(rating_figure("val")), 4) + ")" +
      (combined ? "; the model alone " + fixed(model_test, 4) : "") + parameters_said(s, ds));
  if (objective_ranks(cfg.train.objective) && m.metrics.count(ranking_figure("test")))
    f.result.summary.push_back("test " + ranking_label() + " " + fixed(m.mean(ranking_figure("test")), 4) +
                               " +- " + fixed(m.std_of(ranking_figure("test")), 4) + " (validation " +
                               fixed(m.mean(ranking_figure("val")), 4) + "; objective " +
                               cfg.train.objective + ", epochs chosen on " + selection_metric(cfg.train) +
                               ")");
  if (s.ensemble.count(test))
    f.result.summary.push_back("ensemble of the " + std::to_string(s.runs.size()) +
                               " runs (mean prediction): test " + label + " " +
                               fixed(s.ensemble.at(test), 4));
  if (compare) {
    // The graphs' worth is the model's own: the comparison trains without the combination.
    const train::SweepResult p = train_without_graphs(cfg, topts);
    const double plain = p.mean(test), plain_std = p.std_of(test);
    m.figures["without_graphs"] = {{test, plain}, {test + "_std", plain_std}};
    f.result.summary.push_back(
        "without graphs (identity At): test " + label + " " + fixed(plain, 4) + " +- " + fixed(plain_std, 4) +
        "; the graphs " + (model_test < plain ? "help" : "do not help") + " by " +
        fixed(plain - model_test, 4) + " (the model alone, " + fixed(model_test, 4) + ")");
  }
  // The other ranks wait here (their branch above): the run ends when rank 0's files are
  // written.
  if (topts.group) topts.group->barrier();
  if (o.out_dir.empty()) models.resize(1);
  if (!o.out_dir.empty()) add_ranking(m, models, "the saved model (run 0), test ratings");
  f.result.model = models.front();
  f.val_predictions = s.val_predictions;
  f.test_predictions = s.test_predictions;
  return f;
}

}  // namespace symgnn::fitting
