// The model directory's lifecycle (run_folder.h).
#include "fit/run_folder.h"

#include <filesystem>

#include "data/dataset_snapshot.h"
#include "data/item_names.h"
#include "data/prediction_file.h"
#include "symgnn/error.h"
#include "util/atomic_file.h"
#include "util/checksum.h"

namespace fs = std::filesystem;

namespace symgnn::fitting {
namespace {

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
  if (!fs::exists(path)) {
    // A folder of an older symgnn, or a run killed before its data was pinned: pinned now,
    // so that the finished folder answers without its training files like any other.
    say(o, "note: " + o.out_dir + " has no " + data::kSnapshotFile +
               " (written by an older symgnn, or killed before it was): the data read again is not checked "
               "against the data the run started on, and is pinned now");
    data::write_snapshot(ds, path);
    return pin_item_names(ds, cfg, o);
  }
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

}  // namespace

std::optional<OutputLock> open_run_folder(const RunConfig& cfg, const FitOptions& o, const ModelKind& kind) {
  // One run per folder at a time, and a finished or interrupted run is not replaced unless
  // asked (docs/reliability.md). The lock lives until the run's files are written.
  if (!o.metrics_out.empty()) check_output_file(o.metrics_out, "--metrics-out");
  if (o.out_dir.empty()) return std::nullopt;
  check_output_dir(o.out_dir, o.resume ? "--resume" : "--out");
  fs::create_directories(o.out_dir);
  std::optional<OutputLock> lock;
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
      !fs::exists(o.out_dir + "/run0/checkpoint.pt") && !fs::exists(o.out_dir + "/final/run0/checkpoint.pt"))
    throw UsageError("--resume " + o.out_dir +
                     ": the run is finished (its metrics.json) and its checkpoints were pruned "
                     "(train.keep_checkpoints = false): nothing to resume; train again with --overwrite");
  RunConfig text = cfg;  // to_text visits the fields
  if (!o.resume) write_text_atomic(o.out_dir + "/config.txt", to_text(text));
  return lock;
}

void forget_unstarted_run(const std::string& dir) {
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (name != "config.txt" && name != kChecksumManifest && name != kOutputLockFile) return;
  }
  if (ec) return;
  fs::remove(fs::path(dir) / "config.txt", ec);
  fs::remove(fs::path(dir) / kChecksumManifest, ec);
}

void pin_run(const Dataset& ds, const RunConfig& cfg, const RunConfig& cfg_in, const FitOptions& o) {
  if (o.out_dir.empty()) return;
  pin_data(ds, cfg.data, o);
  if (cfg.lowrank.prior != cfg_in.lowrank.prior || cfg.graph.user_graph != cfg_in.graph.user_graph ||
      cfg.graph.item_graph != cfg_in.graph.item_graph) {
    RunConfig text = cfg;  // to_text visits the fields
    write_text_atomic(o.out_dir + "/config.txt", to_text(text));
  }
}

void write_run_folder(Fitted& f, const Dataset& ds, const RunConfig& cfg, const FitOptions& o,
                      const ModelKind& kind, bool has_ranker) {
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
                               (has_ranker ? "ranker/," : "") +
                               (has_ranker && cfg.train.ranker_network == "on" ? "ranker_network/," : "") +
                               "predictions/{val,test}.csv}");
  }
  if (!o.metrics_out.empty()) f.result.metrics.write(o.metrics_out);
}

}  // namespace symgnn::fitting
