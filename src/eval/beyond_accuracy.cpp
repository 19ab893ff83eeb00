#include "symgnn/beyond_accuracy.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace symgnn::eval {

const std::vector<std::string>& beyond_accuracy_names() {
  static const std::vector<std::string> names{"novelty", "avg_popularity", "long_tail", "gini", "diversity"};
  return names;
}

double beyond_accuracy_value(const BeyondAccuracyAtK& a, const std::string& name) {
  if (name == "novelty") return a.novelty;
  if (name == "avg_popularity") return a.avg_popularity;
  if (name == "long_tail") return a.long_tail;
  if (name == "gini") return a.gini;
  if (name == "diversity") return a.diversity;
  throw std::invalid_argument("no beyond-accuracy figure named '" + name + "'");
}

BeyondAccuracyAccumulator::BeyondAccuracyAccumulator(std::vector<int64_t> ks, CatalogueProfile profile)
    : ks_(std::move(ks)), p_(std::move(profile)) {
  if (ks_.empty()) throw std::invalid_argument("BeyondAccuracyAccumulator: no cut-off k");
  for (const int64_t k : ks_)
    if (k < 1) throw std::invalid_argument("BeyondAccuracyAccumulator: k = " + std::to_string(k) + " < 1");
  max_k_ = *std::max_element(ks_.begin(), ks_.end());
  const size_t n = p_.raters.size();
  if (p_.ptr.size() != n + 1 || p_.index.size() != p_.value.size() ||
      static_cast<size_t>(p_.ptr.back()) != p_.index.size())
    throw std::invalid_argument("BeyondAccuracyAccumulator: the item vectors do not match the catalogue");
  norm_.assign(n, 0.0);
  for (size_t i = 0; i < n; ++i)
    for (int64_t q = p_.ptr[i]; q < p_.ptr[i + 1]; ++q)
      norm_[i] += static_cast<double>(p_.value[static_cast<size_t>(q)]) * p_.value[static_cast<size_t>(q)];
  for (double& v : norm_) v = std::sqrt(v);
  // The head: the ceil(20 %) most-rated items, ties to the lower index.
  std::vector<int64_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
    return p_.raters[static_cast<size_t>(a)] > p_.raters[static_cast<size_t>(b)];
  });
  head_.assign(n, 0);
  const auto head = static_cast<size_t>(std::ceil(0.2 * static_cast<double>(n)));
  for (size_t r = 0; r < head && r < n; ++r) head_[static_cast<size_t>(order[r])] = 1;
  const size_t m = ks_.size();
  novelty_.assign(m, 0);
  popularity_.assign(m, 0);
  tail_.assign(m, 0);
  diversity_.assign(m, 0);
  diverse_users_.assign(m, 0);
  exposure_.assign(m, std::vector<int64_t>(n, 0));
}

double BeyondAccuracyAccumulator::cosine(int64_t a, int64_t b) const {
  const double na = norm_[static_cast<size_t>(a)], nb = norm_[static_cast<size_t>(b)];
  if (na == 0 || nb == 0) return 0;
  // Both rows' indices ascend: one merge.
  int64_t x = p_.ptr[static_cast<size_t>(a)], y = p_.ptr[static_cast<size_t>(b)];
  const int64_t xe = p_.ptr[static_cast<size_t>(a) + 1], ye = p_.ptr[static_cast<size_t>(b) + 1];
  double dot = 0;
  while (x < xe && y < ye) {
    const int64_t ix = p_.index[static_cast<size_t>(x)], iy = p_.index[static_cast<size_t>(y)];
    if (ix < iy) {
      ++x;
    } else if (iy < ix) {
      ++y;
    } else {
      dot += static_cast<double>(p_.value[static_cast<size_t>(x++)]) * p_.value[static_cast<size_t>(y++)];
    }
  }
  return dot / (na * nb);
}

void BeyondAccuracyAccumulator::add(const std::vector<int64_t>& ranked) {
  const size_t used = std::min(ranked.size(), static_cast<size_t>(max_k_));
  const auto n = static_cast<int64_t>(p_.raters.size());
  for (size_t i = 0; i < used; ++i)
    if (ranked[i] < 0 || ranked[i] >= n)
      throw std::invalid_argument("BeyondAccuracyAccumulator::add: item " + std::to_string(ranked[i]) +
                                  " outside [0, " + std::to_string(n) + ")");
  ++users_;
  const double users = static_cast<double>(std::max<int64_t>(1, p_.users));
  // Prefix sums over the list's positions, and each position's summed distance to those above it.
  std::vector<double> info(used + 1, 0), pop(used + 1, 0), tail(used + 1, 0), dist(used + 1, 0);
  for (size_t i = 1; i <= used; ++i) {
    const auto item = static_cast<size_t>(ranked[i - 1]);
    const auto c = static_cast<double>(p_.raters[item]);
    info[i] = info[i - 1] - std::log2(std::max(c, 1.0) / users);
    pop[i] = pop[i - 1] + c;
    tail[i] = tail[i - 1] + (head_[item] ? 0.0 : 1.0);
    double d = 0;
    for (size_t j = 0; j + 1 < i; ++j) d += 1.0 - cosine(ranked[j], ranked[i - 1]);
    dist[i] = dist[i - 1] + d;
  }
  for (size_t j = 0; j < ks_.size(); ++j) {
    const size_t len = std::min(static_cast<size_t>(ks_[j]), used);
    if (len == 0) continue;
    const auto l = static_cast<double>(len);
    novelty_[j] += info[len] / l;
    popularity_[j] += pop[len] / l;
    tail_[j] += tail[len] / l;
    if (len >= 2) {
      diversity_[j] += dist[len] / (l * (l - 1) / 2);
      ++diverse_users_[j];
    }
    for (size_t i = 0; i < len; ++i) ++exposure_[j][static_cast<size_t>(ranked[i])];
  }
}

std::vector<BeyondAccuracyAtK> BeyondAccuracyAccumulator::report() const {
  std::vector<BeyondAccuracyAtK> out;
  const auto users = static_cast<double>(users_);
  for (size_t j = 0; j < ks_.size(); ++j) {
    BeyondAccuracyAtK a;
    a.k = ks_[j];
    if (users_ > 0) {
      a.novelty = novelty_[j] / users;
      a.avg_popularity = popularity_[j] / users;
      a.long_tail = tail_[j] / users;
    }
    if (diverse_users_[j] > 0) a.diversity = diversity_[j] / static_cast<double>(diverse_users_[j]);
    std::vector<int64_t> e = exposure_[j];
    std::sort(e.begin(), e.end());
    const auto n = static_cast<double>(e.size());
    double total = 0, weighted = 0;
    for (size_t r = 0; r < e.size(); ++r) {
      total += static_cast<double>(e[r]);
      weighted += (2.0 * static_cast<double>(r + 1) - n - 1) * static_cast<double>(e[r]);
    }
    a.gini = total > 0 ? weighted / (n * total) : 0.0;
    out.push_back(a);
  }
  return out;
}

}  // namespace symgnn::eval
