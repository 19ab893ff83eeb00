#include "eval/errors.h"

#include <cmath>
#include <stdexcept>

namespace symgnn::eval {

double figure_of(const Figures& f, const std::string& name) {
  const auto it = f.find(name);
  return it == f.end() ? std::numeric_limits<double>::quiet_NaN() : it->second;
}

double error_of(const MetricRow& row, const std::vector<double>& diff) {
  if (row.needs != MetricNeeds::predictions)
    throw std::logic_error(std::string("eval/errors.cpp: ") + row.name + " is measured on a ranking");
  if (diff.empty()) return std::numeric_limits<double>::quiet_NaN();
  const std::string name = row.name;
  const auto n = static_cast<double>(diff.size());
  double sum = 0;
  if (name == "rmse") {
    for (const double d : diff) sum += d * d;
    return std::sqrt(sum / n);
  }
  if (name == "mae") {
    for (const double d : diff) sum += std::abs(d);
    return sum / n;
  }
  throw std::logic_error("eval/errors.cpp: no function for the prediction metric " + name);
}

double rating_error(const std::vector<double>& diff) {
  return error_of(rating_metric(), diff);
}

void add_errors(Figures& f, const std::string& split, const std::vector<double>& diff) {
  if (diff.empty()) return;
  for (const MetricRow& row : kMetrics)
    if (row.needs == MetricNeeds::predictions) f[metric_figure(split, row)] = error_of(row, diff);
}

}  // namespace symgnn::eval
