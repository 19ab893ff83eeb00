// Ranking metrics (eval/ranking.h): top_k_items against a full sort, every metric against
// hand-computed values on tiny lists and against a brute-force evaluation of the full
// sorted list on random users, merge() against one accumulator, and the input checks.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "symgnn/ranking.h"

using symgnn::eval::default_relevant_min;
using symgnn::eval::metric_value;
using symgnn::eval::RankingAccumulator;
using symgnn::eval::RankingAtK;
using symgnn::eval::RankingReport;
using symgnn::eval::top_k_items;

namespace {

const float kNaN = std::numeric_limits<float>::quiet_NaN();

/// Every non-excluded item by a full stable sort on score alone (higher first, NaN last):
/// stability over the index-ordered input is what breaks ties by the lower index here, an
/// independent route to the rule top_k_items implements with an explicit index comparison.
std::vector<int64_t> full_ranking(const std::vector<float>& scores, const std::vector<char>& excluded) {
  std::vector<int64_t> items;
  for (size_t i = 0; i < scores.size(); ++i)
    if (excluded.empty() || !excluded[i]) items.push_back(static_cast<int64_t>(i));
  std::stable_sort(items.begin(), items.end(), [&](int64_t a, int64_t b) {
    const float sa = scores[static_cast<size_t>(a)], sb = scores[static_cast<size_t>(b)];
    if (std::isnan(sa)) return false;
    return std::isnan(sb) || sa > sb;
  });
  return items;
}

/// Scores on a coarse grid (many ties) with some NaNs.
std::vector<float> random_scores(std::mt19937& rng, size_t n) {
  std::uniform_int_distribution<int> level(0, 6);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<float> scores(n);
  for (float& s : scores) s = u(rng) < 0.1 ? kNaN : static_cast<float>(level(rng)) * 0.25f - 0.5f;
  return scores;
}

std::vector<char> random_excluded(std::mt19937& rng, size_t n, double p) {
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<char> excluded(n);
  for (char& e : excluded) e = u(rng) < p ? 1 : 0;
  return excluded;
}

/// The metrics of one user at cut-off k, computed straight from the user's full sorted list.
struct UserMetrics {
  double precision = 0, recall = 0, ndcg = 0, map = 0, hit = 0;
};

UserMetrics brute_user(const std::vector<int64_t>& full, const std::set<int64_t>& relevant, int64_t k) {
  const size_t len = std::min(full.size(), static_cast<size_t>(k));
  std::vector<int> gain(len);
  for (size_t i = 0; i < len; ++i) gain[i] = relevant.count(full[i]) ? 1 : 0;
  // The ideal list: every relevant item first, then the rest of the catalogue, cut at k.
  std::vector<int> ideal(relevant.size(), 1);
  ideal.resize(std::max(ideal.size(), static_cast<size_t>(k)), 0);
  ideal.resize(static_cast<size_t>(k));
  double dcg = 0, idcg = 0, ap = 0;
  int hits = 0;
  for (size_t i = 0; i < len; ++i) {
    dcg += gain[i] / std::log2(static_cast<double>(i) + 2.0);
    if (gain[i]) {
      ++hits;
      ap += static_cast<double>(hits) / static_cast<double>(i + 1);
    }
  }
  for (size_t i = 0; i < ideal.size(); ++i) idcg += ideal[i] / std::log2(static_cast<double>(i) + 2.0);
  UserMetrics m;
  m.precision = static_cast<double>(hits) / static_cast<double>(k);
  m.recall = static_cast<double>(hits) / static_cast<double>(relevant.size());
  m.ndcg = dcg / idcg;
  m.map = ap / static_cast<double>(std::min<size_t>(relevant.size(), static_cast<size_t>(k)));
  m.hit = hits > 0 ? 1.0 : 0.0;
  return m;
}

/// One random user of a random catalogue: scores, training items and relevant test items
/// (0..5 of them, duplicates and excluded items allowed).
struct RandomUser {
  std::vector<float> scores;
  std::vector<char> excluded;
  std::vector<int64_t> relevant;
};

RandomUser random_user(std::mt19937& rng, size_t n_items) {
  RandomUser u;
  u.scores = random_scores(rng, n_items);
  u.excluded = random_excluded(rng, n_items, 0.3);
  std::uniform_int_distribution<int> count(0, 5);
  std::uniform_int_distribution<int64_t> item(0, static_cast<int64_t>(n_items) - 1);
  for (int c = count(rng); c > 0; --c) u.relevant.push_back(item(rng));
  return u;
}

void expect_reports_near(const RankingReport& a, const RankingReport& b, double tol) {
  EXPECT_EQ(a.users_evaluated, b.users_evaluated);
  EXPECT_EQ(a.users_without_relevant, b.users_without_relevant);
  ASSERT_EQ(a.at_k.size(), b.at_k.size());
  for (size_t j = 0; j < a.at_k.size(); ++j) {
    SCOPED_TRACE("k=" + std::to_string(a.at_k[j].k));
    EXPECT_EQ(a.at_k[j].k, b.at_k[j].k);
    EXPECT_NEAR(metric_value(a.at_k[j], "precision"), metric_value(b.at_k[j], "precision"), tol);
    EXPECT_NEAR(metric_value(a.at_k[j], "recall"), metric_value(b.at_k[j], "recall"), tol);
    EXPECT_NEAR(metric_value(a.at_k[j], "ndcg"), metric_value(b.at_k[j], "ndcg"), tol);
    EXPECT_NEAR(metric_value(a.at_k[j], "map"), metric_value(b.at_k[j], "map"), tol);
    EXPECT_NEAR(metric_value(a.at_k[j], "hit_rate"), metric_value(b.at_k[j], "hit_rate"), tol);
    EXPECT_DOUBLE_EQ(metric_value(a.at_k[j], "coverage"), metric_value(b.at_k[j], "coverage"));
  }
}

// The hand-made catalogue of 8 items shared by the worked examples: items 1, 3 and 5 tie at
// 0.9, and 5, 6, 7 are the user's training items, so the top 10 is [1, 3, 4, 0, 2].
const std::vector<float> kScores = {0.2f, 0.9f, 0.1f, 0.9f, 0.5f, 0.9f, 0.7f, 0.3f};
const std::vector<char> kExcluded = {0, 0, 0, 0, 0, 1, 1, 1};

}  // namespace

