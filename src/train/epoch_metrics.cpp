#include "train/epoch_metrics.h"

#include <ATen/ATen.h>

#include <cmath>
#include <limits>
#include <stdexcept>

#include "eval/errors.h"
#include "eval/measure.h"
#include "symgnn/metrics.h"

namespace symgnn::train {

namespace {

at::Tensor clipped_difference(const at::Tensor& pred, const at::Tensor& target, float lo, float hi) {
  return pred.detach().to(at::kDouble).clamp(lo, hi) - target.to(at::kDouble);
}

/// The training figure: the rating figure of the epoch's training steps.
const std::string& training_figure() {
  static const std::string name = rating_figure("train");
  return name;
}

}  // namespace

const std::vector<std::string>& epoch_metric_names() {
  // The training figure; every row of the table on validation and test.
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out = {training_figure()};
    for (const MetricRow& m : kMetrics)
      for (const char* split : {"val", "test"}) out.push_back(metric_figure(split, m));
    return out;
  }();
  return names;
}

double metric_of(const MetricValues& m, const std::string& name) {
  return eval::figure_of(m, name);
}

eval::Measurable predicted(const at::Tensor& pred, const at::Tensor& target, float lo, float hi) {
  eval::Measurable out;
  out.differences = [&pred, &target, lo, hi] {
    // The rows' functions are eval/errors.cpp's, over the differences on the host.
    const at::Tensor diff = clipped_difference(pred, target, lo, hi).cpu().contiguous();
    const double* d = diff.data_ptr<double>();
    return std::vector<double>(d, d + diff.numel());
  };
  return out;
}

void add_errors(MetricValues& m, const std::string& split, const at::Tensor& pred, const at::Tensor& target,
                float lo, float hi) {
  if (target.numel() == 0) return;
  eval::add_figures(m, eval::measure(predicted(pred, target, lo, hi), split, eval::prediction_metrics()));
}

double squared_error(const at::Tensor& pred, const at::Tensor& target, float lo, float hi) {
  if (target.numel() == 0) return std::numeric_limits<double>::quiet_NaN();
  return clipped_difference(pred, target, lo, hi).pow(2).mean().item<double>();
}

void add_training_errors(MetricValues& m, double mean_squared_error) {
  // The steps' mean squared error is what a step can sum across batches and ranks; the
  // figure is its root (rating_metric() is the root mean squared error).
  m[training_figure()] = std::sqrt(mean_squared_error);
}

}  // namespace symgnn::train
