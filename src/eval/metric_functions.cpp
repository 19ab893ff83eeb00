// The function of every row of SYMGNN_METRICS (symgnn/metrics.h), and the table that gives
// each row its function (metric_functions.h). A row's function column names one of these.
#include "eval/metric_functions.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace symgnn::eval {

double TopK::hits() const {
  double h = 0;
  for (size_t i = 0; i < length; ++i) h += relevant_at[i] ? 1.0 : 0.0;
  return h;
}

namespace {

// Rows of predictions: a term per difference, and the value from the terms' mean.

/// rmse: the root of the mean squared difference.
constexpr ErrorFunction root_mean_squared{[](double d) { return d * d; },
                                          [](double mean) { return std::sqrt(mean); }};

/// mae: the mean absolute difference.
constexpr ErrorFunction mean_absolute{[](double d) { return std::abs(d); }, [](double mean) { return mean; }};

// Ranking rows at one cut-off k (symgnn/ranking.h: binary relevance, the list's first
// `length` entries against the user's relevant items). Each sums in list order, as the
// accumulator always has, so the figures do not move in the last digit.

/// 1 / log2(position + 1) for a 1-based position: the DCG discount.
double discount(size_t position) {
  return 1.0 / std::log2(static_cast<double>(position) + 1.0);
}

/// precision: hits / k, divided by k even when the list is shorter than k (RecBole's
/// convention: a model that cannot fill k slots is charged for the empty ones).
double precision_of(const TopK& u) {
  return u.hits() / static_cast<double>(u.k);
}

/// recall: hits / the user's relevant items.
double recall_of(const TopK& u) {
  return u.hits() / static_cast<double>(u.relevant);
}

/// ndcg: DCG / IDCG, DCG = sum over positions i = 1..length of rel_i / log2(i + 1), IDCG the
/// DCG of min(k, relevant) relevant entries.
double ndcg_of(const TopK& u) {
  double dcg = 0, ideal = 0;
  for (size_t i = 1; i <= u.length; ++i)
    if (u.relevant_at[i - 1]) dcg += discount(i);
  for (size_t i = 1; i <= std::min(u.k, u.relevant); ++i) ideal += discount(i);
  return dcg / ideal;
}

/// map: the sum of precision@i over the positions i holding a relevant entry, over
/// min(k, relevant).
double map_of(const TopK& u) {
  double hits = 0, sum = 0;
  for (size_t i = 1; i <= u.length; ++i)
    if (u.relevant_at[i - 1]) {
      hits += 1.0;
      sum += hits / static_cast<double>(i);
    }
  return sum / static_cast<double>(std::min(u.k, u.relevant));
}

/// hit_rate: 1 when the list holds a relevant entry, else 0.
double hit_rate_of(const TopK& u) {
  return u.hits() > 0 ? 1.0 : 0.0;
}

/// coverage: the distinct items of every evaluated user's list over the catalogue's size (0
/// for an empty catalogue).
double coverage_of(const CatalogueAtK& c) {
  return c.items > 0 ? static_cast<double>(c.covered) / static_cast<double>(c.items) : 0.0;
}

constexpr MetricFunction kFunctions[] = {
#define SYMGNN_METRIC_FUNCTION(name, direction, needs, function, doc) MetricFunction(function),
    SYMGNN_METRICS(SYMGNN_METRIC_FUNCTION)
#undef SYMGNN_METRIC_FUNCTION
};
static_assert(sizeof(kFunctions) / sizeof(kFunctions[0]) == kMetricCount, "one function per row");

}  // namespace

const MetricFunction& metric_function(size_t row) {
  if (row >= kMetricCount)
    throw std::logic_error("eval::metric_function: no row " + std::to_string(row) + " in symgnn/metrics.h");
  return kFunctions[row];
}

double user_value(const MetricRow& row, const std::vector<int64_t>& top, const std::vector<int64_t>& relevant,
                  int64_t k) {
  const size_t r = metric_index(row.name);
  if (r == kMetricCount || !metric_function(r).per_user)
    throw std::logic_error(std::string("eval::user_value: ") + row.name + " is no per-user ranking row");
  if (relevant.empty()) return 0.0;
  TopK u;
  u.k = static_cast<size_t>(k);
  u.length = std::min(top.size(), u.k);
  u.relevant = relevant.size();
  std::vector<char> at(u.length);
  for (size_t i = 0; i < u.length; ++i) at[i] = std::binary_search(relevant.begin(), relevant.end(), top[i]);
  u.relevant_at = at.data();
  return metric_function(r).per_user(u);
}

}  // namespace symgnn::eval
