// Ranking metrics (see ranking.h for the definitions and conventions).
#include "symgnn/ranking.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <utility>

#include "eval/metric_functions.h"
#include "symgnn/dataset.h"

namespace symgnn::eval {

namespace {

/// Strict weak order "a ranks before b": higher score first, NaN after every number, and
/// the lower index on ties (including NaN against NaN), so the result never depends on the
/// sort algorithm.
struct RanksBefore {
  const float* scores;
  bool operator()(int64_t a, int64_t b) const {
    const bool a_nan = std::isnan(scores[a]);
    const bool b_nan = std::isnan(scores[b]);
    if (a_nan != b_nan) return b_nan;
    if (!a_nan && scores[a] != scores[b]) return scores[a] > scores[b];
    return a < b;
  }
};

std::vector<int64_t> sorted_unique(std::vector<int64_t> items) {
  std::sort(items.begin(), items.end());
  items.erase(std::unique(items.begin(), items.end()), items.end());
  return items;
}

}  // namespace

std::vector<int64_t> top_k_items(const float* scores, int64_t n, int64_t k,
                                 const std::vector<char>& excluded) {
  if (n < 0 || k < 0) throw std::invalid_argument("top_k_items: n and k must be >= 0");
  if (n > 0 && scores == nullptr) throw std::invalid_argument("top_k_items: scores is null");
  if (!excluded.empty() && static_cast<int64_t>(excluded.size()) != n)
    throw std::invalid_argument("top_k_items: excluded has " + std::to_string(excluded.size()) +
                                " entries, expected 0 or " + std::to_string(n));
  if (k == 0 || n == 0) return {};
  // One pass in index order, keeping the best k seen so far in a heap whose front is the
  // worst of them. An item later in the order loses every tie to the items kept, so it
  // enters only when its score is strictly better than the worst's (any number beats NaN):
  // one comparison for most items, and no n-long candidate list. That matters on wide
  // catalogues, where evaluation ranks every item for every test user.
  const RanksBefore before{scores};
  const auto keep = static_cast<size_t>(std::min(k, n));
  std::vector<int64_t> best;
  best.reserve(keep);
  float worst = 0.0f;
  bool worst_nan = false;
  for (int64_t i = 0; i < n; ++i) {
    if (!excluded.empty() && excluded[static_cast<size_t>(i)] != 0) continue;
    if (best.size() == keep) {
      const float s = scores[i];
      if (worst_nan ? std::isnan(s) : !(s > worst)) continue;
      std::pop_heap(best.begin(), best.end(), before);
      best.back() = i;
    } else {
      best.push_back(i);
    }
    std::push_heap(best.begin(), best.end(), before);
    worst = scores[best.front()];
    worst_nan = std::isnan(worst);
  }
  std::sort_heap(best.begin(), best.end(), before);
  return best;
}

double default_relevant_min(double rating_min, double rating_max) {
  if (rating_min == 1.0 && rating_max == 5.0) return 4.0;
  return rating_max - (rating_max - rating_min) / 5.0;
}

double relevant_min_of(const Dataset& ds) {
  return ds.implicit() ? static_cast<double>(ds.rating_min)
                       : default_relevant_min(ds.rating_min, ds.rating_max);
}

RankingAccumulator::RankingAccumulator(std::vector<int64_t> ks, int64_t n_items)
    : ks_(std::move(ks)), n_items_(n_items) {
  if (ks_.empty()) throw std::invalid_argument("RankingAccumulator: no cut-off k given");
  for (int64_t k : ks_)
    if (k < 1)
      throw std::invalid_argument("RankingAccumulator: every k must be >= 1, got " + std::to_string(k));
  if (n_items_ < 0)
    throw std::invalid_argument("RankingAccumulator: n_items must be >= 0, got " + std::to_string(n_items_));
  max_k_ = *std::max_element(ks_.begin(), ks_.end());
  sums_.resize(ks_.size());
  covered_.assign(ks_.size(), std::vector<char>(static_cast<size_t>(n_items_), 0));
}

int64_t RankingAccumulator::max_k() const {
  return max_k_;
}

void RankingAccumulator::check_items(const std::vector<int64_t>& ranked, size_t used,
                                     const std::vector<int64_t>& relevant) const {
  const auto in_range = [this](int64_t item) { return item >= 0 && item < n_items_; };
  for (size_t i = 0; i < used; ++i)
    if (!in_range(ranked[i]))
      throw std::invalid_argument("RankingAccumulator::add: ranked item " + std::to_string(ranked[i]) +
                                  " outside [0, " + std::to_string(n_items_) + ")");
  for (int64_t item : relevant)
    if (!in_range(item))
      throw std::invalid_argument("RankingAccumulator::add: relevant item " + std::to_string(item) +
                                  " outside [0, " + std::to_string(n_items_) + ")");
  // A repeated item would be counted as a hit twice (recall above 1), so it is a caller bug.
  std::vector<int64_t> head(ranked.begin(), ranked.begin() + static_cast<std::ptrdiff_t>(used));
  std::sort(head.begin(), head.end());
  const auto repeat = std::adjacent_find(head.begin(), head.end());
  if (repeat != head.end())
    throw std::invalid_argument("RankingAccumulator::add: item " + std::to_string(*repeat) +
                                " appears twice in the ranked list");
}

void RankingAccumulator::add(const std::vector<int64_t>& ranked, const std::vector<int64_t>& relevant) {
  const size_t used = std::min(ranked.size(), static_cast<size_t>(max_k_));
  check_items(ranked, used, relevant);
  const std::vector<int64_t> rel = sorted_unique(relevant);
  if (rel.empty()) {
    ++users_without_relevant_;
    return;
  }
  ++users_evaluated_;

  // Whether each used entry is relevant; every k reads the first min(k, used) of them.
  std::vector<char> relevant_at(used);
  for (size_t i = 0; i < used; ++i) relevant_at[i] = std::binary_search(rel.begin(), rel.end(), ranked[i]);
  for (size_t j = 0; j < ks_.size(); ++j) {
    const auto k = static_cast<size_t>(ks_[j]);
    TopK top;
    top.relevant_at = relevant_at.data();
    top.length = std::min(k, used);
    top.k = k;
    top.relevant = rel.size();
    for (size_t r = 0; r < kMetricCount; ++r)
      if (const auto per_user = metric_function(r).per_user) sums_[j].per_user[r] += per_user(top);
    for (size_t i = 0; i < top.length; ++i) covered_[j][static_cast<size_t>(ranked[i])] = 1;
  }
}

void RankingAccumulator::merge(const RankingAccumulator& other) {
  if (other.ks_ != ks_ || other.n_items_ != n_items_)
    throw std::invalid_argument("RankingAccumulator::merge: the accumulators differ in ks or n_items");
  for (size_t j = 0; j < ks_.size(); ++j) {
    for (size_t r = 0; r < kMetricCount; ++r) sums_[j].per_user[r] += other.sums_[j].per_user[r];
    for (size_t i = 0; i < covered_[j].size(); ++i) covered_[j][i] |= other.covered_[j][i];
  }
  users_evaluated_ += other.users_evaluated_;
  users_without_relevant_ += other.users_without_relevant_;
}

double metric_value(const RankingAtK& a, const std::string& metric) {
  const size_t r = metric_index(metric);
  if (r == kMetricCount || kMetrics[r].needs != MetricNeeds::ranking)
    throw std::invalid_argument("no ranking metric named '" + metric + "'");
  return a.values[r];
}

RankingReport RankingAccumulator::report() const {
  RankingReport r;
  r.users_evaluated = users_evaluated_;
  r.users_without_relevant = users_without_relevant_;
  const double users = static_cast<double>(users_evaluated_);
  const auto mean = [users](double sum) { return users > 0 ? sum / users : 0.0; };
  for (size_t j = 0; j < ks_.size(); ++j) {
    RankingAtK at;
    at.k = ks_[j];
    CatalogueAtK catalogue;
    catalogue.covered = std::count(covered_[j].begin(), covered_[j].end(), char{1});
    catalogue.items = n_items_;
    for (size_t row = 0; row < kMetricCount; ++row) {
      const MetricFunction& f = metric_function(row);
      if (f.per_user) at.values[row] = mean(sums_[j].per_user[row]);
      if (f.over_catalogue) at.values[row] = f.over_catalogue(catalogue);
    }
    r.at_k.push_back(at);
  }
  return r;
}

}  // namespace symgnn::eval
