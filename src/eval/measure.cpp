// measure(model, split, names) (measure.h).
#include "eval/measure.h"

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace symgnn::eval {

Figures measure(const Measurable& model, const std::string& split, const std::vector<std::string>& names) {
  std::vector<MetricName> rows;
  std::vector<int64_t> ks;
  bool predictions = false;
  for (const std::string& name : names) {
    MetricName m = parse_metric_name(name);
    if (!m.row || !m.split.empty())
      throw std::invalid_argument("eval::measure: '" + name + "' is no metric of symgnn/metrics.h");
    if (m.row->needs == MetricNeeds::ranking) {
      if (std::find(ks.begin(), ks.end(), m.k) == ks.end()) ks.push_back(m.k);
    } else {
      predictions = true;
    }
    rows.push_back(m);
  }
  std::sort(ks.begin(), ks.end());

  Figures out;
  ErrorSums errors;
  if (predictions && model.differences) errors.add(model.differences());
  RankingReport ranking;
  if (!ks.empty() && model.rank) ranking = model.rank(ks);
  for (const MetricName& m : rows) {
    if (m.row->needs == MetricNeeds::predictions) {
      if (errors.count() > 0) out[metric_figure(split, *m.row)] = errors.value(*m.row);
    } else if (ranking.users_evaluated > 0) {
      const double v = ranking_value(ranking, m.row->name, m.k);
      if (v == v) out[metric_figure(split, *m.row, m.k)] = v;
    }
  }
  return out;
}

void add_errors(Figures& f, const std::string& split, const std::vector<double>& diff) {
  Measurable m;
  m.differences = [&diff] { return diff; };
  add_figures(f, measure(m, split, prediction_metrics()));
}

void add_figures(Figures& to, const Figures& from) {
  for (const auto& [name, value] : from) to[name] = value;
}

const std::vector<std::string>& prediction_metrics() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const MetricRow& row : kMetrics)
      if (row.needs == MetricNeeds::predictions) out.push_back(row.name);
    return out;
  }();
  return names;
}

std::vector<std::string> ranking_metrics(int64_t k) {
  std::vector<std::string> out;
  for (const MetricRow& row : kMetrics)
    if (row.needs == MetricNeeds::ranking) out.push_back(metric_figure("", row, k));
  return out;
}

double ranking_value(const RankingReport& report, const std::string& row, int64_t k) {
  for (const RankingAtK& at : report.at_k)
    if (at.k == k) return metric_value(at, row);
  return std::numeric_limits<double>::quiet_NaN();
}

}  // namespace symgnn::eval
