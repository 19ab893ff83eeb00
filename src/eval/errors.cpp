#include "eval/errors.h"

#include <cmath>
#include <stdexcept>

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

// Each prediction row's definition: a term per difference, and its value from the terms'
// sum over n differences. Rows are told apart by position, computed once from their names.
enum class Term { none, squared, absolute };

Term term_of(const MetricRow& row) {
  const std::string name = row.name;
  if (name == "rmse") return Term::squared;  // root of the mean squared difference
  if (name == "mae") return Term::absolute;  // mean absolute difference
  if (row.needs == MetricNeeds::predictions)
    throw std::logic_error("eval/errors.cpp: no function for the prediction metric " + name);
  return Term::none;
}

const std::vector<Term>& terms() {
  static const std::vector<Term> t = [] {
    std::vector<Term> out;
    for (const MetricRow& row : kMetrics) out.push_back(term_of(row));
    return out;
  }();
  return t;
}

/// Where `row` sits in kMetrics (by name: `row` may be a copy of its entry).
size_t row_index(const MetricRow& row) {
  const MetricRow* r = find_metric(row.name);
  if (!r)
    throw std::logic_error(std::string("eval/errors.cpp: ") + row.name + " is no row of symgnn/metrics.h");
  return static_cast<size_t>(r - kMetrics);
}

}  // namespace

void ErrorSums::add(double d) {
  const std::vector<Term>& t = terms();
  for (size_t r = 0; r < t.size(); ++r) {
    switch (t[r]) {
      case Term::squared: sums_[r] += d * d; break;
      case Term::absolute: sums_[r] += std::abs(d); break;
      case Term::none: break;
    }
  }
  ++n_;
}

void ErrorSums::add(const std::vector<double>& diff) {
  for (const double d : diff) add(d);
}

double ErrorSums::value(const MetricRow& row) const {
  check_prediction_row(row);
  if (n_ == 0) return std::numeric_limits<double>::quiet_NaN();
  const size_t r = row_index(row);
  const double mean = sums_[r] / static_cast<double>(n_);
  switch (terms()[r]) {
    case Term::squared: return std::sqrt(mean);
    case Term::absolute: return mean;
    case Term::none: break;
  }
  throw std::logic_error(std::string("eval/errors.cpp: no function for ") + row.name);
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