// ---- top_k_items -------------------------------------------------------------------------

TEST(TopKItems, TiesGoToTheLowerIndex) {
  const std::vector<float> s = {1.0f, 3.0f, 2.0f, 3.0f, 2.0f, 3.0f};
  EXPECT_EQ(top_k_items(s.data(), 6, 6, {}), (std::vector<int64_t>{1, 3, 5, 2, 4, 0}));
  EXPECT_EQ(top_k_items(s.data(), 6, 2, {}), (std::vector<int64_t>{1, 3}));
}

TEST(TopKItems, SkipsExcludedItemsAndReturnsFewerWhenKExceedsTheCandidates) {
  EXPECT_EQ(top_k_items(kScores.data(), 8, 10, kExcluded), (std::vector<int64_t>{1, 3, 4, 0, 2}));
  EXPECT_EQ(top_k_items(kScores.data(), 8, 3, kExcluded), (std::vector<int64_t>{1, 3, 4}));
  EXPECT_EQ(top_k_items(kScores.data(), 8, 0, kExcluded), (std::vector<int64_t>{}));
}

TEST(TopKItems, AllExcludedGivesAnEmptyList) {
  EXPECT_TRUE(top_k_items(kScores.data(), 8, 5, std::vector<char>(8, 1)).empty());
  EXPECT_TRUE(top_k_items(nullptr, 0, 5, {}).empty());
}

