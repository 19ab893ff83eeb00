// Runs the cells of a plan as `symgnn train` child processes, one output directory per
// cell. A cell whose directory already holds a metrics.json made from the same
// arguments and config contents is not run again, so an interrupted sweep resumes
// where it stopped and a finished one only regenerates the report.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "reproduce/plan.h"

namespace symgnn::reproduce {

struct RunnerOptions {
  std::string runs_dir;  // <out>/runs
  std::string exe;       // the symgnn executable to run
  int jobs = 1;          // cells at once
  int threads = 0;       // --threads of each cell (0: cores / jobs)
  bool force = false;    // run every cell again
  bool dry_run = false;  // print the commands only
  /// Lines for people as the sweep goes (each cell's start and result); null: none.
  std::function<void(const std::string&)> log;
};

struct CellOutcome {
  std::string name;
  std::string status;  // cached | ran | failed | planned
  double seconds = 0;  // wall time of this invocation (0 when cached)
  std::string log;     // the cell's log file
};

/// The text a finished cell's spec.txt must equal for it to be reused.
std::string cell_spec(const Cell& c);

/// Runs the plan with a progress line per cell (done / total, elapsed, ETA) to o.log.
/// Failed cells are reported (with the tail of their log) and skipped; the sweep goes on.
std::vector<CellOutcome> run_plan(const Plan& plan, const RunnerOptions& opts);

}  // namespace symgnn::reproduce
