#include "cli/progress_printer.h"

#include <unistd.h>

#include <cstdio>
#include <iostream>

#include "symgnn/metrics.h"
#include "util/text.h"

namespace symgnn::cli {
namespace {

std::string clock_text(double seconds) {
  const int64_t s = static_cast<int64_t>(seconds + 0.5);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%lld:%02lld", static_cast<long long>(s / 60),
                static_cast<long long>(s % 60));
  return buf;
}

}  // namespace

ProgressPrinter::ProgressPrinter(const std::string& mode, int64_t log_every)
    : bar_(mode == "auto" && ::isatty(STDERR_FILENO)), quiet_(mode == "quiet"), log_every_(log_every) {}

void ProgressPrinter::epoch(const ProgressEvent& e) {
  if (quiet_ || !e.phase.empty()) return;  // the trials before the run say their own lines
  const double eta =
      e.epoch > 0 ? e.seconds / static_cast<double>(e.epoch) * static_cast<double>(e.max_epochs - e.epoch)
                  : 0;
  const std::string stats = "epoch " + std::to_string(e.epoch) + "/" + std::to_string(e.max_epochs) +
                            "  loss " + fixed(e.loss, 4) + "  train " +
                            fixed(e.figure(rating_figure("train")), 4) + "  " + e.select + " " +
                            fixed(e.val, 4) + "  best " + fixed(e.best_val, 4);
  if (bar_) {
    const int width = 20;
    const int filled = e.max_epochs > 0 ? static_cast<int>(width * e.epoch / e.max_epochs) : width;
    std::string bar(static_cast<size_t>(filled), '#');
    bar.resize(width, '.');
    std::cerr << "\rrun " << e.run + 1 << "/" << e.runs << " [" << bar << "] " << stats
              << "  ETA<= " << clock_text(eta) << "   " << std::flush;
    drawn_ = true;
  } else if (e.epoch % log_every_ == 0 || e.epoch == 1) {
    std::cerr << "run " << e.run + 1 << "/" << e.runs << "  " << stats << "  (" << clock_text(e.seconds)
              << ")\n";
  }
}

void ProgressPrinter::line(const std::string& text) {
  if (drawn_) std::cerr << "\r\033[K";
  drawn_ = false;
  std::cerr << text << (text.empty() || text.back() != '\n' ? "\n" : "");
}

}  // namespace symgnn::cli