TEST(TopKItems, NaNRanksLastEvenBelowMinusInfinity) {
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> s = {kNaN, -inf, 0.5f, kNaN, inf, -2.0f};
  EXPECT_EQ(top_k_items(s.data(), 6, 6, {}), (std::vector<int64_t>{4, 2, 5, 1, 0, 3}));
  EXPECT_EQ(top_k_items(s.data(), 6, 4, {}), (std::vector<int64_t>{4, 2, 5, 1}));
}

TEST(TopKItems, MatchesAFullSortOnRandomScores) {
  for (unsigned seed = 1; seed <= 40; ++seed) {
    std::mt19937 rng(seed);
    const size_t n = std::uniform_int_distribution<size_t>(1, 60)(rng);
    const std::vector<float> scores = random_scores(rng, n);
    const std::vector<char> excluded = seed % 4 == 0 ? std::vector<char>{} : random_excluded(rng, n, 0.4);
    std::vector<int64_t> expected = full_ranking(scores, excluded);
    for (int64_t k : {int64_t{1}, int64_t{3}, static_cast<int64_t>(n / 2), static_cast<int64_t>(n) + 7}) {
      SCOPED_TRACE("seed " + std::to_string(seed) + " k " + std::to_string(k));
      std::vector<int64_t> head(
          expected.begin(), expected.begin() + std::min<int64_t>(k, static_cast<int64_t>(expected.size())));
      EXPECT_EQ(top_k_items(scores.data(), static_cast<int64_t>(n), k, excluded), head);
    }
  }
}

TEST(TopKItems, MatchesAFullSortOnWideCataloguesWithInfinitiesAndLongTies) {
  // The one-pass selection keeps a heap of k and replaces its worst: long runs of equal
  // scores, infinities and NaNs at every place test its "strictly better than the worst" rule.
  const float inf = std::numeric_limits<float>::infinity();
  for (unsigned seed = 1; seed <= 12; ++seed) {
    std::mt19937 rng(seed);
    const size_t n = std::uniform_int_distribution<size_t>(500, 5000)(rng);
    std::vector<float> scores = random_scores(rng, n);
    std::uniform_int_distribution<size_t> at(0, n - 1);
    for (int j = 0; j < 5; ++j) scores[at(rng)] = inf, scores[at(rng)] = -inf;
    if (seed % 3 == 0)  // every score a NaN but a few
      for (float& s : scores) s = s == inf || s == -inf ? s : kNaN;
    const std::vector<char> excluded = seed % 2 == 0 ? std::vector<char>{} : random_excluded(rng, n, 0.3);
    const std::vector<int64_t> expected = full_ranking(scores, excluded);
    for (int64_t k : {int64_t{1}, int64_t{10}, int64_t{100}, static_cast<int64_t>(n)}) {
      SCOPED_TRACE("seed " + std::to_string(seed) + " n " + std::to_string(n) + " k " + std::to_string(k));
      const std::vector<int64_t> head(
          expected.begin(), expected.begin() + std::min<int64_t>(k, static_cast<int64_t>(expected.size())));
      EXPECT_EQ(top_k_items(scores.data(), static_cast<int64_t>(n), k, excluded), head);
    }
  }
}

TEST(TopKItems, RejectsBadArguments) {
  EXPECT_THROW(top_k_items(kScores.data(), 8, 3, std::vector<char>(7, 0)), std::invalid_argument);
  EXPECT_THROW(top_k_items(kScores.data(), 8, -1, {}), std::invalid_argument);
  EXPECT_THROW(top_k_items(kScores.data(), -1, 3, {}), std::invalid_argument);
  EXPECT_THROW(top_k_items(nullptr, 3, 3, {}), std::invalid_argument);
}

// ---- default_relevant_min ----------------------------------------------------------------

