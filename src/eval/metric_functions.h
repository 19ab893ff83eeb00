// The code of the rows of SYMGNN_METRICS (symgnn/metrics.h): each row's function column names
// one function of src/eval/metric_functions.cpp, which expands the rows into the table read
// here. errors.cpp sums the rows of predictions (ErrorSums), ranking.cpp the ranking rows
// (RankingAccumulator); neither names a metric.
//
// Torch-free.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "symgnn/metrics.h"

namespace symgnn::eval {

/// A row of predictions: a term per difference (prediction - rating), summed over the
/// differences, and the row's value from the mean of the terms.
struct ErrorFunction {
  double (*term)(double difference) = nullptr;
  double (*of_mean)(double mean_term) = nullptr;
};

/// One user's ranked list cut at k, as a ranking row reads it.
struct TopK {
  const char* relevant_at = nullptr;  // relevant_at[i] != 0: the list's (i + 1)-th entry is relevant
  size_t length = 0;                  // entries in the list at k: min(k, the list's length)
  size_t k = 0;
  size_t relevant = 0;  // the user's distinct relevant items (at least one)

  /// The relevant entries among the `length`.
  double hits() const;
};

/// Every evaluated user's list cut at k together, as a row of the whole catalogue reads them.
struct CatalogueAtK {
  int64_t covered = 0;  // distinct items in the lists
  int64_t items = 0;    // the catalogue's size
};

/// A row's code: an error's, a ranking row's value for one user (the row's value is its mean
/// over the evaluated users, 0 for none), or a ranking row's value of every list together.
/// Exactly one is set, the one the row's `needs` calls for.
struct MetricFunction {
  ErrorFunction error;
  double (*per_user)(const TopK&) = nullptr;
  double (*over_catalogue)(const CatalogueAtK&) = nullptr;

  constexpr MetricFunction(ErrorFunction e) : error(e) {}
  constexpr MetricFunction(double (*f)(const TopK&)) : per_user(f) {}
  constexpr MetricFunction(double (*f)(const CatalogueAtK&)) : over_catalogue(f) {}
};

/// The function of kMetrics[row] (row < kMetricCount).
const MetricFunction& metric_function(size_t row);

/// The value of the per-user ranking row `row` for one user: `top`, the user's list best first
/// (entries past k ignored), against `relevant`, the user's relevant items (ascending,
/// distinct); 0 for a user without a relevant item. What a choice that compares users one by
/// one reads (fit/ranker_graph_choice.cpp); std::logic_error for a row of another kind.
double user_value(const MetricRow& row, const std::vector<int64_t>& top, const std::vector<int64_t>& relevant,
                  int64_t k);

}  // namespace symgnn::eval
