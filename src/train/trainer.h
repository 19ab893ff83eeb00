// The training protocol shared by the learned models (paper, "Training"): full-batch
// masked MSE on the observed training ratings, AdamW (decoupled weight decay), a
// learning-rate decay on validation plateaus, early stopping on a validation metric
// (train.select, RMSE by default), and the test figures read at the selected epoch. A sweep trains
// `train.runs` seeds and reports mean and standard deviation. Switches beyond the paper (TrainConfig):
// train.ema evaluates an exponential moving average of the weights; train.protocol = retrain chooses the
// epoch count on validation, then trains a fresh model on all training ratings for that many epochs (GC-MC,
// IGMC); train.average_last averages the test predictions of the last checkpoints of a run without validation
// (the saved model keeps each of them and `predict` averages them).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "symgnn/config.h"
#include "symgnn/dataset.h"
#include "symgnn/model.h"
#include "symgnn/run_metrics.h"
#include "train/progress.h"
#include "train/run_state.h"

namespace symgnn::train {

struct RunResult {
  int64_t run = 0;
  int64_t seed = 0;
  /// Every epoch metric (train/epoch_metrics.h) at the selected epoch, by name ("val_rmse",
  /// "test_ndcg@10"; a split without ratings has none): under protocol = retrain the
  /// validation figures of the selection phase and the test figures of the final model.
  MetricValues selected;
  int64_t best_epoch = 0;
  int64_t epochs_run = 0;
  double train_seconds = 0;
  int64_t peak_memory_bytes = 0;  // max over epochs of the per-epoch peak
  int64_t parameters = 0;
  std::string model_name;
  std::vector<EpochRecord> history;        // protocol = retrain: of the epoch-selection phase
  std::vector<EpochRecord> final_history;  // protocol = retrain: of the final training
  at::Tensor
      test_predictions;        // clipped test predictions at the best epoch (CPU); averaged checkpoints' mean
  at::Tensor val_predictions;  // clipped validation predictions at the best epoch (CPU); empty without one
  int64_t averaged_checkpoints = 1;  // checkpoints whose predictions make test_predictions
  /// The weight sets of the run's saved model (run<r>/model.pt; under protocol = retrain the
  /// final model's), one per averaged checkpoint: symgnn::fit evaluates them in memory.
  std::vector<ModuleState> saved;
  /// protocol = retrain: whether the final training ran (TrainerOptions::retrain_pays).
  bool retrained = true;
  /// TrainerOptions::keep_final_state: the run's state at its last epoch (before the selected
  /// weights are restored), for a longer run to continue; null otherwise.
  std::shared_ptr<WarmStart> final_state;
};

struct SweepResult {
  std::string model_name;
  std::vector<RunResult> runs;
  /// Every figure the runs selected (RunResult::selected), by name: its mean and standard
  /// deviation over the runs that measured it (summarise()).
  std::map<std::string, MetricSummary> metrics;
  /// The figures of the runs' averaged test predictions ("test_rmse", "test_mae"), with more
  /// than one run; empty otherwise.
  MetricValues ensemble;
  /// The runs' mean predictions (CPU, float64) of the test and validation ratings, in the
  /// order of Dataset::test / Dataset::validation (validation undefined without one).
  at::Tensor test_predictions, val_predictions;
  /// Under train.protocol = retrain, the bias shrinkage chosen once on all training ratings
  /// for the models learning over the bias offset (TrainerOptions::retrain_bias_shrinkage):
  /// what the saved models' contexts read. Null otherwise.
  std::shared_ptr<const models::ShrinkageChoice> retrain_bias_shrinkage;

  /// The named figure's mean and standard deviation over the runs (NaN when none measured it).
  double mean(const std::string& name) const;
  double std_of(const std::string& name) const;
  /// Sets `metrics` from the runs' selected figures.
  void summarise();
};

class ProcessGroup;  // train/distributed.h

struct TrainerOptions {
  std::string out_dir;     // checkpoints, per-epoch CSVs and the final model; "" = none
  bool resume = false;     // continue from the checkpoints in out_dir
  EpochCallback on_epoch;  // after every epoch of every run (symgnn/progress.h); null: none
  LogCallback log;         // lines for people: each run's summary, a resumption, a retrain
  /// protocol = retrain: asked after a run's selection phase whether training it again on
  /// all training ratings can change what is kept. False: no final training; the selection
  /// phase's weights are saved as the final model's (fit/fit_trained.cpp: train.auto's
  /// combination gives the network weight 0, so its retrain would cost minutes for nothing).
  /// Null: always retrain.
  std::function<bool(const RunResult& chosen)> retrain_pays;
  /// Keep each run's state at its last epoch (RunResult::final_state): train.auto's short runs,
  /// one of which the run's selection phase may continue (fit/prepared_data.h).
  bool keep_final_state = false;
  /// A short run's state that run 0 continues from its last epoch instead of training those
  /// epochs again: the same config up to its epoch count and patience, the same data and
  /// seed, so the same weights, optimiser moments and random generator state (the caller
  /// vouches for that; fit/prepared_data.cpp). A checkpoint found by `resume` takes
  /// precedence; the final phase of train.protocol = retrain starts afresh. The run that
  /// reads it frees its bytes.
  std::shared_ptr<WarmStart> warm_start;
  /// Testing hook: stop (as if interrupted) after this many epochs of a run; 0 = never.
  int64_t interrupt_after = 0;
  /// Builds the model of a run; empty means models::make_model (tests inject small ones).
  std::function<std::shared_ptr<models::RatingModel>(const RunConfig&, const models::ModelContext&)> factory;
  /// Data-parallel training (train/distributed.h): this process's group, null for a single
  /// process. Each rank's loss covers its shard of the training pairs; only rank 0 writes
  /// into out_dir (every rank reads its checkpoints to resume).
  std::shared_ptr<ProcessGroup> group;
  /// The bias baseline's shrinkage chosen by cross-validation on ds.train, made once for the
  /// run (fit/prepared_data.h), and under train.protocol = retrain on all training ratings
  /// (train_sweep makes it once for its runs): the context of every model built on those
  /// ratings carries it (ModelContext::bias_shrinkage). Null: chosen on the ratings where a
  /// model learns over the bias offset (models/baseline/offset_model.h).
  std::shared_ptr<const models::ShrinkageChoice> bias_shrinkage, retrain_bias_shrinkage;
  /// A context of the same nodes already held (the ranker's, fitted beside the model) whose
  /// graph tensors the sweep's contexts share where the graphs are the same
  /// (models::SharedGraphs); the retrain's context shares the selection phase's.
  models::SharedGraphs shared_graphs;
  /// Whether this process writes the run's files: a single process or rank 0.
  bool writes_files() const;
};

/// Trains run `run` (seed cfg.train.seed + run) on a context already on the device.
RunResult train_run(const RunConfig& cfg, const Dataset& ds, const models::ModelContext& ctx, int64_t run,
                    const TrainerOptions& opts, Progress& progress);

/// Whether a run takes the two phases of train.protocol = retrain (it needs validation).
bool retrains(const RunConfig& cfg, const Dataset& ds);

/// Trains cfg.train.runs seeds on ds (graphs resolved) and aggregates them. With an
/// out_dir, the best model of run 0 is saved there for `symgnn predict`.
SweepResult train_sweep(const RunConfig& cfg, const Dataset& ds, const TrainerOptions& opts);

}  // namespace symgnn::train