TEST(DefaultRelevantMin, FourOnFiveStarsOtherwiseTheTopFifth) {
  EXPECT_DOUBLE_EQ(default_relevant_min(1, 5), 4.0);
  EXPECT_DOUBLE_EQ(default_relevant_min(0, 100), 80.0);
  EXPECT_DOUBLE_EQ(default_relevant_min(1, 10), 8.2);
  EXPECT_DOUBLE_EQ(default_relevant_min(0, 5), 4.0);  // 5 - 5/5: only 1..5 is special-cased
}

// ---- hand-computed metrics ---------------------------------------------------------------

// One user: ranked [1, 3, 4, 0, 2] through top_k_items (ties 1/3 by index), relevant
// {3, 7, 2, 3}: 3 given twice, 7 excluded from the candidates, so |R| = 3, hits at
// positions 2 (item 3) and 5 (item 2). A second user without relevant items is skipped.
TEST(RankingAccumulator, HandComputedSingleUser) {
  RankingAccumulator acc({2, 5, 10}, 8);
  EXPECT_EQ(acc.max_k(), 10);
  const std::vector<int64_t> ranked = top_k_items(kScores.data(), 8, acc.max_k(), kExcluded);
  ASSERT_EQ(ranked, (std::vector<int64_t>{1, 3, 4, 0, 2}));
  acc.add(ranked, {3, 7, 2, 3});
  acc.add({5, 6, 7}, {});

  const RankingReport r = acc.report();
  EXPECT_EQ(r.users_evaluated, 1);
  EXPECT_EQ(r.users_without_relevant, 1);
  ASSERT_EQ(r.at_k.size(), 3u);
  const double idcg2 = 1 / std::log2(2.0) + 1 / std::log2(3.0);
  const double idcg3 = idcg2 + 1 / std::log2(4.0);
  const double dcg5 = 1 / std::log2(3.0) + 1 / std::log2(6.0);

  const RankingAtK& a2 = r.at_k[0];  // [1, 3]: one hit at position 2
  EXPECT_EQ(a2.k, 2);
  EXPECT_DOUBLE_EQ(metric_value(a2, "precision"), 1.0 / 2);
  EXPECT_DOUBLE_EQ(metric_value(a2, "recall"), 1.0 / 3);
  EXPECT_DOUBLE_EQ(metric_value(a2, "ndcg"), (1 / std::log2(3.0)) / idcg2);
  EXPECT_DOUBLE_EQ(metric_value(a2, "map"), (1.0 / 2) / 2);  // denominator min(k, |R|) = 2
  EXPECT_DOUBLE_EQ(metric_value(a2, "hit_rate"), 1.0);
  EXPECT_DOUBLE_EQ(metric_value(a2, "coverage"), 2.0 / 8);  // {1, 3}; the skipped user's 5, 6, 7 do not count

  const RankingAtK& a5 = r.at_k[1];  // hits at positions 2 and 5
  EXPECT_EQ(a5.k, 5);
  EXPECT_DOUBLE_EQ(metric_value(a5, "precision"), 2.0 / 5);
  EXPECT_DOUBLE_EQ(metric_value(a5, "recall"), 2.0 / 3);
  EXPECT_DOUBLE_EQ(metric_value(a5, "ndcg"), dcg5 / idcg3);
  EXPECT_DOUBLE_EQ(metric_value(a5, "map"), (1.0 / 2 + 2.0 / 5) / 3);
  EXPECT_DOUBLE_EQ(metric_value(a5, "hit_rate"), 1.0);
  EXPECT_DOUBLE_EQ(metric_value(a5, "coverage"), 5.0 / 8);

  const RankingAtK& a10 = r.at_k[2];  // k beyond the 5 candidates: precision still over 10
  EXPECT_EQ(a10.k, 10);
  EXPECT_DOUBLE_EQ(metric_value(a10, "precision"), 2.0 / 10);
  EXPECT_DOUBLE_EQ(metric_value(a10, "recall"), 2.0 / 3);
  EXPECT_DOUBLE_EQ(metric_value(a10, "ndcg"), dcg5 / idcg3);  // IDCG over min(10, |R|) = 3 positions
  EXPECT_DOUBLE_EQ(metric_value(a10, "map"), (1.0 / 2 + 2.0 / 5) / 3);
  EXPECT_DOUBLE_EQ(metric_value(a10, "hit_rate"), 1.0);
  EXPECT_DOUBLE_EQ(metric_value(a10, "coverage"), 5.0 / 8);
}

