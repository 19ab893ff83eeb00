// Beyond-accuracy figures (eval/beyond_accuracy.h) against brute force: each figure
// recomputed from its definition with plain loops over random catalogues and lists, and the
// Gini index at its two ends.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>

#include "symgnn/beyond_accuracy.h"

using symgnn::eval::BeyondAccuracyAccumulator;
using symgnn::eval::BeyondAccuracyAtK;
using symgnn::eval::CatalogueProfile;

namespace {

/// A random catalogue of n items over `users` users: raters and a dense vector per item
/// (some zero), kept sparse in the profile.
struct RandomCatalogue {
  CatalogueProfile p;
  std::vector<std::vector<double>> dense;
  RandomCatalogue(int n, int dims, std::mt19937& gen) {
    std::uniform_int_distribution<int> raters(0, 30);
    std::uniform_real_distribution<double> coin(0, 1);
    p.users = 40;
    p.ptr.push_back(0);
    for (int i = 0; i < n; ++i) {
      p.raters.push_back(raters(gen));
      dense.emplace_back(dims, 0.0);
      for (int d = 0; d < dims; ++d)
        if (i % 7 != 3 && coin(gen) < 0.4) {  // item 3, 10, ...: a zero vector
          dense.back()[static_cast<size_t>(d)] = std::round(coin(gen) * 4) + 1;
          p.index.push_back(d);
          p.value.push_back(static_cast<float>(dense.back()[static_cast<size_t>(d)]));
        }
      p.ptr.push_back(static_cast<int64_t>(p.index.size()));
    }
  }
};

double brute_cosine(const std::vector<double>& a, const std::vector<double>& b) {
  double dot = 0, na = 0, nb = 0;
  for (size_t d = 0; d < a.size(); ++d) dot += a[d] * b[d], na += a[d] * a[d], nb += b[d] * b[d];
  return na == 0 || nb == 0 ? 0 : dot / std::sqrt(na * nb);
}

/// Each figure from its definition (beyond_accuracy.h) for cut-off k.
BeyondAccuracyAtK brute(const RandomCatalogue& c, const std::vector<std::vector<int64_t>>& lists, int64_t k) {
  const size_t n = c.p.raters.size();
  // The head: the ceil(20 %) most rated, ties to the lower index, by counting who beats whom.
  std::vector<char> head(n, 0);
  const auto head_size = static_cast<size_t>(std::ceil(0.2 * static_cast<double>(n)));
  for (size_t i = 0; i < n; ++i) {
    size_t ahead = 0;
    for (size_t j = 0; j < n; ++j)
      if (c.p.raters[j] > c.p.raters[i] || (c.p.raters[j] == c.p.raters[i] && j < i)) ++ahead;
    head[i] = ahead < head_size;
  }
  BeyondAccuracyAtK a;
  a.k = k;
  std::vector<double> exposure(n, 0);
  double div_users = 0;
  for (const auto& full : lists) {
    const std::vector<int64_t> l(full.begin(),
                                 full.begin() + std::min<int64_t>(k, static_cast<int64_t>(full.size())));
    double nov = 0, pop = 0, tail = 0;
    for (const int64_t i : l) {
      const auto r = static_cast<double>(c.p.raters[static_cast<size_t>(i)]);
      nov += -std::log2(std::max(r, 1.0) / static_cast<double>(c.p.users));
      pop += r;
      tail += head[static_cast<size_t>(i)] ? 0 : 1;
      exposure[static_cast<size_t>(i)] += 1;
    }
    const auto len = static_cast<double>(l.size());
    a.novelty += nov / len;
    a.avg_popularity += pop / len;
    a.long_tail += tail / len;
    if (l.size() >= 2) {
      double d = 0, pairs = 0;
      for (size_t x = 0; x < l.size(); ++x)
        for (size_t y = x + 1; y < l.size(); ++y) {
          d += 1 - brute_cosine(c.dense[static_cast<size_t>(l[x])], c.dense[static_cast<size_t>(l[y])]);
          pairs += 1;
        }
      a.diversity += d / pairs;
      div_users += 1;
    }
  }
  const auto users = static_cast<double>(lists.size());
  a.novelty /= users;
  a.avg_popularity /= users;
  a.long_tail /= users;
  a.diversity /= div_users;
  // Gini by its mean-difference form: sum_i sum_j |e_i - e_j| / (2 n^2 mean).
  double diff = 0, total = 0;
  for (size_t i = 0; i < n; ++i) {
    total += exposure[i];
    for (size_t j = 0; j < n; ++j) diff += std::abs(exposure[i] - exposure[j]);
  }
  a.gini = diff / (2.0 * static_cast<double>(n) * total);
  return a;
}

}  // namespace

