// The item k-NN member (models/baseline/similar_items.h, neighbour_residuals.h) against a
// brute force over every pair of items and every rating: the shrunk Pearson similarities,
// the k kept, the transpose, and the member's pairs and rows.
#include <ATen/Parallel.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>

#include "models/baseline/neighbour_residuals.h"
#include "models/baseline/similar_items.h"

namespace sm = symgnn::models;

namespace {

struct Residuals {
  int64_t n1 = 30, n2 = 25;
  symgnn::RatingList ratings;
  sm::Biases b;
  std::map<std::pair<int64_t, int64_t>, double> e;  // (user, item) -> residual
};

Residuals make_residuals(uint32_t seed) {
  Residuals r;
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> unit(0, 1);
  r.b.mu = 3.4;
  for (int64_t u = 0; u < r.n1; ++u) r.b.user.push_back(unit(rng) - 0.5);
  for (int64_t i = 0; i < r.n2; ++i) r.b.item.push_back(unit(rng) - 0.5);
  for (int64_t u = 0; u < r.n1; ++u)
    for (int64_t i = 0; i < r.n2; ++i)
      if (unit(rng) < 0.4) {
        // Items of the same parity rated alike by a user: positive similarities to find.
        const double taste = (u % 3 == 0 ? 1.0 : -0.5) * (i % 2 == 0 ? 1.0 : -1.0);
        const auto v =
            static_cast<float>(std::clamp(std::round(3 + taste + 1.2 * (unit(rng) - 0.5)), 1.0, 5.0));
        r.ratings.add(u, i, v);
        r.e[{u, i}] = v - r.b.predict(u, i);
      }
  return r;
}

/// s_ij by brute force over the users, as similar_items.h defines it.
double brute_similarity(const Residuals& r, int64_t i, int64_t j) {
  double xy = 0, xx = 0, yy = 0, n = 0;
  for (int64_t u = 0; u < r.n1; ++u) {
    const auto a = r.e.find({u, i}), b = r.e.find({u, j});
    if (a == r.e.end() || b == r.e.end()) continue;
    xy += a->second * b->second, xx += a->second * a->second, yy += b->second * b->second, n += 1;
  }
  if (n < 2 || xx <= 0 || yy <= 0) return 0;
  return xy / std::sqrt(xx * yy) * (n - 1) / (n - 1 + sm::kSimilarityShrinkage);
}

}  // namespace

TEST(SimilarItems, EachItemKeepsItsKLargestShrunkCorrelations) {
  const Residuals r = make_residuals(3);
  const int64_t k = 4;
  const sm::NeighbourResiduals idx(r.ratings, r.b, {}, {}, k);
  ASSERT_TRUE(idx.has_similar_items());
  const sm::SparseRows& s = idx.similar_items();
  ASSERT_EQ(s.rows(), r.n2);
  int64_t kept = 0;
  for (int64_t i = 0; i < r.n2; ++i) {
    std::vector<std::pair<double, int64_t>> want;
    for (int64_t j = 0; j < r.n2; ++j) {
      if (j == i) continue;
      if (const double v = brute_similarity(r, i, j); v > 0) want.emplace_back(-v, j);
    }
    std::sort(want.begin(), want.end());  // largest first, ties by the lower index
    if (static_cast<int64_t>(want.size()) > k) want.resize(static_cast<size_t>(k));
    std::map<int64_t, double> got;
    for (int64_t p = s.ptr[static_cast<size_t>(i)]; p < s.ptr[static_cast<size_t>(i) + 1]; ++p) {
      if (p > s.ptr[static_cast<size_t>(i)]) {
        EXPECT_LT(s.idx[static_cast<size_t>(p) - 1], s.idx[static_cast<size_t>(p)]);
      }
      got[s.idx[static_cast<size_t>(p)]] = s.value[static_cast<size_t>(p)];
    }
    ASSERT_EQ(got.size(), want.size()) << "item " << i;
    for (const auto& [neg, j] : want) {
      ASSERT_TRUE(got.count(j)) << i << " should keep " << j;
      EXPECT_NEAR(got[j], -neg, 1e-12);
    }
    kept += static_cast<int64_t>(got.size());
  }
  EXPECT_GT(kept, r.n2 * 2);  // the check saw full neighbourhoods
}

