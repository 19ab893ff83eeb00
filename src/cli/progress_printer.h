// symgnn train's progress for people, drawn from the fit's callbacks (symgnn/progress.h):
// a live bar on a terminal, a line every train.log_every epochs otherwise (logs, CI), no
// epochs with mode quiet. The log's lines (each run's summary among them) go to stderr.
#pragma once

#include <cstdint>
#include <string>

#include "symgnn/progress.h"

namespace symgnn::cli {

class ProgressPrinter {
 public:
  /// mode: "auto" (a bar when stderr is a terminal, else lines), "lines" or "quiet" (no
  /// epochs; log lines still printed).
  ProgressPrinter(const std::string& mode, int64_t log_every);

  /// Draws the epoch (the bar, or a line every log_every epochs and at the first).
  void epoch(const ProgressEvent& e);
  /// Prints a log line on stderr, clearing the bar first.
  void line(const std::string& text);

 private:
  bool bar_ = false, quiet_ = false, drawn_ = false;
  int64_t log_every_ = 10;
};

}  // namespace symgnn::cli
