#include "train/epoch_metrics.h"

#include <ATen/ATen.h>

#include <cmath>
#include <limits>

#include "symgnn/metrics.h"

namespace symgnn::train {

const std::vector<std::string>& epoch_metric_names() {
  // train_rmse from the training step; every row of the table on validation and test.
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out = {"train_rmse"};
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
  const at::Tensor diff = pred.detach().to(at::kDouble).clamp(lo, hi) - target.to(at::kDouble);
  m[split + "_rmse"] = std::sqrt(diff.pow(2).mean().item<double>());
  m[split + "_mae"] = diff.abs().mean().item<double>();
}

void add_rankings(MetricValues& m, const std::string& split, const eval::RankingAtK& at) {
  for (const MetricRow& row : kMetrics)
    if (row.needs == MetricNeeds::ranking)
      m[metric_figure(split, row, at.k)] = eval::metric_value(at, row.name);
}

}  // namespace symgnn::train