TEST(SimilarItems, TheSameAtAnyThreadCount) {
  const Residuals r = make_residuals(5);
  const int before = at::get_num_threads();
  at::set_num_threads(1);
  const sm::NeighbourResiduals one(r.ratings, r.b, {}, {}, 3);
  at::set_num_threads(std::max(2, before));
  const sm::NeighbourResiduals many(r.ratings, r.b, {}, {}, 3);
  at::set_num_threads(before);
  EXPECT_EQ(one.similar_items().ptr, many.similar_items().ptr);
  EXPECT_EQ(one.similar_items().idx, many.similar_items().idx);
  EXPECT_EQ(one.similar_items().value, many.similar_items().value);
}

TEST(SimilarItems, TransposeAndCoRatedPairs) {
  sm::SparseRows rows;
  rows.ptr = {0, 2, 2, 3};
  rows.idx = {1, 3, 0};
  rows.value = {0.5, 0.25, 0.75};
  const sm::SparseRows t = sm::transpose(rows, 4);
  const std::vector<int64_t> ptr = {0, 1, 2, 2, 3}, idx = {2, 0, 0};
  const std::vector<double> value = {0.75, 0.5, 0.25};
  EXPECT_EQ(t.ptr, ptr);
  EXPECT_EQ(t.idx, idx);
  EXPECT_EQ(t.value, value);
  EXPECT_DOUBLE_EQ(sm::co_rated_pairs(rows), 2.0 * 2 + 0 + 1);
  // No neighbourhoods where k is 0.
  const Residuals r = make_residuals(1);
  EXPECT_FALSE(sm::NeighbourResiduals(r.ratings, r.b, {}, {}, 0).has_similar_items());
}

TEST(SimilarItems, PairsAndRowsOfTheMemberAreTheWeightedShrunkMeans) {
  const Residuals r = make_residuals(9);
  const int64_t k = 5;
  const sm::NeighbourResiduals idx(r.ratings, r.b, {}, {}, k);
  const sm::SparseRows& s = idx.similar_items();
  const double lambda = 0.5;
  const sm::NeighbourWeights w{0, 1, 0, 1, 0.8, lambda};
  int covered = 0;
  for (int64_t u = 0; u < r.n1; ++u) {
    std::vector<float> row(static_cast<size_t>(r.n2), 0.0f);
    idx.add_row(u, w, row.data(), r.n2);
    for (int64_t i = 0; i < r.n2; ++i) {
      double sum = 0, weight = 0;
      for (int64_t p = s.ptr[static_cast<size_t>(i)]; p < s.ptr[static_cast<size_t>(i) + 1]; ++p)
        if (const auto it = r.e.find({u, s.idx[static_cast<size_t>(p)]}); it != r.e.end())
          sum += s.value[static_cast<size_t>(p)] * it->second, weight += s.value[static_cast<size_t>(p)];
      const sm::NeighbourSum got = idx.knn_sum(u, i);
      EXPECT_NEAR(got.sum, sum, 1e-12);
      EXPECT_NEAR(got.count, weight, 1e-12);
      const double want = weight > 0 ? 0.8 * sum / (lambda + weight) : 0.0;
      EXPECT_NEAR(row[static_cast<size_t>(i)], want, 1e-5) << u << "," << i;
      covered += weight > 0;
    }
  }
  EXPECT_GT(covered, r.n1 * r.n2 / 2);
  // Beyond the index: no term.
  EXPECT_EQ(idx.knn_sum(0, r.n2 + 2).count, 0);
  EXPECT_EQ(idx.knn_sum(r.n1 + 2, 0).count, 0);
}
