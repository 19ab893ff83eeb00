// The report of a reproduce sweep: Tables 2-4 beside the paper's numbers with a
// beat / match / miss verdict per cell, Figures 2 and 3 and the training curves drawn by
// gnuplot, CSV files of every figure, and results.md that embeds them all.
#pragma once

#include <string>
#include <vector>

#include "reproduce/plan.h"
#include "reproduce/runner.h"

namespace symgnn::reproduce {

struct ReportOptions {
  std::string out_dir;   // results.md and results/ are written here
  std::string runs_dir;  // the cells' directories
  std::string command;   // the command line, shown in results.md
  std::string gnuplot = "gnuplot";
  bool quick = false;
  int seeds = 5;
};

/// Files written, relative to out_dir (results.md first).
std::vector<std::string> write_report(const Plan& plan, const std::vector<CellOutcome>& outcomes,
                                      const ReportOptions& opts);

}  // namespace symgnn::reproduce
