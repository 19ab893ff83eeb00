#include "train/progress.h"

#include <utility>

namespace symgnn::train {

Progress::Progress(EpochCallback on_epoch, LogCallback log, std::string select)
    : on_epoch_(std::move(on_epoch)), log_(std::move(log)), select_(std::move(select)) {}

void Progress::start_run(int64_t run, int64_t runs, int64_t max_epochs) {
  run_ = run;
  runs_ = runs;
  max_epochs_ = max_epochs;
  run_start_ = std::chrono::steady_clock::now();
}

void Progress::epoch(int64_t epoch, double loss, const std::map<std::string, double>& figures, double val,
                     double best_val) {
  if (!on_epoch_) return;
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - run_start_).count();
  on_epoch_(ProgressEvent{run_, runs_, epoch, max_epochs_, loss, figures, select_, val, best_val, seconds,
                          /*phase=*/""});
}

void Progress::end_run(const std::string& summary) {
  message(summary);
}

void Progress::message(const std::string& text) {
  if (log_) log_(text);
}

}  // namespace symgnn::train
