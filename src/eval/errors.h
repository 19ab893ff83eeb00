// The prediction rows of symgnn/metrics.h, computed in one place for every caller: the
// trainer's epoch figures, the closed-form fits, the bias baseline and its shrinkage
// choice, train.auto's combination, the graphs' worth, `evaluate`, the new-user report and
// `blend`. A caller gives predictions and the ratings they predict; the clipping to the
// rating range is the caller's (a blend clips its own sum, a residual fit does not clip).
//
// Torch-free: blend/ and the fuzzers include it.
#pragma once

#include <cstddef>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "symgnn/metrics.h"

namespace symgnn::eval {

/// Figures by name, as metrics.json and history.csv name them ("val_rmse", "test_mae",
/// "val_ndcg@10"); a name that is absent reads as NaN (figure_of).
using Figures = std::map<std::string, double>;
double figure_of(const Figures& f, const std::string& name);

/// The differences prediction - truth in float64, the predictions clipped to [lo, hi]
/// (unclipped by default). `pred` and `truth` are equally long containers of numbers.
template <class Pred, class Truth>
std::vector<double> differences(const Pred& pred, const Truth& truth,
                                double lo = -std::numeric_limits<double>::infinity(),
                                double hi = std::numeric_limits<double>::infinity()) {
  std::vector<double> d(truth.size());
  for (size_t e = 0; e < d.size(); ++e) {
    const double p = static_cast<double>(pred[e]);
    d[e] = (p < lo ? lo : p > hi ? hi : p) - static_cast<double>(truth[e]);
  }
  return d;
}

/// The sums behind every prediction row, for differences that arrive in parts (the bias
/// baseline's cross-validation folds, each grid point's sums over every fold): add them, then
/// read each row. Each row is a sum of one term per difference and a function of that sum
/// and the count; both are the row's eval::ErrorFunction in metric_functions.cpp, its one
/// definition (adding a prediction metric is its row in symgnn/metrics.h and its function
/// there).
class ErrorSums {
 public:
  void add(double difference);
  void add(const std::vector<double>& diff);
  /// The row's value over the differences added: NaN for none; std::logic_error for a
  /// ranking row.
  double value(const MetricRow& row) const;
  size_t count() const { return n_; }

 private:
  double sums_[kMetricCount] = {};  // one per row of the table
  size_t n_ = 0;
};

/// The value of the prediction row `row` over the differences (ErrorSums over one list).
/// NaN for no differences. std::logic_error for a ranking row.
double error_of(const MetricRow& row, const std::vector<double>& diff);

/// The rating figure (symgnn/metrics.h, rating_metric()) of the differences.
double rating_error(const std::vector<double>& diff);

}  // namespace symgnn::eval
