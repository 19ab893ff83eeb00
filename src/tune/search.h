// `symgnn tune`'s search loop: trial i gets the values sample_trial(seed, i) draws and runs
// as a `symgnn train` child process in <out>/trials/NNNN, judged on one validation metric
// (SearchOptions::metric, validation RMSE by default) only. A trial folder whose spec (the train arguments
// plus the BASE config's contents) matches and that holds a metrics.json is reused, so an interrupted search
// resumes with the next trials. After every trial <out>/trials.csv, summary.md and best.conf are rewritten
// (tune/report.h).
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "tune/sample.h"
#include "tune/space.h"

namespace symgnn::tune {

struct SearchOptions {
  std::string data;               // --data of every trial
  std::string config_file;        // the BASE config (--config of every trial)
  std::string split;              // --split ("": not passed)
  std::vector<std::string> sets;  // the user's key=value overrides, before the sampled ones
  int64_t runs = 0;               // --runs of every trial (0: not passed)
  std::string out_dir = "tune-out";
  std::string exe;  // the symgnn executable (tests use a stand-in script)
  uint64_t seed = 1;
  int jobs = 1;          // trials at once
  int threads = 0;       // --threads of each trial (0: cores / jobs)
  int64_t budget = 0;    // total trials (0: no limit; minutes must then be set)
  double minutes = 0;    // no new trial starts after this (0: no limit)
  bool dry_run = false;  // print the trials' commands; run and write nothing
  std::string command;   // the tune command line, shown in summary.md
  /// The validation metric trials are judged on, lower is better (metrics.json's names,
  /// symgnn/run_metrics.h); "" before run_search: the BASE config's train.select.
  std::string metric;
  /// Lines for people as the search goes (each trial's start and score); null: none.
  std::function<void(const std::string&)> log;
};

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

struct Trial {
  int64_t number = 0;  // 1-based
  std::string name;    // "0007": its folder under <out>/trials
  Values values;
  std::string status;                     // cached | ran | failed
  double score = kNaN, score_std = kNaN;  // the search's metric: mean and std over the trial's seeds
  double loss = kNaN;  // what the search minimises: score, or -score for a metric where higher is better
  double best_epoch = kNaN;
  double seconds = kNaN;              // wall time of the train process
  std::string error;                  // failed: why (exit status, no metrics)
  std::vector<std::string> log_tail;  // failed: the last lines of its log.txt
};

/// "0007".
std::string trial_name(int64_t number);

/// The arguments of `symgnn train` that define a trial (without --out, --metrics-out,
/// --progress and --threads, which do not change its result).
std::vector<std::string> trial_args(const SearchOptions& o, const Values& values);

/// The text a finished trial's spec.txt must equal for it to be reused.
std::string trial_spec(const SearchOptions& o, const Values& values);

/// Runs the search with a progress line per finished trial to o.log; returns the trials
/// finished now or reused, by number. Throws UsageError/ConfigError on bad options (before
/// any trial starts). A failed trial is recorded and the search goes on.
std::vector<Trial> run_search(const Space& space, const SearchOptions& o);

/// UsageError unless the search is bounded (--budget, --minutes or both): checked before
/// the output folder is made, and again by run_search.
void check_bounded(const SearchOptions& o);

/// o.metric, when empty, from the BASE config and the --set overrides (train.select);
/// UsageError for a metric that is not a validation one.
void resolve_metric(SearchOptions& o);

}  // namespace symgnn::tune