// Means over three evaluated users (the one above, a hit at position 1, a miss) and the
// coverage union of their lists.
TEST(RankingAccumulator, HandComputedMeansOverUsers) {
  RankingAccumulator acc({2, 5}, 8);
  acc.add({1, 3, 4, 0, 2}, {3, 7, 2});
  acc.add({4, 0, 6}, {0});
  acc.add({1, 2}, {5});
  acc.add({7}, {});
  const RankingReport r = acc.report();
  EXPECT_EQ(r.users_evaluated, 3);
  EXPECT_EQ(r.users_without_relevant, 1);
  const double idcg2 = 1 + 1 / std::log2(3.0);
  const double idcg3 = idcg2 + 1 / std::log2(4.0);

  const RankingAtK& a2 = r.at_k[0];
  EXPECT_DOUBLE_EQ(metric_value(a2, "precision"), (1.0 / 2 + 1.0 / 2 + 0) / 3);
  EXPECT_DOUBLE_EQ(metric_value(a2, "recall"), (1.0 / 3 + 1 + 0) / 3);
  EXPECT_DOUBLE_EQ(metric_value(a2, "ndcg"),
                   ((1 / std::log2(3.0)) / idcg2 + (1 / std::log2(3.0)) / 1 + 0) / 3);
  EXPECT_DOUBLE_EQ(metric_value(a2, "map"), ((1.0 / 2) / 2 + (1.0 / 2) / 1 + 0) / 3);
  EXPECT_DOUBLE_EQ(metric_value(a2, "hit_rate"), 2.0 / 3);
  EXPECT_DOUBLE_EQ(metric_value(a2, "coverage"), 5.0 / 8);  // {1, 3} + {4, 0} + {1, 2}

  const RankingAtK& a5 = r.at_k[1];  // the second user's list has 3 entries, the third's 2
  EXPECT_DOUBLE_EQ(metric_value(a5, "precision"), (2.0 / 5 + 1.0 / 5 + 0) / 3);
  EXPECT_DOUBLE_EQ(metric_value(a5, "recall"), (2.0 / 3 + 1 + 0) / 3);
  EXPECT_DOUBLE_EQ(metric_value(a5, "ndcg"),
                   ((1 / std::log2(3.0) + 1 / std::log2(6.0)) / idcg3 + 1 / std::log2(3.0) + 0) / 3);
  EXPECT_DOUBLE_EQ(metric_value(a5, "map"), ((1.0 / 2 + 2.0 / 5) / 3 + 1.0 / 2 + 0) / 3);
  EXPECT_DOUBLE_EQ(metric_value(a5, "hit_rate"), 2.0 / 3);
  EXPECT_DOUBLE_EQ(metric_value(a5, "coverage"), 6.0 / 8);  // {0, 1, 2, 3, 4, 6}
}

