// Training progress for people: a live bar on a terminal, one line every N epochs
// otherwise (logs, CI), nothing with --quiet.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>

namespace symgnn::train {

/// One epoch of one run, as an observer sees it.
struct ProgressEvent {
  int64_t run = 0, runs = 1;  // run index (0-based) and count
  int64_t epoch = 0, max_epochs = 0;
  double loss = 0, train_rmse = 0;
  std::string select;            // the validation metric that selects the epoch (train.select)
  double val = 0, best_val = 0;  // its value this epoch and its best so far
};

/// Process-wide: called after every epoch of every run (Progress::epoch), on the training
/// thread, whatever the progress mode. The Python package (python/src/) draws its bar
/// and checks for Ctrl-C here: an exception thrown by the observer stops training and
/// leaves train_sweep (the checkpoints written so far stay). Empty: none.
void set_progress_observer(std::function<void(const ProgressEvent&)> observer);

class Progress {
 public:
  /// mode: "auto" (bar when stderr is a terminal), "lines" or "quiet".
  Progress(std::string mode, int64_t log_every, std::string select = "val_rmse");

  void start_run(int64_t run, int64_t runs, int64_t max_epochs);
  /// `val` and `best_val`: the train.select metric this epoch and its best so far.
  void epoch(int64_t epoch, double loss, double train_rmse, double val, double best_val);
  void end_run(const std::string& summary);
  /// A line that should always be shown (unless quiet).
  void message(const std::string& text);

 private:
  bool bar_ = false;
  bool quiet_ = false;
  int64_t log_every_ = 10;
  std::string select_;
  int64_t run_ = 0, runs_ = 1, max_epochs_ = 0;
  std::chrono::steady_clock::time_point run_start_;
};

}  // namespace symgnn::train
