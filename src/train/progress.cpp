#include "train/progress.h"

#include <unistd.h>

#include <cstdio>
#include <iostream>

#include "util/text.h"

namespace symgnn::train {
namespace {
std::string clock_text(double seconds) {
  const int64_t s = static_cast<int64_t>(seconds + 0.5);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%lld:%02lld", static_cast<long long>(s / 60),
                static_cast<long long>(s % 60));
  return buf;
}
std::function<void(const ProgressEvent&)>& observer() {
  static std::function<void(const ProgressEvent&)> f;
  return f;
}
}  // namespace

void set_progress_observer(std::function<void(const ProgressEvent&)> f) {
  observer() = std::move(f);
}

Progress::Progress(std::string mode, int64_t log_every, std::string select)
    : log_every_(log_every), select_(std::move(select)) {
  quiet_ = mode == "quiet";
  bar_ = mode == "auto" && ::isatty(STDERR_FILENO);
}

void Progress::start_run(int64_t run, int64_t runs, int64_t max_epochs) {
  run_ = run;
  runs_ = runs;
  max_epochs_ = max_epochs;
  run_start_ = std::chrono::steady_clock::now();
}

void Progress::epoch(int64_t epoch, double loss, double train_rmse, double val, double best_val) {
  if (observer())
    observer()(ProgressEvent{run_, runs_, epoch, max_epochs_, loss, train_rmse, select_, val, best_val});
  if (quiet_) return;
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - run_start_).count();
  const double eta =
      epoch > 0 ? elapsed / static_cast<double>(epoch) * static_cast<double>(max_epochs_ - epoch) : 0;
  const std::string stats = "epoch " + std::to_string(epoch) + "/" + std::to_string(max_epochs_) + "  loss " +
                            fixed(loss, 4) + "  train " + fixed(train_rmse, 4) + "  " + select_ + " " +
                            fixed(val, 4) + "  best " + fixed(best_val, 4);
  if (bar_) {
    const int width = 20;
    const int filled = max_epochs_ > 0 ? static_cast<int>(width * epoch / max_epochs_) : width;
    std::string bar(static_cast<size_t>(filled), '#');
    bar.resize(width, '.');
    std::cerr << "\rrun " << run_ + 1 << "/" << runs_ << " [" << bar << "] " << stats
              << "  ETA<= " << clock_text(eta) << "   " << std::flush;
  } else if (epoch % log_every_ == 0 || epoch == 1) {
    std::cerr << "run " << run_ + 1 << "/" << runs_ << "  " << stats << "  (" << clock_text(elapsed) << ")\n";
  }
}

void Progress::end_run(const std::string& summary) {
  if (quiet_) return;
  if (bar_) std::cerr << "\r\033[K";
  std::cerr << summary << "\n";
}

void Progress::message(const std::string& text) {
  if (!quiet_) std::cerr << text << "\n";
}

}  // namespace symgnn::train
