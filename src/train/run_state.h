// The state of one training run (train_run, trainer.cpp): everything that must survive an
// interruption for a resumed run to equal an uninterrupted one. The checkpoint of a run
// (save_checkpoint / load_checkpoint, checkpoint.h) writes and reads exactly this, with the
// model's weights, the optimiser's state and the CPU random generator's state.
#pragma once

#include <ATen/Tensor.h>

#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "train/epoch_metrics.h"

namespace symgnn::train {

/// Every parameter and buffer of a module by name (buffers prefixed "buffer:"), cloned:
/// snapshots of the best epoch, the weight average and the averaged checkpoints
/// (module_state() and set_module_state() in checkpoint.h).
using ModuleState = std::map<std::string, at::Tensor>;

/// One epoch of a run, as history.csv and the checkpoint record it.
struct EpochRecord {
  int64_t epoch = 0;
  double loss = 0, lr = 0, seconds = 0;
  int64_t peak_memory_bytes = 0;
  MetricValues metrics;  // by name (train/epoch_metrics.h)
  double metric(const std::string& name) const { return metric_of(metrics, name); }
};

struct RunState {
  int64_t epoch = 0;  // epochs completed
  double lr = 0;      // the learning rate, after the decays so far
  // Model selection and early stopping: the best score so far (the train.select metric, or
  // minus the epoch without validation), the epoch's metrics there, and the epochs since.
  double best_val = std::numeric_limits<double>::infinity();
  MetricValues at_best;
  int64_t best_epoch = 0;
  int64_t since_best = 0;  // epochs without a better validation RMSE (early stopping)
  int64_t since_lr = 0;    // the same, since the last learning-rate decay
  double seconds = 0;      // training time so far
  int64_t peak_memory = 0;
  ModuleState best;
  at::Tensor best_test_pred;  // test predictions at the best epoch, for ensembles
  at::Tensor best_val_pred;   // validation predictions at the best epoch, for blends
  std::vector<EpochRecord> history;
  ModuleState ema;                   // train.ema > 0: the moving average of the weights
  at::Tensor avg_test_sum;           // train.average_last: sum of the averaged test predictions
  int64_t avg_count = 0;             // checkpoints averaged so far
  std::vector<ModuleState> members;  // their weights (the saved model averages them)
};

/// A run's whole state at its last epoch (checkpoint_bytes, train/checkpoint.h), in memory:
/// a short run that a longer run of the same model continues (TrainerOptions::warm_start).
/// The continuing run frees the bytes once read.
struct WarmStart {
  std::string checkpoint;
  int64_t epoch = 0;  // the epochs it trained
};

}  // namespace symgnn::train
