// Top-k ranking evaluation of a rating model: rank each user's unseen items by predicted
// score and score the ranked lists against the user's relevant test items with binary
// relevance (the ranking rows of symgnn/metrics.h at several k).
// Torch-free: callers pass plain score arrays, so the metrics can be tested exhaustively
// against brute force and reused for any model's predictions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "symgnn/metrics.h"

namespace symgnn {
struct Dataset;
}

namespace symgnn::eval {

/// The k items with the highest scores among scores[0, n), best first, skipping items with
/// excluded[i] != 0 (typically the user's training items). `excluded` is either empty
/// (nothing excluded) or n long. Rules:
///  - ties: the lower item index ranks first, so the order is deterministic;
///  - NaN scores rank after every number (NaNs among themselves by index);
///  - fewer than k items come back when fewer candidates remain; k == 0 gives an empty list.
/// Throws std::invalid_argument for n < 0, k < 0, a null `scores` with n > 0, or an
/// `excluded` that is neither empty nor n long.
std::vector<int64_t> top_k_items(const float* scores, int64_t n, int64_t k,
                                 const std::vector<char>& excluded);

/// The default relevance threshold (a test rating >= it makes the item relevant) for the rating
/// scale [rating_min, rating_max]: 4 on the usual 1..5 scale (rating_min == 1 && rating_max == 5),
/// otherwise the top fifth of the range, rating_max - (rating_max - rating_min) / 5 (80 on
/// 0..100, 8.2 on 1..10). The 1..5 case is special because the formula would give 4.2 and leave
/// only the 5-star ratings relevant, while "4 or 5 stars" is the common convention.
double default_relevant_min(double rating_min, double rating_max);

/// The threshold of `ds`'s held-out values: default_relevant_min of its rating scale, or for
/// interactions (data.feedback = implicit or counts, data/feedback.h) its smallest value, so
/// that every held-out interaction is relevant.
double relevant_min_of(const Dataset& ds);

/// The ranking rows of SYMGNN_METRICS (symgnn/metrics.h: precision, recall, NDCG, MAP, hit
/// rate, coverage) at one cut-off k. A user's list is scored with binary relevance: its first
/// min(k, |ranked|) entries against the user's distinct relevant items; each row's function
/// (src/eval/metric_functions.cpp) defines it. Each is a mean over the evaluated users (0 when
/// none was evaluated), but coverage: the distinct items in the evaluated users' top-k lists
/// over the catalogue size.
struct RankingAtK {
  int64_t k = 0;
  double values[kMetricCount] = {};  // by row of kMetrics; 0 for the rows of predictions
};

/// The value in `a` of the ranking metric `metric`: a ranking row of SYMGNN_METRICS
/// (symgnn/metrics.h: precision, recall, ndcg, map, hit_rate, coverage). Throws
/// std::invalid_argument for another name.
double metric_value(const RankingAtK& a, const std::string& metric);

struct RankingReport {
  std::vector<RankingAtK> at_k;        // one per requested k, in the order given
  int64_t users_evaluated = 0;         // users with >= 1 relevant test item
  int64_t users_without_relevant = 0;  // users passed to add() with no relevant item: skipped
};

/// Accumulates per-user ranked lists into the sums behind a RankingReport. Sums are kept in
/// double; coverage keeps one flag per catalogue item per k. Not thread-safe: give each
/// thread its own accumulator and merge() them.
class RankingAccumulator {
 public:
  /// ks must be non-empty with every k >= 1, and n_items >= 0 (the catalogue size, the
  /// denominator of coverage; coverage is 0 for an empty catalogue); otherwise throws
  /// std::invalid_argument with a one-line message. Repeated ks are allowed.
  RankingAccumulator(std::vector<int64_t> ks, int64_t n_items);

  /// One user's ranked candidates (item indices, best first; at least max_k() long unless
  /// the user has fewer candidates; entries past max_k() are ignored) and that user's relevant
  /// test items (any order, duplicates ignored). A user with no relevant item is counted in
  /// users_without_relevant and otherwise skipped (no metric, no coverage). Throws
  /// std::invalid_argument, adding nothing, for an item outside [0, n_items) in `relevant` or
  /// in the used part of `ranked`, or for an item repeated within the used part of `ranked`.
  void add(const std::vector<int64_t>& ranked, const std::vector<int64_t>& relevant);

  /// Adds another accumulator's users (for per-thread accumulation). Throws
  /// std::invalid_argument when its ks (same values, same order) or n_items differ.
  void merge(const RankingAccumulator& other);

  RankingReport report() const;

  /// The largest requested k: how many items to ask top_k_items() for.
  int64_t max_k() const;

 private:
  struct Sums {
    double per_user[kMetricCount] = {};  // by row of kMetrics: the per-user rows' sums over users
  };

  void check_items(const std::vector<int64_t>& ranked, size_t used,
                   const std::vector<int64_t>& relevant) const;

  std::vector<int64_t> ks_;
  int64_t n_items_ = 0;
  int64_t max_k_ = 0;
  std::vector<Sums> sums_;                  // one per k
  std::vector<std::vector<char>> covered_;  // per k: n_items flags, item seen in a top-k list
  int64_t users_evaluated_ = 0;
  int64_t users_without_relevant_ = 0;
};

}  // namespace symgnn::eval
