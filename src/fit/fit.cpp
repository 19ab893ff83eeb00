// symgnn::fit (symgnn/fit.h): one run, end to end, as its parts in their order. The
// parts: the model directory's lifecycle (run_folder.h), the data and what it settles
// (prepared_data.h), the ranker beside the model (ranker_fit.h), the model's fit by how
// its kind is fitted (fit_trained.h, fit_closed_form.h), the report (fit_report.h).
#include "symgnn/fit.h"

#include <algorithm>
#include <exception>
#include <filesystem>
#include <optional>

#include "fit/fit_closed_form.h"
#include "fit/fit_report.h"
#include "fit/fit_trained.h"
#include "fit/implicit_feedback.h"
#include "fit/prepared_data.h"
#include "fit/ranker_fit.h"
#include "fit/run_folder.h"
#include "runtime/runtime.h"
#include "symgnn/error.h"
#include "symgnn/model_kinds.h"
#include "train/distributed.h"
#include "train/distributed_env.h"
#include "train/trainer.h"
#include "util/checksum.h"

namespace fs = std::filesystem;

namespace symgnn {
namespace {

/// The data's paths made absolute, so that what the folder records (config.txt, model.pt,
/// metrics.json) lets `predict`, `evaluate --protocol new-users` and `--resume` find the data
/// from any folder. The data are read by the paths as given, which their messages name.
void make_paths_absolute(RunConfig& cfg) {
  if (cfg.data.source != "synthetic" && fs::exists(cfg.data.source))
    cfg.data.source = fs::canonical(cfg.data.source).string();
  for (std::string* path : {&cfg.data.test_file, &cfg.data.user_graph_file, &cfg.data.item_graph_file,
                            &cfg.data.user_features_file, &cfg.data.item_features_file})
    if (!path->empty() && fs::exists(*path)) *path = fs::canonical(*path).string();
}

/// The trainer's options of the run; in a multi-process run (torchrun's variables,
/// docs/scale.md) this process joins its group, after rank 0 holds the folder (a rank 0 that
/// refuses it never serves the rendezvous, and the others stop at its timeout), and the
/// ranks agree on the config.
train::TrainerOptions trainer_options(const RunConfig& cfg, const FitOptions& o,
                                      const train::DistributedEnv& dist) {
  train::TrainerOptions topts;
  topts.out_dir = o.out_dir;
  topts.resume = o.resume;
  topts.on_epoch = o.on_epoch;
  topts.log = o.log;
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
  return topts;
}

}  // namespace

FitResult fit(const RunConfig& cfg_in, const FitOptions& o) {
  RunConfig cfg = cfg_in;
  check_config(cfg);
  runtime::check_device(cfg.train.device, "train.device");
  // Interactions (data.feedback): before the kind is settled, as it may change it.
  const std::string feedback_line = fitting::settle_feedback(cfg);
  const ModelKind& kind = model_kind(cfg.model);
  // One rank of a multi-process run, or (unset) the whole run. Only rank 0 touches the
  // folder; the others read it to resume.
  const train::DistributedEnv dist = train::read_distributed_env();
  const bool rank0 = dist.rank == 0;
  if (kind.fit == FitMethod::closed_form && dist.world_size > 1)
    throw ConfigError("WORLD_SIZE=" + std::to_string(dist.world_size) + ": model = " + cfg.model +
                      " is fitted in closed form and has no training to share: run it as one process");
  RunConfig recorded = cfg;
  make_paths_absolute(recorded);
  const std::optional<OutputLock> lock = rank0 ? fitting::open_run_folder(recorded, o, kind) : std::nullopt;
  // A run that fails before it writes anything but its config leaves the folder as it was
  // (fitting::forget_unstarted_run); released before the lock is.
  struct UnstartedRun {
    std::string dir;
    ~UnstartedRun() {
      if (!dir.empty() && std::uncaught_exceptions() > 0) fitting::forget_unstarted_run(dir);
    }
  } unstarted{rank0 && !o.resume ? o.out_dir : std::string()};
  train::TrainerOptions topts = trainer_options(cfg, o, dist);
  fitting::PreparedData data = fitting::prepare_data(cfg, o, kind, rank0, dist.world_size, topts.group.get());
  topts.warm_start = std::move(data.warm_start);  // train.continue_short_run
  make_paths_absolute(cfg);                       // read; from here on what the folder records
  if (rank0) fitting::pin_run(data.ds, cfg, cfg_in, o);
  // The ranker before the model's evaluation, which ranks with it: first for a trained kind
  // (seconds, before hours of training), once the model is built for a closed-form one (a
  // kind that refuses the data's size says so first).
  fitting::RankerFit ranker;
  const auto fit_the_ranker = [&] {
    // train.ranker_graph = auto is resolved in cfg, which the saved models record (config.txt
    // keeps auto, as for the other choices: --resume makes it again, the same way).
    if (rank0) ranker = fitting::fit_ranker(cfg, cfg_in.graph, data.ds, o);
    return ranker.member;
  };
  fitting::Fitted f =
      kind.fit == FitMethod::trained
          ? fitting::fit_trained(cfg, data.ds, data.bias_shrinkage, o, topts, rank0, fit_the_ranker())
          : fitting::fit_closed_form(cfg, data.ds, data.bias_shrinkage, o, fit_the_ranker);
  if (!rank0) return std::move(f.result);
  fitting::add_report(f, cfg, o, data, ranker);
  if (!feedback_line.empty())
    f.result.summary.insert(f.result.summary.begin() + std::min<size_t>(1, f.result.summary.size()),
                            feedback_line);
  fitting::write_run_folder(f, data.ds, cfg, o, kind, ranker.model != nullptr);
  return std::move(f.result);
}

}  // namespace symgnn
