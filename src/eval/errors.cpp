#include "eval/errors.h"

#include <stdexcept>

#include "eval/metric_functions.h"

namespace symgnn::eval {

double figure_of(const Figures& f, const std::string& name) {
  const auto it = f.find(name);
  return it == f.end() ? std::numeric_limits<double>::quiet_NaN() : it->second;
}

namespace {

const MetricRow& check_prediction_row(const MetricRow& row) {
  if (row.needs != MetricNeeds::predictions)
    throw std::logic_error(std::string("eval/errors.cpp: ") + row.name + " is measured on a ranking");
  return row;
}

/// Where `row` sits in kMetrics (by name: `row` may be a copy of its entry).
size_t row_index(const MetricRow& row) {
  const size_t r = metric_index(row.name);
  if (r == kMetricCount)
    throw std::logic_error(std::string("eval/errors.cpp: ") + row.name + " is no row of symgnn/metrics.h");
  return r;
}

/// The rows of predictions with their term: what add() runs per difference, found once.
struct RowTerm {
  size_t row;
  double (*term)(double difference);
};

const std::vector<RowTerm>& row_terms() {
  static const std::vector<RowTerm> t = [] {
    std::vector<RowTerm> out;
    for (size_t r = 0; r < kMetricCount; ++r)
      if (const auto term = metric_function(r).error.term) out.push_back({r, term});
    return out;
  }();
  return t;
}

}  // namespace

void ErrorSums::add(double d) {
  for (const RowTerm& t : row_terms()) sums_[t.row] += t.term(d);
  ++n_;
}

void ErrorSums::add(const std::vector<double>& diff) {
  for (const double d : diff) add(d);
}

double ErrorSums::value(const MetricRow& row) const {
  check_prediction_row(row);
  if (n_ == 0) return std::numeric_limits<double>::quiet_NaN();
  const size_t r = row_index(row);
  const ErrorFunction& f = metric_function(r).error;
  if (!f.of_mean) throw std::logic_error(std::string("eval/errors.cpp: no function for ") + row.name);
  return f.of_mean(sums_[r] / static_cast<double>(n_));
}

double error_of(const MetricRow& row, const std::vector<double>& diff) {
  check_prediction_row(row);
  ErrorSums s;
  s.add(diff);
  return s.value(row);
}

double rating_error(const std::vector<double>& diff) {
  return error_of(rating_metric(), diff);
}

}  // namespace symgnn::eval
