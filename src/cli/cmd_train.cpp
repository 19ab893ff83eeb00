// `symgnn train`: parses the options into a RunConfig, runs symgnn::fit (symgnn/fit.h),
// prints its summary.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <thread>

#include "cli/commands.h"
#include "cli/launch.h"
#include "cli/progress_printer.h"
#include "fit/mlflow_run.h"
#include "runtime/runtime.h"
#include "symgnn/error.h"
#include "symgnn/fit.h"
#include "symgnn/model_kinds.h"
#include "train/distributed.h"
#include "util/checksum.h"

namespace fs = std::filesystem;

namespace symgnn::cli {

namespace {

/// --model's help: every kind of the table with its summary.
std::string model_kinds_help() {
  std::string text = "the model kind (default: the config's, else lowrank):";
  for (const ModelKind& k : kModelKinds) text += std::string("\n  ") + k.name + ": " + k.summary;
  return text;
}

struct TrainOptions {
  CommonOptions common;
  std::string model;  // "" keeps the config file's model (default lowrank)
  std::string variant;
  int64_t runs = -1;
  int64_t epochs = -1;
  std::string out;
  std::string metrics_out;
  std::string mlflow_dir;
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
  if (!o.variant.empty()) set_variant(cfg, o.variant, "--variant");
  if (o.runs > 0) set_config_value(cfg, "train.runs", std::to_string(o.runs), "--runs");
  if (o.epochs > 0) set_config_value(cfg, "train.epochs", std::to_string(o.epochs), "--epochs");
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

int run_train(const TrainOptions& o) {
  if (o.nproc > 1) return launch_train(o);
  // Rank 0 of a multi-process run prints (fit checks where the results go before the data
  // is read, and only rank 0 writes them).
  const bool rank0 = train::read_distributed_env().rank == 0;
  RunConfig cfg = build_config(o);
  apply_runtime(cfg);
  if (!o.resume.empty() && o.common.threads >= 0) runtime::set_compute_threads(o.common.threads);
  const bool quiet = o.quiet || !rank0;
  FitOptions fo;
  fo.out_dir = o.resume.empty() ? o.out : o.resume;
  fo.resume = !o.resume.empty();
  fo.overwrite = o.overwrite;
  fo.metrics_out = o.metrics_out;
  fo.compare_without_graphs = !o.no_compare;
  if (!quiet) {
    auto printer = std::make_shared<ProgressPrinter>(o.progress, cfg.train.log_every);
    fo.on_epoch = [printer](const ProgressEvent& e) { printer->epoch(e); };
    fo.log = [printer](const std::string& line) { printer->line(line); };
  }
  // The run for an experiment tracker (fit/mlflow_run.h), written by rank 0 once the fit ends.
  std::shared_ptr<fitting::MlflowRun> tracked;
  if (!o.mlflow_dir.empty() && rank0) {
    tracked = std::make_shared<fitting::MlflowRun>(
        o.mlflow_dir, cfg.model + " on " + fs::path(cfg.data.source).filename().string());
    fo.on_epoch = [tracked, shown = fo.on_epoch](const ProgressEvent& e) {
      tracked->epoch(e);
      if (shown) shown(e);
    };
  }
  const FitResult r = fit(cfg, fo);
  if (tracked) tracked->finish(to_text(cfg), r.metrics.to_json(), fo.out_dir);
  if (rank0)
    for (const std::string& line : r.summary) std::cout << line << "\n";
  if (tracked && !quiet) std::cout << "mlflow: run " << tracked->id() << " in " << tracked->folder() << "\n";
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
  cmd->add_option("--model", o->model, model_kinds_help())->check(config_value_check("model"));
  cmd->add_option("--variant", o->variant,
                  "full, G (CGE aggregation only) or A (attention only): the model section's variant, for "
                  "the kinds that have one (default: the preset's; recommended sets G)")
      ->check(CLI::IsMember({"full", "G", "A"}));
  cmd->add_option("--seed", o->common.seed, "seed of the first run (run r uses seed + r)")
      ->check(config_value_check("train.seed"));
  cmd->add_option("--runs", o->runs, "number of seeds (default 1; the paper reports 5)")
      ->check(config_value_check("train.runs"));
  cmd->add_option("--epochs", o->epochs, "maximum epochs (early stopping may end sooner)")
      ->check(config_value_check("train.epochs"));
  cmd->add_option("--out", o->out, "directory for checkpoints, per-epoch CSVs, model.pt and metrics.json");
  cmd->add_option("--metrics-out", o->metrics_out, "write the metrics JSON here too");
  cmd->add_option("--mlflow-dir", o->mlflow_dir,
                  "also write the run into this MLflow file store (params = the config, metrics per epoch "
                  "and final, the model directory as its artifacts; `mlflow ui --backend-store-uri DIR` "
                  "reads it; docs/mlflow.md)");
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
