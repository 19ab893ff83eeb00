// A run's progress as events for the caller's callbacks (symgnn/progress.h): the trainer
// says where it is, Progress adds the run's place and clock and passes it on. Prints
// nothing; with no callbacks it does nothing.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <string>

#include "symgnn/metrics.h"
#include "symgnn/progress.h"

namespace symgnn::train {

class Progress {
 public:
  Progress(EpochCallback on_epoch, LogCallback log, std::string select = rating_figure("val"));

  void start_run(int64_t run, int64_t runs, int64_t max_epochs);
  /// `figures`: the epoch's measured figures by name; `val` and `best_val`: the train.select
  /// metric this epoch and its best so far.
  void epoch(int64_t epoch, double loss, const std::map<std::string, double>& figures, double val,
             double best_val);
  /// The run's summary line.
  void end_run(const std::string& summary);
  /// A line for people.
  void message(const std::string& text);

 private:
  EpochCallback on_epoch_;
  LogCallback log_;
  std::string select_;
  int64_t run_ = 0, runs_ = 1, max_epochs_ = 0;
  std::chrono::steady_clock::time_point run_start_;
};

}  // namespace symgnn::train
