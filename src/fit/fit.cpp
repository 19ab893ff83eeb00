// symgnn::fit (symgnn/fit.h): the run's folder, the data, the dispatch by model kind, the
// in-memory evaluation and the model directory's files.
#include "symgnn/fit.h"

#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <functional>
#include <optional>

#include "data/dataset_snapshot.h"
#include "data/item_names.h"
#include "data/prediction_file.h"
#include "fit/baseline_guard.h"
#include "fit/evaluation_json.h"
#include "fit/graph_choice.h"
#include "fit/graph_worth.h"
#include "fit/prior_choice.h"
#include "fit/ranker.h"
#include "fit/sweep_metrics.h"
#include "infer/model_parts.h"
#include "infer/unseen_test.h"
#include "models/baseline/baseline_figures.h"
#include "models/baseline/combined_model.h"
#include "models/ranking/ranking_loss.h"
#include "models/ranking/ranking_probe.h"
#include "models/rating_levels.h"
#include "runtime/runtime.h"
#include "symgnn/dataset.h"
#include "symgnn/error.h"
#include "symgnn/graph.h"
#include "symgnn/model.h"
#include "symgnn/model_kinds.h"
#include "symgnn/recommend.h"
#include "train/checkpoint.h"
#include "train/dataset_stats.h"
#include "train/distributed.h"
#include "train/epoch_metrics.h"
#include "train/trainer.h"
#include "util/atomic_file.h"
#include "util/checksum.h"
#include "util/memory_check.h"
#include "util/output_lock.h"
#include "util/stats.h"
#include "util/text.h"

namespace fs = std::filesystem;

