// The metrics the trainer records for each evaluated epoch, by name: what history.csv's
// columns, a checkpoint's history, train.select and metrics.json name. The training
// figure comes from the epoch's training steps; the rows of symgnn/metrics.h on validation and test from
// one forward pass over their pairs (predictions clipped to the rating range), the rankings
// at 10 where the run measures them (a ranking objective, or train.select on one); NaN where
// a split is empty or the epoch is not evaluated.
#pragma once

#include <ATen/core/Tensor.h>

#include <map>
#include <string>
#include <vector>

#include "eval/errors.h"
#include "eval/measure.h"

namespace symgnn::train {

/// Every epoch metric: the training figure, then each row of SYMGNN_METRICS on val and test.
const std::vector<std::string>& epoch_metric_names();

/// Metric name -> value; absent names read as NaN (metric_of).
using MetricValues = eval::Figures;
double metric_of(const MetricValues& m, const std::string& name);

/// The predictions `pred` of `target` as eval::measure takes them: the differences of the
/// predictions clipped to [lo, hi], in float64, on the host. The tensors are the caller's to
/// keep alive until the measure.
eval::Measurable predicted(const at::Tensor& pred, const at::Tensor& target, float lo, float hi);

/// "<split>_<metric>" of every prediction row of symgnn/metrics.h ("val_rmse", "val_mae"):
/// eval::measure of predicted(pred, target, lo, hi). Nothing for no targets.
void add_errors(MetricValues& m, const std::string& split, const at::Tensor& pred, const at::Tensor& target,
                float lo, float hi);

/// The mean squared error of the predictions clipped to [lo, hi], in float64: what a
/// training step reports, averaged over batches and ranks before add_training_errors.
double squared_error(const at::Tensor& pred, const at::Tensor& target, float lo, float hi);
/// The epoch's training figure ("train_rmse") from its steps' mean squared error.
void add_training_errors(MetricValues& m, double mean_squared_error);

}  // namespace symgnn::train
