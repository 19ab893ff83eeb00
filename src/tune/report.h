// The outputs of `symgnn tune` in its --out folder: trials.csv, summary.md and best.conf.
// They show validation figures only: the search is judged on the validation split, and
// the test split stays untouched for the final, single evaluation of best.conf.
#pragma once

#include <string>
#include <vector>

#include "symgnn/config.h"
#include "tune/search.h"

namespace symgnn::tune {

/// Index in `trials` of the finished trial with the lowest score (ties: the
/// lower number); -1 when none finished.
int best_trial(const std::vector<Trial>& trials);

/// trial,status,<metric>,<metric>_std,best_epoch,seconds,<one column per searched key>.
std::string trials_csv(const Space& space, const std::vector<Trial>& trials, const std::string& metric);

/// A markdown page: the space, and the trials sorted by the search's metric.
std::string summary_markdown(const Space& space, const std::vector<Trial>& trials, const SearchOptions& o);

/// A config file for --config that reproduces `best`: its full config (as `train` wrote it)
/// under a comment header naming the trial and its score.
std::string best_conf(RunConfig best_config, const Trial& best, const std::vector<Trial>& trials,
                      const SearchOptions& o);

/// Rewrites the three files atomically. `base` (the BASE config with the user's
/// overrides) stands in for a best trial whose folder lacks config.txt.
void write_outputs(const Space& space, const std::vector<Trial>& trials, const SearchOptions& o,
                   const RunConfig& base);

}  // namespace symgnn::tune
