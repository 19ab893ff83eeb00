// symgnn: one run as one library call.
//
// fit() loads the data a config names, builds its graphs, fits the model kind cfg.model
// names (symgnn/model_kinds.h: by the trainer, epoch by epoch over train.runs seeds, or in
// closed form), evaluates what it fitted in memory (RMSE, MAE, the ranking at 10 beside
// the popularity baseline) and, given an output folder, writes the model directory:
//   config.txt, model.pt, dataset.bin (the data it trained on, data/dataset_snapshot.h),
//   metrics.json (symgnn/run_metrics.h), predictions/{val,test}.csv, and for trained kinds
//   run<r>/{history.csv,model.pt} (and run<r>/checkpoint.pt until the run ends, or for good
//   with train.keep_checkpoints).
// `symgnn train`, the Python package's SyMGNN.fit, `tune` and `reproduce` (through `train`)
// and the benchmarks all run this one function.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "symgnn/config.h"
#include "symgnn/dataset.h"
#include "symgnn/progress.h"
#include "symgnn/run_metrics.h"
#include "symgnn/trained_model.h"

namespace symgnn {

struct FitOptions {
  /// The model directory to write ("" writes nothing). It is locked for the run; a folder
  /// already holding a run is refused unless `overwrite` or `resume`.
  std::string out_dir;
  /// Continue the interrupted run recorded in out_dir (cfg must be its config.txt).
  bool resume = false;
  /// Replace the run out_dir holds (its config, checkpoints, model and metrics).
  bool overwrite = false;
  /// metrics.json written here too ("" none).
  std::string metrics_out;
  /// Called after every epoch of every run, on the training thread (symgnn/progress.h); an
  /// exception it throws stops the fit. Null: none. The library prints nothing itself.
  EpochCallback on_epoch;
  /// On the synthetic data, also fit the same model with both graphs replaced by the
  /// identity (metrics "without_graphs"): what the graphs are worth.
  bool compare_without_graphs = false;
  /// Lines for people as the run goes (the data and its graphs, what train.auto chose, a
  /// closed-form fit's steps, each run's summary); null: none.
  LogCallback log;
  /// Called on the loaded data before its graphs are built and anything is fitted (evaluate's
  /// new-users protocol, fit/new_users_protocol.h, holds users' ratings out here). Null: none.
  std::function<void(Dataset&)> edit_data;
  /// The data cfg.data names, already loaded (graphs as found): fit copies it instead of
  /// reading the files again (the new-users protocol draws its users on one load and fits
  /// twice on it). Null: loaded from cfg.data.
  const Dataset* data = nullptr;
};

struct FitResult {
  RunMetrics metrics;
  /// The result for people: "<model> on <data>: test RMSE ...", one line each.
  std::vector<std::string> summary;
  /// The fitted model (run 0's saved model), in memory, whether or not out_dir is written;
  /// null on the ranks other than 0 of a multi-process run, which share the training and
  /// keep nothing.
  std::shared_ptr<TrainedModel> model;
};

/// Runs `cfg` (checked with check_config). Throws symgnn::Error on bad input: an unknown
/// kind, a folder in use, a closed-form kind in a multi-process run, a bad data file.
FitResult fit(const RunConfig& cfg, const FitOptions& opts);

}  // namespace symgnn