// A perfect list scores 1 on NDCG and MAP; MAP divides by min(k, |R|), not |R|.
TEST(RankingAccumulator, PerfectListsAndTheMapDenominator) {
  RankingAccumulator acc({2, 4}, 10);
  acc.add({5, 6, 7, 8, 0}, {8, 7, 6, 5});
  const RankingReport r = acc.report();
  EXPECT_DOUBLE_EQ(metric_value(r.at_k[0], "map"), (1.0 / 1 + 2.0 / 2) / 2);
  EXPECT_DOUBLE_EQ(metric_value(r.at_k[0], "recall"), 2.0 / 4);
  EXPECT_DOUBLE_EQ(metric_value(r.at_k[0], "ndcg"), 1.0);
  EXPECT_DOUBLE_EQ(metric_value(r.at_k[1], "map"), 1.0);
  EXPECT_DOUBLE_EQ(metric_value(r.at_k[1], "ndcg"), 1.0);
  EXPECT_DOUBLE_EQ(metric_value(r.at_k[1], "precision"), 1.0);
  EXPECT_DOUBLE_EQ(metric_value(r.at_k[1], "coverage"), 4.0 / 10);  // the fifth entry lies past max_k
}

TEST(RankingAccumulator, NoEvaluatedUserGivesZerosInTheOrderOfKs) {
  RankingAccumulator acc({10, 1, 5}, 4);
  acc.add({0, 1}, {});
  const RankingReport r = acc.report();
  EXPECT_EQ(r.users_evaluated, 0);
  EXPECT_EQ(r.users_without_relevant, 1);
  ASSERT_EQ(r.at_k.size(), 3u);
  EXPECT_EQ(r.at_k[0].k, 10);
  EXPECT_EQ(r.at_k[1].k, 1);
  EXPECT_EQ(r.at_k[2].k, 5);
  for (const RankingAtK& a : r.at_k) {
    EXPECT_EQ(metric_value(a, "precision"), 0.0);
    EXPECT_EQ(metric_value(a, "recall"), 0.0);
    EXPECT_EQ(metric_value(a, "ndcg"), 0.0);
    EXPECT_EQ(metric_value(a, "map"), 0.0);
    EXPECT_EQ(metric_value(a, "hit_rate"), 0.0);
    EXPECT_EQ(metric_value(a, "coverage"), 0.0);
  }
}

// ---- brute force on random users ---------------------------------------------------------

TEST(RankingAccumulator, MatchesBruteForceOnRandomUsers) {
  const std::vector<int64_t> ks = {1, 3, 5, 10, 50};
  for (unsigned seed = 1; seed <= 20; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 rng(seed);
    const size_t n_items = std::uniform_int_distribution<size_t>(1, 40)(rng);
    RankingAccumulator acc(ks, static_cast<int64_t>(n_items));
    std::vector<UserMetrics> sums(ks.size());
    std::vector<std::set<int64_t>> covered(ks.size());
    int64_t evaluated = 0, skipped = 0;
    for (int user = 0; user < 30; ++user) {
      const RandomUser u = random_user(rng, n_items);
      acc.add(top_k_items(u.scores.data(), static_cast<int64_t>(n_items), acc.max_k(), u.excluded),
              u.relevant);
      const std::set<int64_t> relevant(u.relevant.begin(), u.relevant.end());
      if (relevant.empty()) {
        ++skipped;
        continue;
      }
      ++evaluated;
      const std::vector<int64_t> full = full_ranking(u.scores, u.excluded);
      for (size_t j = 0; j < ks.size(); ++j) {
        const UserMetrics m = brute_user(full, relevant, ks[j]);
        sums[j].precision += m.precision;
        sums[j].recall += m.recall;
        sums[j].ndcg += m.ndcg;
        sums[j].map += m.map;
        sums[j].hit += m.hit;
        for (size_t i = 0; i < std::min(full.size(), static_cast<size_t>(ks[j])); ++i)
          covered[j].insert(full[i]);
      }
    }
    const RankingReport r = acc.report();
    EXPECT_EQ(r.users_evaluated, evaluated);
    EXPECT_EQ(r.users_without_relevant, skipped);
    ASSERT_EQ(r.at_k.size(), ks.size());
    ASSERT_GT(evaluated, 0);
    const double users = static_cast<double>(evaluated);
    for (size_t j = 0; j < ks.size(); ++j) {
      SCOPED_TRACE("k " + std::to_string(ks[j]));
      EXPECT_EQ(r.at_k[j].k, ks[j]);
      EXPECT_NEAR(metric_value(r.at_k[j], "precision"), sums[j].precision / users, 1e-12);
      EXPECT_NEAR(metric_value(r.at_k[j], "recall"), sums[j].recall / users, 1e-12);
      EXPECT_NEAR(metric_value(r.at_k[j], "ndcg"), sums[j].ndcg / users, 1e-12);
      EXPECT_NEAR(metric_value(r.at_k[j], "map"), sums[j].map / users, 1e-12);
      EXPECT_NEAR(metric_value(r.at_k[j], "hit_rate"), sums[j].hit / users, 1e-12);
      EXPECT_DOUBLE_EQ(metric_value(r.at_k[j], "coverage"),
                       static_cast<double>(covered[j].size()) / static_cast<double>(n_items));
    }
  }
}