namespace symgnn {
namespace {

void say(const FitOptions& o, const std::string& line) {
  if (o.log) o.log(line);
}

/// The ratings of a list as a float tensor: the truth the epoch metrics compare with.
at::Tensor truth(const RatingList& r) {
  return torch::tensor(r.value, torch::kFloat);
}

std::vector<double> values(const at::Tensor& t) {
  const at::Tensor c = t.to(at::kCPU).to(at::kDouble).contiguous();
  return std::vector<double>(c.data_ptr<double>(), c.data_ptr<double>() + c.numel());
}

/// Ranking at 10 of each fitted model (run 0's first), the popularity baseline beside them,
/// and run 0's whole evaluation: metrics.json's "evaluation" and "ranking_at_10".
void add_ranking(RunMetrics& m, const std::vector<std::shared_ptr<TrainedModel>>& models,
                 const std::string& of) {
  if (models.empty() || models.front()->dataset().test.empty()) return;
  EvaluateOptions eo;
  eo.ks = {10};
  std::vector<Evaluation> runs;
  Evaluation popularity;
  for (size_t k = 0; k < models.size(); ++k)
    with_memory_context("evaluating the ranking of run " + std::to_string(k), [&] {
      runs.push_back(evaluate(*models[k], eo));
      if (k == 0) popularity = evaluate_popularity(*models[k], eo);
    });
  m.evaluation = fitting::evaluation_json(runs[0]);
  m.evaluation["of"] = of;
  m.ranking_at_10 = fitting::ranking_summary(runs, popularity);
}

/// The same model and seeds with both graphs replaced by the identity: what the graphs are
/// worth on the synthetic default (on every rank of a group).
train::SweepResult train_without_graphs(const RunConfig& cfg, const std::string& progress,
                                        const std::shared_ptr<train::ProcessGroup>& group) {
  RunConfig plain = cfg;
  plain.graph.user_graph = plain.graph.item_graph = "identity";
  Dataset ds_plain = load_dataset(plain.data);
  graph::resolve_graphs(ds_plain, plain.graph);  // identity on both sides: nothing to say
  train::TrainerOptions popts;
  popts.progress = progress;
  popts.group = group;
  return train::train_sweep(plain, ds_plain, popts);
}

/// Implicit data (every training rating the same value: clicks, plays) has no rating to
/// fit: a model left on objective rating would reach an RMSE of 0 and rank at random. A kind
/// that trains for ranking switches to it, and says so; another kind gets a warning.
void train_for_ranking_on_implicit_data(RunConfig& cfg, const Dataset& ds, const ModelKind& kind,
                                        const std::function<void(const std::string&)>& say_line) {
  if (ds.train.empty() || cfg.train.objective != "rating") return;
  const auto [lo, hi] = std::minmax_element(ds.train.value.begin(), ds.train.value.end());
  if (*lo != *hi) return;
  const std::string what = ds.name + ": every training rating is " + fixed(*lo, 2) + " (implicit data)";
  if (kind.fit == FitMethod::trained && kind_serves(kind, "ranking")) {
    cfg.train.objective = "ranking";
    say_line("note: " + what + ": training for ranking instead (train.objective = ranking)");
  } else if (kind.fit == FitMethod::trained || std::string(kind.objectives) == "rating") {
    say_line(
        "warning: " + what + ": model = " + cfg.model +
        " fits ratings, which are all equal here: its ranking is arbitrary; use model = ease, itemknn or "
        "lowrank with train.objective = ranking");
  }
}

/// The titles the data source carries (MovieLens), kept as DIR/item_names.csv for serve's
/// page; nothing for sources without titles. Unreadable titles only cost the names.
void pin_item_names(const Dataset& ds, const DataConfig& cfg, const FitOptions& o) {
  data::ItemNames names;
  try {
    names = data::source_item_names(cfg.source);
  } catch (const DataError& e) {
    return say(o, std::string("note: no item names kept: ") + e.what());
  }
  if (names.empty()) return;
  std::string text = "item,name\n";
  for (int64_t i = 0; i < ds.items.count; ++i)
    if (const auto it = names.find(ds.items.id_of(i)); it != names.end())
      text += it->first + "," + it->second + "\n";
  write_text_atomic(o.out_dir + "/" + data::kItemNamesFile, text);
}

/// The model directory's pinned data (data/dataset_snapshot.h): written when a run starts;
/// on --resume, the files read again must hold the same data (a folder written before
/// snapshots existed resumes unchecked, with a note).
void pin_data(const Dataset& ds, const DataConfig& cfg, const FitOptions& o) {
  const std::string path = o.out_dir + "/" + data::kSnapshotFile;
  if (!o.resume) {
    data::write_snapshot(ds, path);
    return pin_item_names(ds, cfg, o);
  }
  if (!fs::exists(path))
    return say(o, "note: " + o.out_dir + " has no " + data::kSnapshotFile +
                      " (written by an older symgnn): the data read again is not checked against the data "
                      "the run started on");
  if (const std::string diff = data::first_difference(data::read_snapshot(path), ds, cfg); !diff.empty())
    throw DataError(diff);
}

/// Removes the runs' checkpoints (weights, optimiser state, random state: three times the
/// model) once the run has ended and its model is saved (train.keep_checkpoints = false).
void prune_checkpoints(const std::string& out_dir) {
  std::error_code ec;
  for (const std::string& phase : {out_dir, out_dir + "/final"}) {
    for (int64_t r = 0;; ++r) {
      const fs::path run = fs::path(phase) / ("run" + std::to_string(r));
      if (!fs::is_directory(run, ec)) break;
      fs::remove(run / "checkpoint.pt", ec);
    }
  }
}

struct Fitted {
  FitResult result;
  at::Tensor val_predictions, test_predictions;  // CPU float64, in the split's order
};

/// Rewrites the sweep's validation and test figures to the combination of train.auto
/// (fit/baseline_guard.h), whose weights `models` (every run's saved members) now hold: the
/// test predictions are the saved models' own, the validation ones the selection phase's
/// combined with the baseline of ds.train.
void combine_sweep(train::SweepResult& s, const fitting::BaselineGuard& g, const Dataset& ds,
                   const std::vector<std::shared_ptr<TrainedModel>>& models) {
  const float lo = ds.rating_min, hi = ds.rating_max;
  std::vector<double> test_rmse, val_rmse;
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
        c[e] = std::clamp(g.combine(m[e], g.val_baseline[e]), double{lo}, double{hi});
      run.val_predictions = torch::tensor(c, torch::kDouble);
      train::add_errors(errors, "val", run.val_predictions, truth(ds.validation), lo, hi);
    }
    for (const auto& [name, value] : errors) run.selected[name] = value;
    run.test_rmse = train::metric_of(errors, "test_rmse");
    run.val_rmse = train::metric_of(errors, "val_rmse");
    test_rmse.push_back(run.test_rmse);
    val_rmse.push_back(run.val_rmse);
    if (run.test_predictions.defined())
      test_sum = test_sum.defined() ? test_sum + run.test_predictions : run.test_predictions;
    if (run.val_predictions.defined())
      val_sum = val_sum.defined() ? val_sum + run.val_predictions : run.val_predictions;
  }
  if (test_rmse.empty()) return;
  const MeanStd t = mean_std(test_rmse), v = mean_std(val_rmse);
  s.test_rmse = t.mean;
  s.test_rmse_std = t.std;
  s.val_rmse = v.mean;
  s.val_rmse_std = v.std;
  const double n = static_cast<double>(test_rmse.size());
  if (test_sum.defined()) {
    s.test_predictions = test_sum / n;
    if (test_rmse.size() > 1) s.ensemble_test_rmse = train::rmse(s.test_predictions, truth(ds.test), lo, hi);
  }
  if (val_sum.defined()) s.val_predictions = val_sum / n;
}

