// symgnn: the figures of one run (`symgnn train --out DIR` writes them as DIR/metrics.json).
//
// metrics.json is the contract between train, tune, reproduce and blend; RunMetrics is its
// one writer (to_json) and its one reader (from_json). Metrics are named ("test_rmse",
// "val_rmse", "test_mae", ...): each is a mean and a standard deviation over the seeds,
// written as "<name>" and "<name>_std", and each seed's values are kept under its own
// names. A file written before the names (no "metric_names" key) reads the same: its
// test_rmse, val_rmse and test_mae, and every key with a "<key>_std" beside it, are metrics.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace symgnn {

/// Mean and standard deviation over seeds (NaN where not measured).
struct MetricSummary {
  double mean = std::numeric_limits<double>::quiet_NaN();
  double std = std::numeric_limits<double>::quiet_NaN();
};

/// One seed (one "run" of train.runs; a closed-form fit is one deterministic run).
struct SeedMetrics {
  int64_t run = 0;
  std::map<std::string, double> metrics;  // "test_rmse", "val_rmse", ...
  /// Training figures, absent (nlohmann null) for a closed-form fit: "seed", "best_epoch",
  /// "epochs_run", "seconds_per_epoch", "peak_memory_bytes", "parameters".
  nlohmann::json training = nlohmann::json::object();
  double train_seconds = 0;
};

struct RunMetrics {
  std::string model;                             // the model's name, e.g. "lowrank-G"
  std::map<std::string, MetricSummary> metrics;  // by name, over the seeds
  std::vector<SeedMetrics> runs;
  /// Figures of the whole sweep beside the metrics: "ensemble_test_rmse", "best_epoch",
  /// "epochs_run", "train_seconds", "seconds_per_epoch", "peak_memory_bytes", ... and what
  /// the model kind reports of itself (the Sylv. baseline's a, lambda and solves).
  nlohmann::json figures = nlohmann::json::object();
  std::string config;                                 // the run's config text
  nlohmann::json dataset = nlohmann::json::object();  // train/dataset_stats.h
  nlohmann::json version = nlohmann::json();          // symgnn, git, BLAS, cores; null if unknown
  nlohmann::json evaluation = nlohmann::json();       // the saved model's evaluate figures
  nlohmann::json ranking_at_10 = nlohmann::json();    // runs' ranking at 10 and popularity's

  /// The named metric's mean (NaN when absent or not measured).
  double mean(const std::string& name) const;
  /// The named metric's standard deviation over seeds (NaN when absent).
  double std_of(const std::string& name) const;
  /// Sets a metric from its values over seeds (mean and sample standard deviation).
  void set(const std::string& name, const std::vector<double>& values);

  nlohmann::json to_json() const;
  /// Reads what to_json wrote, and the files written before it (see above); DataError
  /// naming `where` when `j` is not an object.
  static RunMetrics from_json(const nlohmann::json& j, const std::string& where);
  /// Reads and verifies DIR/metrics.json (util/checksum.h); DataError when it is absent,
  /// damaged or not JSON.
  static RunMetrics read(const std::string& dir);
  /// Writes DIR-or-file `path` atomically with its checksum.
  void write(const std::string& path) const;
};

}  // namespace symgnn
