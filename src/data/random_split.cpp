/// @file random_split.cpp
/// Portable seeded shuffles and test splits (see random_split.h).
#include "data/random_split.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "data/time_split.h"

namespace symgnn::data {

uint64_t uniform_below(std::mt19937_64& rng, uint64_t n) {
  // Rejection of the top partial block keeps every value equally likely.
  const uint64_t limit = std::numeric_limits<uint64_t>::max() - std::numeric_limits<uint64_t>::max() % n;
  uint64_t x;
  do {
    x = rng();
  } while (x >= limit);
  return x % n;
}

void split_five_stars(const RatingList& all, const DataConfig& cfg, Dataset& ds,
                      const std::vector<double>& times, const std::string& where) {
  split_ratings(all, times, cfg, where.empty() ? cfg.source : where, ds);
  ds.rating_levels = {1, 2, 3, 4, 5};
  ds.rating_min = 1;
  ds.rating_max = 5;
}

void random_test_split(const RatingList& all, double fraction, uint64_t seed, RatingList& train,
                       RatingList& test) {
  train = RatingList{};
  test = RatingList{};
  const size_t n = all.size();
  size_t n_test = static_cast<size_t>(std::llround(std::max(0.0, fraction) * static_cast<double>(n)));
  if (n >= 1) n_test = std::min(n_test, n - 1);
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), size_t{0});
  std::mt19937_64 rng(seed);
  portable_shuffle(order, rng);
  std::vector<char> is_test(n, 0);
  for (size_t k = 0; k < n_test; ++k) is_test[order[k]] = 1;
  for (size_t k = 0; k < n; ++k) (is_test[k] ? test : train).add(all.user[k], all.item[k], all.value[k]);
}

void move_marked(RatingList& from, const std::vector<char>& take, RatingList& to,
                 std::vector<double>* times) {
  const auto marked = static_cast<size_t>(std::count(take.begin(), take.end(), char{1}));
  to.user.reserve(to.size() + marked);
  to.item.reserve(to.size() + marked);
  to.value.reserve(to.size() + marked);
  size_t kept = 0;
  for (size_t k = 0; k < from.size(); ++k) {
    if (take[k]) {
      to.add(from.user[k], from.item[k], from.value[k]);
      continue;
    }
    from.user[kept] = from.user[k], from.item[kept] = from.item[k], from.value[kept] = from.value[k];
    if (times) (*times)[kept] = (*times)[k];
    ++kept;
  }
  from.user.resize(kept);
  from.item.resize(kept);
  from.value.resize(kept);
  if (times) times->resize(kept);
}

std::vector<float> distinct_levels(const std::vector<const RatingList*>& lists) {
  std::vector<float> levels;
  for (const RatingList* r : lists) levels.insert(levels.end(), r->value.begin(), r->value.end());
  std::sort(levels.begin(), levels.end());
  levels.erase(std::unique(levels.begin(), levels.end()), levels.end());
  return levels;
}

}  // namespace symgnn::data