TEST(BeyondAccuracy, EveryFigureEqualsItsDefinitionOnRandomLists) {
  std::mt19937 gen(3);
  for (int trial = 0; trial < 20; ++trial) {
    const RandomCatalogue c(17, 6, gen);
    std::vector<std::vector<int64_t>> lists;
    for (int u = 0; u < 9; ++u) {
      std::vector<int64_t> items(17);
      for (int64_t i = 0; i < 17; ++i) items[static_cast<size_t>(i)] = i;
      std::shuffle(items.begin(), items.end(), gen);
      items.resize(static_cast<size_t>(1 + (u * 5 + trial) % 12));  // lists of 1 to 12 items
      lists.push_back(items);
    }
    const std::vector<int64_t> ks{1, 3, 10};
    BeyondAccuracyAccumulator acc(ks, c.p);
    for (const auto& l : lists) acc.add(l);
    const std::vector<BeyondAccuracyAtK> got = acc.report();
    ASSERT_EQ(got.size(), ks.size());
    for (size_t j = 0; j < ks.size(); ++j) {
      const BeyondAccuracyAtK want = brute(c, lists, ks[j]);
      EXPECT_EQ(got[j].k, ks[j]);
      EXPECT_NEAR(got[j].novelty, want.novelty, 1e-9) << trial << " k " << ks[j];
      EXPECT_NEAR(got[j].avg_popularity, want.avg_popularity, 1e-9) << trial;
      EXPECT_NEAR(got[j].long_tail, want.long_tail, 1e-12) << trial;
      EXPECT_NEAR(got[j].gini, want.gini, 1e-12) << trial;
      if (ks[j] >= 2) {
        EXPECT_NEAR(got[j].diversity, want.diversity, 1e-6) << trial;  // float vectors
      }
    }
  }
}

TEST(BeyondAccuracy, GiniIsZeroForEqualExposureAndNearOneWhenOneItemTakesEverySlot) {
  CatalogueProfile p;
  p.users = 4;
  p.raters = {1, 1, 1, 1};
  p.ptr = {0, 0, 0, 0, 0};
  BeyondAccuracyAccumulator equal({2}, p);
  equal.add({0, 1});
  equal.add({2, 3});
  EXPECT_DOUBLE_EQ(equal.report()[0].gini, 0.0);
  BeyondAccuracyAccumulator one({1}, p);
  for (int u = 0; u < 4; ++u) one.add({2});
  EXPECT_DOUBLE_EQ(one.report()[0].gini, 0.75);  // (n - 1) / n
  // Zero vectors: every pair at distance 1.
  EXPECT_DOUBLE_EQ(equal.report()[0].diversity, 1.0);
}

TEST(BeyondAccuracy, BadInputIsRefused) {
  CatalogueProfile p;
  p.users = 2;
  p.raters = {1, 2};
  p.ptr = {0, 0, 0};
  EXPECT_THROW(BeyondAccuracyAccumulator({}, p), std::invalid_argument);
  EXPECT_THROW(BeyondAccuracyAccumulator({0}, p), std::invalid_argument);
  BeyondAccuracyAccumulator acc({2}, p);
  EXPECT_THROW(acc.add({0, 2}), std::invalid_argument);
  p.ptr = {0, 0};
  EXPECT_THROW(BeyondAccuracyAccumulator({2}, p), std::invalid_argument);
}
