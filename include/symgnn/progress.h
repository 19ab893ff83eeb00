// symgnn: what a fit reports as it goes, to whoever asked (FitOptions, symgnn/fit.h).
//
// The library prints nothing: after every epoch of every run the trainer calls the caller's
// epoch callback with a ProgressEvent, and lines for people (each run's summary, a resumed
// run, a retrain's start, the data's notes) go to the caller's log callback. `symgnn train`
// draws a bar or lines from them (src/cli/progress_printer.h); Python reports to its
// callback and checks for Ctrl-C there. Torch-free.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <string>

namespace symgnn {

/// One epoch of one run.
struct ProgressEvent {
  /// The named figure (NaN where the epoch did not measure it).
  double figure(const std::string& name) const {
    const auto it = figures.find(name);
    return it == figures.end() ? std::numeric_limits<double>::quiet_NaN() : it->second;
  }

  int64_t run = 0, runs = 1;  // run index (0-based) and count
  int64_t epoch = 0, max_epochs = 0;
  double loss = 0;
  /// The epoch's figures by name (symgnn/metrics.h): "train_rmse" from the training steps,
  /// and where the epoch was evaluated "val_rmse", "test_rmse", "val_ndcg@10", ...
  std::map<std::string, double> figures;
  std::string select;            // the validation metric that selects the epoch (train.select)
  double val = 0, best_val = 0;  // its value this epoch and its best so far
  double seconds = 0;            // since the run (or its resumption) started
  /// "" for the fit's own runs; else what the short runs before them are for
  /// ("choosing the graphs": train.auto's trials, fit/graph_choice.h), which a printer may
  /// leave out (symgnn train does) but a caller that stops the fit on an event must see.
  std::string phase;
};

/// Called on the training thread after every epoch; an exception it throws stops the fit
/// (the checkpoints written so far stay).
using EpochCallback = std::function<void(const ProgressEvent&)>;
/// A line for people, without its newline.
using LogCallback = std::function<void(const std::string&)>;

}  // namespace symgnn
