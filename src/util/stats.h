/// @file
/// Mean and standard deviation over seeds: how every "mean +- std" of this project is
/// computed (the trainer's RMSE, MAE and ranking metrics in metrics.json).
#pragma once

#include <cmath>
#include <vector>

namespace symgnn {

struct MeanStd {
  double mean = 0.0;
  double std = 0.0;
};

/// Mean and sample standard deviation (divisor n - 1; 0 for fewer than two values).
inline MeanStd mean_std(const std::vector<double>& xs) {
  MeanStd m;
  if (xs.empty()) return m;
  const auto n = static_cast<double>(xs.size());
  for (const double x : xs) m.mean += x;
  m.mean /= n;
  double sq = 0.0;
  for (const double x : xs) sq += (x - m.mean) * (x - m.mean);
  m.std = xs.size() > 1 ? std::sqrt(sq / (n - 1)) : 0.0;
  return m;
}

}  // namespace symgnn
