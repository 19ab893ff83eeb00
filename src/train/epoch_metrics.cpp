#include "train/epoch_metrics.h"

#include <ATen/ATen.h>

#include <cmath>
#include <limits>
#include <stdexcept>

#include "symgnn/metrics.h"

namespace symgnn::train {

namespace {

/// The function of each prediction row of symgnn/metrics.h, of the clipped differences
/// (float64): adding a prediction metric is its row and its case here.
double error_of(const MetricRow& row, const at::Tensor& diff) {
  const std::string name = row.name;
  if (name == "rmse") return std::sqrt(diff.pow(2).mean().item<double>());
  if (name == "mae") return diff.abs().mean().item<double>();
  throw std::logic_error("train/epoch_metrics.cpp: no function for the prediction metric " + name);
}

at::Tensor clipped_difference(const at::Tensor& pred, const at::Tensor& target, float lo, float hi) {
  return pred.detach().to(at::kDouble).clamp(lo, hi) - target.to(at::kDouble);
}

/// The training figure: the RMSE of the epoch's training steps.
constexpr const char* kTrainingFigure = "train_rmse";

}  // namespace

const std::vector<std::string>& epoch_metric_names() {
  // The training figure; every row of the table on validation and test.
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out = {kTrainingFigure};
    for (const MetricRow& m : kMetrics)
      for (const char* split : {"val", "test"}) out.push_back(metric_figure(split, m));
    return out;
  }();
  return names;
}

double metric_of(const MetricValues& m, const std::string& name) {
  const auto it = m.find(name);
  return it == m.end() ? std::numeric_limits<double>::quiet_NaN() : it->second;
}

void add_errors(MetricValues& m, const std::string& split, const at::Tensor& pred, const at::Tensor& target,
                float lo, float hi) {
  if (target.numel() == 0) return;
  const at::Tensor diff = clipped_difference(pred, target, lo, hi);
  for (const MetricRow& row : kMetrics)
    if (row.needs == MetricNeeds::predictions) m[metric_figure(split, row)] = error_of(row, diff);
}

double squared_error(const at::Tensor& pred, const at::Tensor& target, float lo, float hi) {
  if (target.numel() == 0) return std::numeric_limits<double>::quiet_NaN();
  return clipped_difference(pred, target, lo, hi).pow(2).mean().item<double>();
}

void add_training_errors(MetricValues& m, double mean_squared_error) {
  m[kTrainingFigure] = std::sqrt(mean_squared_error);
}

void add_rankings(MetricValues& m, const std::string& split, const eval::RankingAtK& at) {
  for (const MetricRow& row : kMetrics)
    if (row.needs == MetricNeeds::ranking)
      m[metric_figure(split, row, at.k)] = eval::metric_value(at, row.name);
}

}  // namespace symgnn::train