/// Sets train.auto's combination into every member of run `r`'s `parts` and saves them
/// again where the trainer wrote them (DIR/[final/]run<r>/model.pt, and DIR/model.pt, run
/// 0's copy).
void set_combination(infer::ModelParts& parts, size_t r, const fitting::BaselineGuard& g,
                     const RunConfig& cfg, const Dataset& ds, const FitOptions& o) {
  std::vector<train::ModuleState> states;
  for (const auto& m : parts.members) {
    auto* combined = dynamic_cast<models::CombinedModel*>(m.get());
    TORCH_CHECK(combined, "train.auto: the model built is no combination (models/baseline/combined_model.h)");
    combined->set_combination({g.c, g.a, g.b}, g.final_biases, g.shrinkage);
    states.push_back(train::module_state(*m));
  }
  if (o.out_dir.empty()) return;
  std::vector<std::string> paths = {o.out_dir + (train::retrains(cfg, ds) ? "/final" : "") + "/run" +
                                    std::to_string(r) + "/model.pt"};
  if (r == 0) paths.push_back(o.out_dir + "/model.pt");
  for (const std::string& path : paths)
    if (fs::exists(path))
      train::save_model(*parts.members.front(), train::read_model_config(path), path,
                        states.size() > 1 ? states : std::vector<train::ModuleState>{});
}

