// The metrics file of a sweep (JSON): the figures people quote, with everything needed
// to reproduce them (config text, dataset statistics, seeds, git hash, machine).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "symgnn/config.h"
#include "symgnn/dataset.h"
#include "train/trainer.h"

namespace symgnn::train {

/// test_rmse, test_rmse_std, val_rmse, best_epoch, epochs_run, train_seconds,
/// seconds_per_epoch, peak_memory_bytes, runs[], config, dataset, version.
nlohmann::json sweep_metrics(const SweepResult& s, RunConfig& cfg, const Dataset& ds);

/// Writes `j` (pretty-printed) atomically.
void write_json_atomic(const std::string& path, const nlohmann::json& j);

}  // namespace symgnn::train
