// `symgnn train`: trains a model on a dataset, reports test RMSE over seeds, and writes
// checkpoints, per-epoch CSVs, the model and a metrics file.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <optional>
#include <thread>

#include "cli/commands.h"
#include "cli/launch.h"
#include "cli/train_sylvester.h"
#include "data/prediction_file.h"
#include "symgnn/dataset.h"
#include "symgnn/error.h"
#include "symgnn/graph.h"
#include "symgnn/recommend.h"
#include "train/dataset_stats.h"
#include "train/distributed.h"
#include "train/metrics.h"
#include "train/runtime.h"
#include "train/trainer.h"
#include "util/atomic_file.h"
#include "util/checksum.h"
#include "util/memory_check.h"
#include "util/output_lock.h"
#include "util/stats.h"
#include "util/text.h"

namespace fs = std::filesystem;

namespace symgnn::cli {

namespace {

struct TrainOptions {
  CommonOptions common;
  std::string model;  // "" keeps the config file's model (default lowrank)
  std::string variant;
  int64_t runs = -1;
  int64_t epochs = -1;
  std::string out;
  std::string metrics_out;
  std::string resume;
  bool quiet = false;
  std::string progress = "auto";
  bool no_compare = false;
  bool overwrite = false;
  int64_t nproc = 1;  // > 1: launch that many ranks on this machine (cli/launch.h)
};

/// The recorded config of a run, verified against the folder's checksums.sha256.
std::string read_recorded_config(const std::string& dir) {
  const std::string path = dir + "/config.txt";
  if (!fs::exists(path))
    throw UsageError(path + ": not found: " + dir +
                     " holds no run to resume (not written by symgnn train --out, or killed before it "
                     "started: run train --out " +
                     dir + " again)");
  return read_verified_file(path);
}

RunConfig build_config(const TrainOptions& o) {
  if (!o.resume.empty()) {
    // A resumed run must be the same run: its recorded config wins over any flag, only
    // the runtime (threads) may change. A flag that would change it is refused, not
    // ignored.
    std::vector<std::string> refused;
    const CommonOptions& c = o.common;
    if (!c.data.empty()) refused.push_back("--data");
    if (!c.split.empty()) refused.push_back("--split");
    if (!c.config_file.empty()) refused.push_back("--config");
    if (!c.preset.empty()) refused.push_back("--preset");
    if (!c.sets.empty()) refused.push_back("--set");
    if (!c.device.empty()) refused.push_back("--device");
    if (c.seed >= 0) refused.push_back("--seed");
    if (!o.model.empty()) refused.push_back("--model");
    if (!o.variant.empty()) refused.push_back("--variant");
    if (o.runs > 0) refused.push_back("--runs");
    if (o.epochs > 0) refused.push_back("--epochs");
    if (!o.out.empty()) refused.push_back("--out");
    if (o.overwrite) refused.push_back("--overwrite");
    if (!refused.empty()) {
      std::string list;
      for (const auto& f : refused) list += (list.empty() ? "" : ", ") + f;
      throw ConfigError("--resume " + o.resume + " continues the recorded run with its config.txt; drop " +
                        list +
                        " (only --threads, --nproc, --progress, --quiet and --metrics-out may change)");
    }
    RunConfig cfg;
    load_config_text(cfg, read_recorded_config(o.resume), o.resume + "/config.txt");
    return cfg;  // --threads applies to this process only (run_train): the checkpoints record the config
  }
  RunConfig cfg = make_config(o.common, o.model);
  if (!o.variant.empty()) {
    const std::string section = cfg.model == "base" ? "base" : "lowrank";
    set_config_value(cfg, section + ".variant", o.variant, "--variant");
  }
  if (o.runs > 0) set_config_value(cfg, "train.runs", std::to_string(o.runs), "--runs");
  if (o.epochs > 0) set_config_value(cfg, "train.epochs", std::to_string(o.epochs), "--epochs");
  // Record an absolute path so that `predict` and `--resume` find the data from anywhere.
  if (cfg.data.source != "synthetic" && fs::exists(cfg.data.source))
    cfg.data.source = fs::canonical(cfg.data.source).string();
  check_config(cfg);
  return cfg;
}

/// `train --nproc N`: the ranks' threads are the given --threads (else the cores) split
/// between them.
int launch_train(const TrainOptions& o) {
  if (std::getenv("WORLD_SIZE") != nullptr)
    throw ConfigError("--nproc " + std::to_string(o.nproc) +
                      " starts the ranks itself: drop it when WORLD_SIZE, RANK, MASTER_ADDR and MASTER_PORT "
                      "are set (docs/scale.md)");
  const int64_t cores = std::max(1u, std::thread::hardware_concurrency());
  const int64_t threads = o.common.threads > 0 ? o.common.threads : cores;
  return launch_ranks(o.nproc, std::max<int64_t>(1, threads / o.nproc), o.resume.empty() ? o.out : o.resume);
}

/// The same model and seeds with both graphs replaced by the identity: what the graphs
/// are worth on the synthetic default (on every rank of a group).
train::SweepResult train_without_graphs(const RunConfig& cfg, const std::string& progress,
                                        const std::shared_ptr<train::ProcessGroup>& group) {
  RunConfig plain = cfg;
  plain.graph.user_graph = plain.graph.item_graph = "identity";
  Dataset ds_plain = load_dataset(plain.data);
  graph::resolve_graphs(ds_plain, plain.graph);
  train::TrainerOptions popts;
  popts.progress = progress;
  popts.group = group;
  return train::train_sweep(plain, ds_plain, popts);
}

int run_train(const TrainOptions& o) {
  if (o.nproc > 1) return launch_train(o);
  // torchrun's variables (docs/scale.md): one rank of a multi-process run, or (unset) the
  // whole run. Only rank 0 touches --out; the others read it to resume.
  const train::DistributedEnv dist = train::read_distributed_env();
  const bool rank0 = dist.rank == 0;
  // Where the results go is checked before the data is read, not after the training.
  if (rank0 && !o.out.empty()) check_output_dir(o.out, "--out");
  if (rank0 && !o.metrics_out.empty()) check_output_file(o.metrics_out, "--metrics-out");
  RunConfig cfg = build_config(o);
  apply_runtime(cfg);
  if (!o.resume.empty() && o.common.threads >= 0) train::set_compute_threads(o.common.threads);
  const bool quiet = o.quiet || !rank0;
  const std::string progress = quiet ? "quiet" : o.progress;
  train::TrainerOptions topts;
  topts.out_dir = o.resume.empty() ? o.out : o.resume;
  topts.resume = !o.resume.empty();
  topts.progress = progress;
  // One run per folder at a time, and a finished or interrupted run is not replaced unless
  // asked (docs/reliability.md). The lock lives until this function returns.
  std::optional<OutputLock> lock;
  if (rank0 && !topts.out_dir.empty()) {
    fs::create_directories(topts.out_dir);
    const std::string option = topts.resume ? "--resume" : "--out";
    lock.emplace(topts.out_dir, option);
    if (const int n = remove_stale_temporaries(topts.out_dir); n > 0 && !o.quiet)
      std::cerr << "removed " << n << " temporary file(s) left in " << topts.out_dir << " by a killed run\n";
    if (!topts.resume && holds_run(topts.out_dir)) {
      if (!o.overwrite)
        throw UsageError("--out " + topts.out_dir +
                         " already holds a run (its config.txt); continue it with --resume " + topts.out_dir +
                         ", replace it with --overwrite, or choose another folder");
      clear_run(topts.out_dir);
    }
    if (!topts.resume) write_text_atomic(topts.out_dir + "/config.txt", to_text(cfg));
  }
  // The Sylvester baseline (cli/train_sylvester.cpp) has no learned weights to checkpoint.
  if (cfg.model == "sylvester" && dist.world_size > 1)
    throw ConfigError("WORLD_SIZE=" + std::to_string(dist.world_size) +
                      ": the Sylvester baseline (--model sylvester) solves one equation and has no training "
                      "to share: run it as one process");
  if (cfg.model == "sylvester") return train_sylvester(cfg, topts.out_dir, o.metrics_out, o.quiet);

  // Every rank joins here, after rank 0 holds the folder: a rank 0 that refuses it never
  // serves the rendezvous, and the others stop at its timeout.
  if (dist.world_size > 1) topts.group = std::make_shared<train::ProcessGroup>(dist, cfg.train.device);
  Dataset ds = with_memory_context("loading " + cfg.data.source, [&] { return load_dataset(cfg.data); });
  with_memory_context("building the graphs", [&] { graph::resolve_graphs(ds, cfg.graph); });
  train::release_freed_memory();  // the loaders' temporaries
  if (!quiet) std::cerr << train::dataset_stats_text(ds);
  train::SweepResult s = with_memory_context("training the " + cfg.model + " model",
                                             [&] { return train::train_sweep(cfg, ds, topts); });
  const bool compare = cfg.data.source == "synthetic" && !o.no_compare && o.resume.empty();
  if (!rank0) {
    // The other ranks share the training (the comparison's too) and write nothing.
    if (compare) train_without_graphs(cfg, progress, topts.group);
    topts.group->barrier();
    return 0;
  }
  nlohmann::json metrics = train::sweep_metrics(s, cfg, ds);
  std::cout << s.model_name << " on " << ds.name << ": test RMSE " << fixed(s.test_rmse, 4) << " +- "
            << fixed(s.test_rmse_std, 4) << " over " << s.runs.size() << " run(s) (validation "
            << fixed(s.val_rmse, 4) << ")\n";
  if (std::isfinite(s.ensemble_test_rmse))
    std::cout << "ensemble of the " << s.runs.size() << " runs (mean prediction): test RMSE "
              << fixed(s.ensemble_test_rmse, 4) << "\n";

  // On the embedded synthetic default, show what the graphs are worth: the same model
  // and seeds with both graphs replaced by the identity.
  if (compare) {
    const train::SweepResult p = train_without_graphs(cfg, progress, topts.group);
    metrics["without_graphs"] = {{"test_rmse", p.test_rmse}, {"test_rmse_std", p.test_rmse_std}};
    std::cout << "without graphs (identity At): test RMSE " << fixed(p.test_rmse, 4) << " +- "
              << fixed(p.test_rmse_std, 4) << "; the graphs "
              << (s.test_rmse < p.test_rmse ? "help" : "do not help") << " by "
              << fixed(p.test_rmse - s.test_rmse, 4) << "\n";
  }
  // The other ranks wait here (cmd_train's !rank0 branch): the run ends when rank 0's
  // model files are written.
  if (topts.group) topts.group->barrier();
  // MAE per run (mean, std) beside the RMSE, and the saved model's ranking metrics at
  // k = 10 (docs/recommend.md): the model in --out is run 0's.
  {
    std::vector<double> maes;
    const at::Tensor target = torch::tensor(ds.test.value, torch::kDouble);
    for (const auto& r : s.runs)
      if (r.test_predictions.defined() && r.test_predictions.numel() == target.numel())
        maes.push_back((r.test_predictions.to(torch::kDouble) - target).abs().mean().item<double>());
    if (!maes.empty()) {
      const MeanStd m = mean_std(maes);
      metrics["test_mae"] = m.mean;
      metrics["test_mae_std"] = m.std;
    }
  }
  if (!topts.out_dir.empty() && !ds.test.empty()) {
    // Ranking at 10 of every run's model (the retrained one under protocol = retrain), and
    // the popularity baseline on the same data (docs/recommend.md).
    EvaluateOptions eo;
    eo.ks = {10};
    std::vector<Evaluation> runs;
    Evaluation popularity;
    for (size_t k = 0; k < s.runs.size(); ++k) {
      const std::string run = "/run" + std::to_string(k) + "/model.pt";
      const std::string final_path = topts.out_dir + "/final" + run;
      with_memory_context("evaluating the ranking of run " + std::to_string(k), [&] {
        const TrainedModel m =
            TrainedModel::load(fs::exists(final_path) ? final_path : topts.out_dir + run, cfg.train.device);
        runs.push_back(evaluate(m, eo));
        if (k == 0) popularity = evaluate_popularity(m, eo);
      });
    }
    metrics["evaluation"] = evaluation_json(runs[0]);
    metrics["evaluation"]["of"] = "the saved model (run 0), test ratings";
    metrics["ranking_at_10"] = ranking_summary(runs, popularity);
  }
  if (!topts.out_dir.empty()) {
    train::write_json_atomic(topts.out_dir + "/metrics.json", metrics);
    // The runs' mean predictions, for `symgnn blend` (docs/blending.md). Validation
    // predictions come from models that did not train on those ratings.
    auto values = [](const at::Tensor& t) {
      const at::Tensor c = t.to(at::kCPU).to(at::kDouble).contiguous();
      return std::vector<double>(c.data_ptr<double>(), c.data_ptr<double>() + c.numel());
    };
    if (s.test_predictions.defined())
      data::write_predictions_csv(topts.out_dir + "/predictions/test.csv", ds, ds.test,
                                  values(s.test_predictions));
    if (s.val_predictions.defined())
      data::write_predictions_csv(topts.out_dir + "/predictions/val.csv", ds, ds.validation,
                                  values(s.val_predictions));
    std::cout << "wrote " << topts.out_dir
              << "/{model.pt,metrics.json,config.txt,run*/history.csv,predictions/{val,test}.csv}\n";
  }
  if (!o.metrics_out.empty()) train::write_json_atomic(o.metrics_out, metrics);
  return 0;
}

}  // namespace

void add_train_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "train",
      "train a model and report test RMSE (mean and standard deviation over seeds)\n"
      "  symgnn train                                    # embedded synthetic data, with vs without graphs\n"
      "  symgnn train --data ../shared/data/monti/douban.mat --config configs/douban_lowrank.conf --runs 5\n"
      "  symgnn train --data ../shared/data/ml-100k --split u1 --variant G --out runs/ml100k\n"
      "  symgnn train --resume runs/ml100k               # continue an interrupted run\n"
      "  symgnn train --data ../shared/data/monti/douban.mat --nproc 2 --out runs/d2   # 2 processes\n"
      "  symgnn train --model sylvester --data ../shared/data/monti/flixster.mat");
  auto o = std::make_shared<TrainOptions>();
  add_common_options(cmd, o->common);
  cmd->add_option("--model", o->model,
                  "lowrank (default), base, or sylvester (the classic-equation baseline); overrides the "
                  "config file's model")
      ->check(CLI::IsMember({"lowrank", "base", "sylvester"}));
  cmd->add_option("--variant", o->variant, "full (default), G (CGE aggregation only) or A (attention only)")
      ->check(CLI::IsMember({"full", "G", "A"}));
  cmd->add_option("--seed", o->common.seed, "seed of the first run (run r uses seed + r)")
      ->check(config_value_check("train.seed"));
  cmd->add_option("--runs", o->runs, "number of seeds (default 1; the paper reports 5)")
      ->check(config_value_check("train.runs"));
  cmd->add_option("--epochs", o->epochs, "maximum epochs (early stopping may end sooner)")
      ->check(config_value_check("train.epochs"));
  cmd->add_option("--out", o->out, "directory for checkpoints, per-epoch CSVs, model.pt and metrics.json");
  cmd->add_option("--metrics-out", o->metrics_out, "write the metrics JSON here too");
  cmd->add_flag("--overwrite", o->overwrite,
                "replace the run already in --out (its config, checkpoints, model and metrics; other "
                "files stay); without it such an --out is refused");
  cmd->add_option("--resume", o->resume,
                  "continue the interrupted training recorded in this --out directory");
  cmd->add_flag("--quiet", o->quiet, "print only the final result");
  cmd->add_option("--progress", o->progress, "auto (bar on a terminal, else lines), lines or quiet")
      ->check(CLI::IsMember({"auto", "lines", "quiet"}));
  cmd->add_flag("--no-compare", o->no_compare, "on synthetic data, skip the run without graphs");
  cmd->add_option("--nproc", o->nproc,
                  "train with N processes on this machine (data-parallel: each takes a share of the "
                  "training ratings and of --threads; docs/scale.md)")
      ->check(CLI::Range(int64_t{1}, int64_t{1024}));
  cmd->callback([o] {
    const int code = run_train(*o);
    if (code != 0) throw CLI::RuntimeError(code);
  });
}

}  // namespace symgnn::cli