/// A kind the trainer learns (symgnn/model_kinds.h, fit = trained).
Fitted fit_trained(RunConfig& cfg, const Dataset& ds, const FitOptions& o, train::TrainerOptions& topts,
                   bool rank0, const std::shared_ptr<const TrainedModel>& ranker) {
  train::SweepResult s = with_memory_context("training the " + cfg.model + " model",
                                             [&] { return train::train_sweep(cfg, ds, topts); });
  const bool compare = cfg.data.source == "synthetic" && o.compare_without_graphs && !o.resume;
  Fitted f;
  if (!rank0) {
    // The other ranks share the training (the comparison's too) and write nothing.
    if (compare) train_without_graphs(cfg, topts.progress, topts.group);
    topts.group->barrier();
    return f;
  }
  // The runs' saved models in memory (under protocol = retrain the ones trained on all
  // training ratings, whose data has no validation split): run 0's is the result; every
  // run's is ranked where the run writes its model directory, as metrics.json reports it.
  RunConfig saved_cfg = cfg;
  const bool retrained = train::retrains(cfg, ds);
  if (retrained) saved_cfg.data.val_fraction = 0;
  // train.auto: the final combination with the bias baseline, fitted on validation.
  const double model_test_rmse = s.test_rmse, model_test_std = s.test_rmse_std;
  std::optional<fitting::BaselineGuard> guard;
  if (models::combines_with_baseline(cfg))
    guard = with_memory_context("weighing the model against the bias baseline", [&] {
      return fitting::fit_baseline_guard(
          s.val_predictions.defined() ? values(s.val_predictions) : std::vector<double>{}, ds, cfg.baseline,
          retrained);
    });
  const bool combined = guard && guard->applied;
  std::vector<std::shared_ptr<TrainedModel>> models;
  for (size_t r = 0; r < s.runs.size(); ++r) {
    infer::ModelParts parts =
        infer::model_parts(saved_cfg, retrained ? data::with_validation_in_train(ds) : ds, s.runs[r].saved);
    parts.ranker = ranker;
    if (combined) set_combination(parts, r, *guard, cfg, ds, o);
    models.push_back(std::make_shared<TrainedModel>(std::move(parts)));
    if (o.out_dir.empty() && !combined) break;
  }
  if (combined) combine_sweep(s, *guard, ds, models);
  RunMetrics& m = f.result.metrics;
  m = fitting::sweep_metrics(s, cfg, ds);
  if (guard) {
    m.figures["auto"]["combination"] = fitting::guard_json(*guard, model_test_rmse, model_test_std);
    f.result.summary.push_back(fitting::describe(*guard));
  }
  f.result.summary.push_back(s.model_name + (combined ? " with the bias baseline" : "") + " on " + ds.name +
                             ": test RMSE " + fixed(s.test_rmse, 4) + " +- " + fixed(s.test_rmse_std, 4) +
                             " over " + std::to_string(s.runs.size()) + " run(s) (validation " +
                             fixed(s.val_rmse, 4) + ")" +
                             (combined ? "; the model alone " + fixed(model_test_rmse, 4) : ""));
  if (models::Objective(cfg.train).ranks() && m.metrics.count("test_ndcg@10"))
    f.result.summary.push_back("test NDCG@10 " + fixed(m.mean("test_ndcg@10"), 4) + " +- " +
                               fixed(m.std_of("test_ndcg@10"), 4) + " (validation " +
                               fixed(m.mean("val_ndcg@10"), 4) + "; objective " + cfg.train.objective +
                               ", epochs chosen on " + selection_metric(cfg.train) + ")");
  if (std::isfinite(s.ensemble_test_rmse))
    f.result.summary.push_back("ensemble of the " + std::to_string(s.runs.size()) +
                               " runs (mean prediction): test RMSE " + fixed(s.ensemble_test_rmse, 4));
  if (compare) {
    // The graphs' worth is the model's own: the comparison trains without the combination.
    const train::SweepResult p = train_without_graphs(cfg, topts.progress, topts.group);
    m.figures["without_graphs"] = {{"test_rmse", p.test_rmse}, {"test_rmse_std", p.test_rmse_std}};
    f.result.summary.push_back("without graphs (identity At): test RMSE " + fixed(p.test_rmse, 4) + " +- " +
                               fixed(p.test_rmse_std, 4) + "; the graphs " +
                               (model_test_rmse < p.test_rmse ? "help" : "do not help") + " by " +
                               fixed(p.test_rmse - model_test_rmse, 4) + " (the model alone, " +
                               fixed(model_test_rmse, 4) + ")");
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

/// A kind fitted in closed form (symgnn/model_kinds.h, fit = closed_form): one
/// deterministic "run".
Fitted fit_closed_form(RunConfig& cfg, const Dataset& ds, const FitOptions& o,
                       const std::shared_ptr<const TrainedModel>& ranker) {
  const at::Device device(cfg.train.device);
  infer::ModelParts parts;
  parts.cfg = cfg;
  parts.ds = ds;
  parts.ctx = models::make_context(ds).to(device);
  auto model = models::make_model(cfg, parts.ctx);
  model->to(device);
  const auto t0 = std::chrono::steady_clock::now();
  const models::ClosedFormFit c = model->fit(ds, device, [&](const std::string& line) { say(o, line); });
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  Fitted f;
  RunMetrics& m = f.result.metrics;
  m.model = model->name();
  f.val_predictions = torch::tensor(c.val_predictions, torch::kDouble);
  f.test_predictions = torch::tensor(c.test_predictions, torch::kDouble);
  // The trainer's epoch metrics (train/epoch_metrics.h), of the one deterministic "run".
  train::MetricValues errors;
  train::add_errors(errors, "val", f.val_predictions, truth(ds.validation), parts.ctx.rating_min,
                    parts.ctx.rating_max);
  train::add_errors(errors, "test", f.test_predictions, truth(ds.test), parts.ctx.rating_min,
                    parts.ctx.rating_max);
  for (const auto& [name, value] : c.metrics) errors[name] = value;
  if (!ds.test.empty()) {
    // Every closed-form kind's test ranking under evaluate's protocol (the candidates exclude
    // the training and validation ratings the final fit saw).
    const models::RankingProbe probe = models::test_probe(ds, cfg.train.ranking_block, device);
    if (!probe.empty())
      errors["test_ndcg@10"] =
          probe.measure([&](const at::Tensor& users) { return model->score_items(users, ds.items.count); })
              .ndcg;
  }
  SeedMetrics run;
  run.metrics = errors;
  for (const char* name : {"test_rmse", "val_rmse"}) run.metrics[name] = train::metric_of(errors, name);
  for (const auto& [name, value] : run.metrics) m.set(name, {value});
  run.train_seconds = c.details.value("seconds", seconds);
  m.runs.push_back(run);
  m.figures = c.details;
  m.figures["train_seconds"] = run.train_seconds;
  m.config = to_text(cfg);
  m.dataset = train::dataset_stats(ds);
  m.version = fitting::version_json();
  if (!o.out_dir.empty()) train::save_model(*model, to_text(cfg), o.out_dir + "/model.pt");
  parts.members = {model};
  parts.ranker = ranker;
  f.result.model = std::make_shared<TrainedModel>(std::move(parts));
  if (!o.out_dir.empty()) add_ranking(m, {f.result.model}, "the saved model, test ratings");
  f.result.summary = c.summary;
  if (errors.count("test_ndcg@10"))
    f.result.summary.push_back(model->name() + ": test NDCG@10 " + fixed(errors["test_ndcg@10"], 4) +
                               ", test RMSE " + fixed(train::metric_of(errors, "test_rmse"), 4) +
                               (model->ranks_by_rating() ? " (ranked by predicted rating)" : ""));
  return f;
}

/// The closed-form ranker train.ranker names (fit/ranker.h), fitted on the model's data
/// into DIR/ranker, a model directory of its own; null when the model ranks by itself.
/// Several candidates (train.ranker = auto) are each fitted into DIR/ranker.<kind>, and the
/// one with the best validation NDCG@10 becomes DIR/ranker (the others are removed).
std::shared_ptr<const TrainedModel> fit_ranker(const RunConfig& cfg, const Dataset& ds, const FitOptions& o,
                                               nlohmann::json& record, std::vector<std::string>& summary) {
  const fitting::RankerChoice choice = fitting::choose_ranker(cfg, ds.users.count, ds.items.count);
  if (!choice.note.empty()) say(o, "note: " + choice.note);
  if (choice.candidates.empty()) return nullptr;
  const bool choose = choice.candidates.size() > 1;
  // Each candidate's validation NDCG@10 (-1 without one), and the best so far: its fit
  // (model and figures) and directory. A candidate that does not beat the best is dropped
  // at once, so that one fitted ranker at a time stays in memory beside the one fitting.
  std::vector<std::pair<std::string, double>> tried;
  Fitted won;
  std::string won_kind, won_dir;
  double won_ndcg = -1;
  for (const std::string& kind : choice.candidates) {
    RunConfig rcfg = cfg;
    rcfg.model = kind;
    rcfg.train.ranker = "none";
    FitOptions ro;
    ro.log = o.log;
    if (!o.out_dir.empty()) {
      ro.out_dir = infer::ranker_dir(o.out_dir) + (choose ? "." + kind : "");
      fs::remove_all(ro.out_dir);
      fs::create_directories(ro.out_dir);
      write_text_atomic(ro.out_dir + "/config.txt", to_text(rcfg));
    }
    say(o, "fitting the " + kind + " ranker" + (choose ? " candidate" : "") +
               " that recommend and evaluate rank by (train.ranker = " + cfg.train.ranker + ")");
    Fitted f = with_memory_context("fitting the " + kind + " ranker",
                                   [&] { return fit_closed_form(rcfg, ds, ro, nullptr); });
    if (!ro.out_dir.empty()) f.result.metrics.write(ro.out_dir + "/metrics.json");
    const double ndcg =
        f.result.metrics.metrics.count("val_ndcg@10") ? f.result.metrics.mean("val_ndcg@10") : -1.0;
    // The best on validation; ties (and no validation) keep the first, in the order of
    // fit/ranker.h's candidates.
    const bool best = tried.empty() || ndcg > won_ndcg;
    tried.emplace_back(kind, ndcg);
    if (!best) {
      if (choose && !ro.out_dir.empty()) fs::remove_all(ro.out_dir);
      continue;
    }
    if (choose && !won_dir.empty()) fs::remove_all(won_dir);
    won = std::move(f);
    won_ndcg = ndcg;
    won_kind = kind;
    won_dir = ro.out_dir;
  }
  if (choose && !o.out_dir.empty()) {
    const std::string dir = infer::ranker_dir(o.out_dir);
    fs::remove_all(dir);
    fs::rename(won_dir, dir);
  }
  const RunMetrics& m = won.result.metrics;
  record = {{"kind", won_kind}, {"dir", "ranker"}, {"figures", m.figures}};
  for (const char* name : {"val_ndcg@10", "test_ndcg@10"})
    if (m.metrics.count(name)) record[name] = m.mean(name);
  if (choose) {
    nlohmann::json by_kind = nlohmann::json::object();
    std::string line = "train.ranker = auto: validation NDCG@10";
    for (const auto& [kind, ndcg] : tried) {
      by_kind[kind] = ndcg;
      line += " " + kind + " " + fixed(ndcg, 4) + (kind == won_kind ? " (chosen)" : "") + ",";
    }
    line.pop_back();
    record["candidates_val_ndcg@10"] = by_kind;
    summary.push_back(line);
  }
  for (const std::string& line : won.result.summary) summary.push_back("ranker: " + line);
  return won.result.model;
}

}  // namespace

FitResult fit(const RunConfig& cfg_in, const FitOptions& o) {
  RunConfig cfg = cfg_in;
  // Record an absolute path so that `predict` and `--resume` find the data from anywhere.
  if (cfg.data.source != "synthetic" && fs::exists(cfg.data.source))
    cfg.data.source = fs::canonical(cfg.data.source).string();
  check_config(cfg);
  runtime::check_device(cfg.train.device, "train.device");
  const ModelKind& kind = model_kind(cfg.model);
  // torchrun's variables (docs/scale.md): one rank of a multi-process run, or (unset) the
  // whole run. Only rank 0 touches the folder; the others read it to resume.
  const train::DistributedEnv dist = train::read_distributed_env();
  const bool rank0 = dist.rank == 0;
  if (kind.fit == FitMethod::closed_form && dist.world_size > 1)
    throw ConfigError("WORLD_SIZE=" + std::to_string(dist.world_size) + ": model = " + cfg.model +
                      " is fitted in closed form and has no training to share: run it as one process");
  // One run per folder at a time, and a finished or interrupted run is not replaced unless
  // asked (docs/reliability.md). The lock lives until the run's files are written.
  std::optional<OutputLock> lock;
  if (rank0 && !o.metrics_out.empty()) check_output_file(o.metrics_out, "--metrics-out");
  if (rank0 && !o.out_dir.empty()) {
    check_output_dir(o.out_dir, o.resume ? "--resume" : "--out");
    fs::create_directories(o.out_dir);
    lock.emplace(o.out_dir, o.resume ? "--resume" : "--out");
    if (const int n = remove_stale_temporaries(o.out_dir); n > 0)
      say(o, "removed " + std::to_string(n) + " temporary file(s) left in " + o.out_dir + " by a killed run");
    if (!o.resume && holds_run(o.out_dir)) {
      if (!o.overwrite)
        throw UsageError("--out " + o.out_dir +
                         " already holds a run (its config.txt); continue it with --resume " + o.out_dir +
                         ", replace it with --overwrite, or choose another folder");
      clear_run(o.out_dir);
    }
    if (o.resume && kind.fit == FitMethod::trained && fs::exists(o.out_dir + "/metrics.json") &&
        !fs::exists(o.out_dir + "/run0/checkpoint.pt") &&
        !fs::exists(o.out_dir + "/final/run0/checkpoint.pt"))
      throw UsageError("--resume " + o.out_dir +
                       ": the run is finished (its metrics.json) and its checkpoints were pruned "
                       "(train.keep_checkpoints = false): nothing to resume; train again with --overwrite");
    if (!o.resume) write_text_atomic(o.out_dir + "/config.txt", to_text(cfg));
  }
  train::TrainerOptions topts;
  topts.out_dir = o.out_dir;
  topts.resume = o.resume;
  topts.progress = o.progress;
  // Every rank joins here, after rank 0 holds the folder: a rank 0 that refuses it never
  // serves the rendezvous, and the others stop at its timeout.
  if (dist.world_size > 1) {
    topts.group = std::make_shared<train::ProcessGroup>(dist, cfg.train.device);
    // What must be equal: the config, less the process's threads and the paths of the data
    // (a machine may mount them elsewhere; the data themselves are compared once read).
    RunConfig same = cfg;
    same.train.threads = 0;
    for (std::string* path :
         {&same.data.source, &same.data.test_file, &same.data.user_graph_file, &same.data.item_graph_file,
          &same.data.user_features_file, &same.data.item_features_file})
      if (*path != "synthetic") path->clear();
    topts.group->agree("config", sha256_hex(to_text(same)));
  }

  Dataset ds = with_memory_context("loading " + cfg.data.source, [&] { return load_dataset(cfg.data); });
  const std::vector<std::string> graph_notes =
      with_memory_context("building the graphs", [&] { return graph::resolve_graphs(ds, cfg.graph); });
  if (rank0)
    for (const std::string& note : graph_notes) say(o, note);
  runtime::release_freed_memory();  // the loaders' temporaries
  if (rank0) say(o, train::dataset_stats_text(ds));
  // train.auto: what each graph is worth on validation, by a proxy (fit/graph_worth.h).
  std::vector<fitting::GraphWorth> graph_worths;
  if (rank0 && models::combines_with_baseline(cfg)) graph_worths = fitting::weigh_graphs(ds, cfg.baseline);
  for (const fitting::GraphWorth& w : graph_worths) say(o, fitting::describe(w));
  if (topts.group) topts.group->agree("data", data::fingerprint(ds));
  train_for_ranking_on_implicit_data(cfg, ds, kind, [&](const std::string& line) {
    if (rank0) say(o, line);
  });
  // lowrank.prior = auto becomes encoder or paper here, on the data's size; the folder's
  // config.txt records what was trained, so that loading and --resume build the same model.
  const std::string prior_note =
      fitting::resolve_prior(cfg, ds.users.count, ds.items.count, static_cast<int64_t>(ds.train.size()),
                             models::prior_class_count(models::rating_levels(ds).size()));
  if (rank0 && !prior_note.empty()) say(o, prior_note);
  // train.auto: each side's graph chosen by short runs (fit/graph_choice.h), before the data
  // are pinned: the folder keeps the graphs trained on. One process only (the choice would
  // have to be agreed); on --resume, config.txt holds the choice made.
  fitting::GraphChoice graph_choice;
  if (rank0 && dist.world_size == 1 && kind.fit == FitMethod::trained && models::combines_with_baseline(cfg))
    graph_choice = with_memory_context(
        "choosing the graphs by short runs of the " + cfg.model + " model",
        [&] { return fitting::choose_graphs(cfg, ds, [&](const std::string& line) { say(o, line); }); });
  if (rank0 && !o.out_dir.empty()) pin_data(ds, cfg.data, o);
  if (rank0 && !o.out_dir.empty() &&
      (cfg.lowrank.prior != cfg_in.lowrank.prior || cfg.graph.user_graph != cfg_in.graph.user_graph ||
       cfg.graph.item_graph != cfg_in.graph.item_graph))
    write_text_atomic(o.out_dir + "/config.txt", to_text(cfg));

  // The ranker first (seconds), so that the model's evaluation ranks with it.
  nlohmann::json ranker_record;
  std::vector<std::string> ranker_summary;
  const std::shared_ptr<const TrainedModel> ranker =
      rank0 ? fit_ranker(cfg, ds, o, ranker_record, ranker_summary) : nullptr;
  Fitted f = kind.fit == FitMethod::trained ? fit_trained(cfg, ds, o, topts, rank0, ranker)
                                            : fit_closed_form(cfg, ds, o, ranker);
  if (!rank0) return std::move(f.result);
  // Test ratings of ids the model never saw rated, reported apart (infer/unseen_test.h), as
  // `evaluate` reports them: by the training ratings of the model saved (the retrain
  // protocol's has the validation ratings among them).
  if (f.test_predictions.defined() && !ds.test.empty()) {
    const UnseenTestReport u = infer::report_unseen(f.result.model ? f.result.model->dataset() : ds,
                                                    values(f.test_predictions), cfg.data.unknown_test);
    if (const std::string line = infer::describe(u); !line.empty()) {
      f.result.summary.push_back(line);
      f.result.metrics.figures["test_unseen"] = fitting::unseen_json(u);
    }
  }
  // The bias baseline beside every rating figure (models/baseline/baseline_figures.h), as
  // popularity stands beside the ranking ones; on the saved model's data, as `evaluate` does.
  if (models::shows_bias_baseline(cfg) && !ds.test.empty()) {
    const models::BaselineFigures b =
        models::baseline_figures(f.result.model ? f.result.model->dataset() : ds, cfg.baseline);
    f.result.summary.push_back(models::describe(b));
    f.result.metrics.figures["baseline"] = fitting::baseline_json(b);
  }
  if (!graph_worths.empty()) f.result.metrics.figures["auto"]["graphs"] = fitting::graph_json(graph_worths);
  if (!graph_choice.sides.empty())
    f.result.metrics.figures["auto"]["graph_choice"] = fitting::graph_choice_json(graph_choice);
  if (ranker) {
    f.result.metrics.figures["ranker"] = ranker_record;
    f.result.summary.insert(f.result.summary.end(), ranker_summary.begin(), ranker_summary.end());
    f.result.summary.push_back("recommend and evaluate rank by the " + ranker->name() + " ranker in " +
                               (o.out_dir.empty() ? std::string("memory") : infer::ranker_dir(o.out_dir)) +
                               "; predictions come from " + f.result.model->name());
  }
  if (!o.out_dir.empty()) {
    f.result.metrics.write(o.out_dir + "/metrics.json");
    // The runs' mean predictions, for `symgnn blend` (docs/blending.md). Validation
    // predictions come from models that did not train on those ratings.
    if (f.test_predictions.defined() && !ds.test.empty())
      data::write_predictions_csv(o.out_dir + "/predictions/test.csv", ds, ds.test,
                                  values(f.test_predictions));
    if (f.val_predictions.defined() && !ds.validation.empty())
      data::write_predictions_csv(o.out_dir + "/predictions/val.csv", ds, ds.validation,
                                  values(f.val_predictions));
    if (kind.fit == FitMethod::trained && !cfg.train.keep_checkpoints) prune_checkpoints(o.out_dir);
    f.result.summary.push_back("wrote " + o.out_dir + "/{model.pt,dataset.bin,metrics.json,config.txt," +
                               (kind.fit == FitMethod::trained ? "run*/history.csv," : "") +
                               (ranker ? "ranker/," : "") + "predictions/{val,test}.csv}");
  }
  if (!o.metrics_out.empty()) f.result.metrics.write(o.metrics_out);
  return std::move(f.result);
}

}  // namespace symgnn
