// Ranking metrics (see ranking.h for the definitions and conventions).
#include "symgnn/ranking.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <utility>

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

/// 1 / log2(position + 1) for a 1-based position: the DCG discount.
double discount(size_t position) {
  return 1.0 / std::log2(static_cast<double>(position) + 1.0);
}

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
  std::vector<int64_t> candidates;
  candidates.reserve(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i)
    if (excluded.empty() || excluded[static_cast<size_t>(i)] == 0) candidates.push_back(i);
  // partial_sort is O(n log k): ranking a catalogue for a small k stays linear in n.
  const auto keep = static_cast<size_t>(std::min<int64_t>(k, static_cast<int64_t>(candidates.size())));
  std::partial_sort(candidates.begin(), candidates.begin() + static_cast<std::ptrdiff_t>(keep),
                    candidates.end(), RanksBefore{scores});
  candidates.resize(keep);
  return candidates;
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

  // Prefix sums over positions 1..used, so every k reads its values in O(1):
  // hits[i], dcg[i] and ap[i] (the sum of precision@j at relevant positions j) over the first i.
  std::vector<double> hits(used + 1, 0.0), dcg(used + 1, 0.0), ap(used + 1, 0.0);
  for (size_t i = 1; i <= used; ++i) {
    const bool relevant_here = std::binary_search(rel.begin(), rel.end(), ranked[i - 1]);
    hits[i] = hits[i - 1] + (relevant_here ? 1.0 : 0.0);
    dcg[i] = dcg[i - 1] + (relevant_here ? discount(i) : 0.0);
    ap[i] = ap[i - 1] + (relevant_here ? hits[i] / static_cast<double>(i) : 0.0);
  }
  // idcg[m]: the DCG of a list whose first m entries are all relevant.
  const size_t ideal = std::min(rel.size(), static_cast<size_t>(max_k_));
  std::vector<double> idcg(ideal + 1, 0.0);
  for (size_t i = 1; i <= ideal; ++i) idcg[i] = idcg[i - 1] + discount(i);

  const auto n_rel = static_cast<double>(rel.size());
  for (size_t j = 0; j < ks_.size(); ++j) {
    const auto k = static_cast<size_t>(ks_[j]);
    const size_t len = std::min(k, used);
    const size_t m = std::min(k, rel.size());
    Sums& s = sums_[j];
    s.precision += hits[len] / static_cast<double>(k);
    s.recall += hits[len] / n_rel;
    s.ndcg += dcg[len] / idcg[m];
    s.map += ap[len] / static_cast<double>(m);
    s.hit_rate += hits[len] > 0 ? 1.0 : 0.0;
    for (size_t i = 0; i < len; ++i) covered_[j][static_cast<size_t>(ranked[i])] = 1;
  }
}

void RankingAccumulator::merge(const RankingAccumulator& other) {
  if (other.ks_ != ks_ || other.n_items_ != n_items_)
    throw std::invalid_argument("RankingAccumulator::merge: the accumulators differ in ks or n_items");
  for (size_t j = 0; j < ks_.size(); ++j) {
    sums_[j].precision += other.sums_[j].precision;
    sums_[j].recall += other.sums_[j].recall;
    sums_[j].ndcg += other.sums_[j].ndcg;
    sums_[j].map += other.sums_[j].map;
    sums_[j].hit_rate += other.sums_[j].hit_rate;
    for (size_t i = 0; i < covered_[j].size(); ++i) covered_[j][i] |= other.covered_[j][i];
  }
  users_evaluated_ += other.users_evaluated_;
  users_without_relevant_ += other.users_without_relevant_;
}

double metric_value(const RankingAtK& a, const std::string& metric) {
  using Field = double RankingAtK::*;
  static const std::pair<const char*, Field> fields[] = {
      {"precision", &RankingAtK::precision}, {"recall", &RankingAtK::recall},
      {"ndcg", &RankingAtK::ndcg},           {"map", &RankingAtK::map},
      {"hit_rate", &RankingAtK::hit_rate},   {"coverage", &RankingAtK::coverage}};
  for (const auto& [name, field] : fields)
    if (metric == name) return a.*field;
  throw std::invalid_argument("no ranking metric named '" + metric + "'");
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
    at.precision = mean(sums_[j].precision);
    at.recall = mean(sums_[j].recall);
    at.ndcg = mean(sums_[j].ndcg);
    at.map = mean(sums_[j].map);
    at.hit_rate = mean(sums_[j].hit_rate);
    const auto n_covered = std::count(covered_[j].begin(), covered_[j].end(), char{1});
    at.coverage = n_items_ > 0 ? static_cast<double>(n_covered) / static_cast<double>(n_items_) : 0.0;
    r.at_k.push_back(at);
  }
  return r;
}

}  // namespace symgnn::eval