// ---- merge ---------------------------------------------------------------------------------

TEST(RankingAccumulator, MergeEqualsOneAccumulatorFedAllUsers) {
  const std::vector<int64_t> ks = {1, 5, 20};
  const size_t n_items = 50;
  std::mt19937 rng(7);
  RankingAccumulator all(ks, n_items), part_a(ks, n_items), part_b(ks, n_items), empty(ks, n_items);
  for (int user = 0; user < 200; ++user) {
    const RandomUser u = random_user(rng, n_items);
    const std::vector<int64_t> ranked =
        top_k_items(u.scores.data(), static_cast<int64_t>(n_items), all.max_k(), u.excluded);
    all.add(ranked, u.relevant);
    (user % 3 == 0 ? part_a : part_b).add(ranked, u.relevant);
  }
  part_a.merge(part_b);
  part_a.merge(empty);
  expect_reports_near(part_a.report(), all.report(), 1e-12);
  EXPECT_GT(all.report().users_evaluated, 0);
  EXPECT_GT(all.report().users_without_relevant, 0);
}

TEST(RankingAccumulator, MergeRejectsDifferentKsOrCatalogues) {
  RankingAccumulator acc({1, 5}, 10);
  EXPECT_THROW(acc.merge(RankingAccumulator({5, 1}, 10)), std::invalid_argument);
  EXPECT_THROW(acc.merge(RankingAccumulator({1, 5}, 11)), std::invalid_argument);
}

// ---- input checks --------------------------------------------------------------------------

TEST(RankingAccumulator, InvalidKsThrow) {
  EXPECT_THROW(RankingAccumulator({}, 10), std::invalid_argument);
  EXPECT_THROW(RankingAccumulator({0}, 10), std::invalid_argument);
  EXPECT_THROW(RankingAccumulator({5, -1}, 10), std::invalid_argument);
  EXPECT_THROW(RankingAccumulator({5}, -1), std::invalid_argument);
  EXPECT_NO_THROW(RankingAccumulator({5, 5, 1}, 0));
}

TEST(RankingAccumulator, BadItemsThrowAndAddNothing) {
  RankingAccumulator acc({2}, 4);
  EXPECT_THROW(acc.add({0, 4}, {0}), std::invalid_argument);   // ranked item outside [0, 4)
  EXPECT_THROW(acc.add({0, -1}, {0}), std::invalid_argument);  // negative ranked item
  EXPECT_THROW(acc.add({0, 1}, {9}), std::invalid_argument);   // relevant item outside [0, 4)
  EXPECT_THROW(acc.add({1, 1}, {1}), std::invalid_argument);   // repeated ranked item
  EXPECT_NO_THROW(acc.add({1, 2, 1, 7}, {1}));                 // past max_k: ignored
  const RankingReport r = acc.report();
  EXPECT_EQ(r.users_evaluated, 1);
  EXPECT_DOUBLE_EQ(metric_value(r.at_k[0], "coverage"), 2.0 / 4);
}
