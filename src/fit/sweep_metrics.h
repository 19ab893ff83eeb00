// The figures of a trainer's sweep (train/trainer.h) as RunMetrics (symgnn/run_metrics.h):
// the metrics by name over the seeds, the training figures, and what reproduces them
// (config text, dataset statistics, git hash, machine).
#pragma once

#include "symgnn/config.h"
#include "symgnn/dataset.h"
#include "symgnn/run_metrics.h"
#include "train/trainer.h"

namespace symgnn::fitting {

/// test_rmse, val_rmse by name; ensemble_test_rmse, best_epoch, epochs_run, train_seconds,
/// seconds_per_epoch, peak_memory_bytes among the figures; runs[], config, dataset, version.
RunMetrics sweep_metrics(const train::SweepResult& s, RunConfig& cfg, const Dataset& ds);

/// version: symgnn, git hash, BLAS, cores.
nlohmann::json version_json();

}  // namespace symgnn::fitting
