// The k-NN graph over sparse rows (graph.knn_source = ratings): equal to a brute-force
// reference computed the same way (cosine of unit rows in double, ties to the lower index,
// zero rows at similarity 0), with zero rows, duplicate rows (exact ties) and negative
// values; and to the dense path on continuous data.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <random>
#include <set>
#include <utility>
#include <vector>

#include "common/test_support.h"
#include "graph/knn_test_edges.h"
#include "symgnn/dataset.h"
#include "symgnn/graph.h"

namespace symgnn::graph {
namespace {

using knn_test::edges_of;
using knn_test::EdgeSet;
using Dense = std::vector<std::vector<float>>;

SparseRows sparse_of(const Dense& m, int64_t cols) {
  SparseRows x;
  x.cols = cols;
  for (const auto& row : m) {
    for (int64_t c = 0; c < cols; ++c)
      if (row[c] != 0.0f) x.col.push_back(c), x.value.push_back(row[c]);
    x.row_ptr.push_back(static_cast<int64_t>(x.col.size()));
  }
  return x;
}

/// Directed k-NN edges of rows first.. by the reference rule; `both` adds the reverses.
EdgeSet reference(const Dense& m, int64_t k, int64_t first = 0, bool both = true, bool skip_zero = false) {
  const auto n = static_cast<int64_t>(m.size());
  const size_t d = m.empty() ? 0 : m[0].size();
  std::vector<std::vector<double>> unit(n, std::vector<double>(d));
  std::vector<bool> zero(n, true);
  for (int64_t i = 0; i < n; ++i) {
    double sq = 0;
    for (float v : m[i]) sq += static_cast<double>(v) * v, zero[i] = zero[i] && v == 0.0f;
    for (size_t c = 0; c < d; ++c) unit[i][c] = m[i][c] * (1.0 / std::max(std::sqrt(sq), 1e-12));
  }
  EdgeSet out;
  for (int64_t i = first; i < n; ++i) {
    if (skip_zero && zero[i]) continue;
    std::vector<std::pair<double, int64_t>> cand;
    for (int64_t j = 0; j < n; ++j) {
      if (j == i) continue;
      double s = 0;
      for (size_t c = 0; c < d; ++c)
        if (m[i][c] != 0.0f && m[j][c] != 0.0f) s += unit[i][c] * unit[j][c];
      cand.emplace_back(-s, j);
    }
    std::sort(cand.begin(), cand.end());
    for (int64_t r = 0; r < std::min<int64_t>(k, static_cast<int64_t>(cand.size())); ++r) {
      out.emplace(i, cand[r].second);
      if (both) out.emplace(cand[r].second, i);
    }
  }
  return out;
}

/// Ratings-like rows: integer stars on a random few columns, some rows empty, some copied
/// (exact ties), optionally negative values.
Dense random_rows(int64_t n, int64_t d, double density, uint32_t seed, bool negative) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(0, 1);
  Dense m(n, std::vector<float>(d, 0.0f));
  for (int64_t i = 0; i < n; ++i) {
    if (i % 7 == 3) continue;  // zero row
    if (i % 11 == 5 && i > 0) {
      m[i] = m[i - 1];  // a copy: every similarity to it ties with its twin's
      continue;
    }
    for (int64_t c = 0; c < d; ++c)
      if (u(rng) < density)
        m[i][c] =
            static_cast<float>(1 + static_cast<int>(u(rng) * 5)) * (negative && u(rng) < 0.3 ? -1.f : 1.f);
  }
  return m;
}

}  // namespace

TEST(SparseKnn, EqualsBruteForceWithZeroRowsAndTies) {
  for (uint32_t seed : {1u, 2u, 3u})
    for (bool negative : {false, true})
      for (int64_t k : {1, 3, 6}) {
        const Dense m = random_rows(40, 25, 0.15, seed, negative);
        const SparseRows x = sparse_of(m, 25);
        EXPECT_EQ(edges_of(knn_graph(x, k)), reference(m, k)) << seed << " " << negative << " " << k;
        EXPECT_EQ(edges_of(knn_out_edges(x, 30, k)), reference(m, k, 30, false, true)) << seed << " " << k;
      }
}

TEST(SparseKnn, MatchesTheDensePathAndItsEdgeCases) {
  // Continuous values: no near ties, so float32 (dense) and double (sparse) agree.
  at::manual_seed(0);
  const at::Tensor t = at::randn({60, 12}) * (at::rand({60, 12}) < 0.5).to(at::kFloat);
  Dense m(60, std::vector<float>(12));
  for (int64_t i = 0; i < 60; ++i)
    for (int64_t c = 0; c < 12; ++c) m[i][c] = t[i][c].item<float>();
  const SparseRows x = sparse_of(m, 12);
  for (int64_t k : {1, 4, 10}) {
    const EdgeList sparse = knn_graph(x, k), dense = knn_graph(t, k);
    EXPECT_EQ(sparse.src, dense.src) << k;
    EXPECT_EQ(sparse.dst, dense.dst) << k;
    EXPECT_EQ(sparse.weight, dense.weight) << k;
    EXPECT_EQ(edges_of(knn_out_edges(x, 50, k)), edges_of(knn_out_edges(t, 50, k))) << k;
  }
  EXPECT_EQ(knn_graph(sparse_of({{1, 0}}, 2), 3).size(), 0u);
  EXPECT_EQ(knn_graph(sparse_of({{1, 0}, {0, 1}, {1, 1}}, 2), 5).size(), 6u);  // k >= n - 1: complete
  EXPECT_EQ(knn_out_edges(sparse_of({{1, 0}, {0, 0}}, 2), 1, 3).size(), 0u);   // a zero query row
  EXPECT_THROW(knn_graph(x, 0), c10::Error);
}

}  // namespace symgnn::graph

namespace symgnn::graph {
namespace {

// configs/ml100k_lowrank.conf and ml100k_base.conf build their graphs from the training
// rating rows of ML-100K u1. The sparse path sums in double where the dense one multiplied
// in float32, so a neighbour list may differ, but only where two candidates for the k-th
// place are equally similar up to float32 rounding.
TEST(SparseKnn, MovieLensRatingRowNeighboursDifferFromTheDenseFloatPathOnlyAtTies) {
  SYMGNN_REQUIRE_DATA("ml-100k/u1.base");
  DataConfig dc;
  dc.source = testing::data_dir() + "/ml-100k";
  const Dataset ds = load_dataset(dc);
  at::Tensor h = at::zeros({ds.users.count, ds.items.count}, at::kFloat);
  auto acc = h.accessor<float, 2>();
  for (size_t e = 0; e < ds.train.size(); ++e) acc[ds.train.user[e]][ds.train.item[e]] = ds.train.value[e];
  const int64_t k = 10;
  for (bool user_side : {true, false}) {
    const at::Tensor x = user_side ? h : h.t().contiguous();
    const int64_t n = x.size(0);
    const auto xa = x.accessor<float, 2>();
    SparseRows rows;
    rows.cols = x.size(1);
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = 0; j < x.size(1); ++j)
        if (const float v = xa[i][j]; v != 0.0f) rows.col.push_back(j), rows.value.push_back(v);
      rows.row_ptr.push_back(static_cast<int64_t>(rows.col.size()));
    }
    // Exact cosine similarities, in double.
    const at::Tensor xd = x.to(at::kDouble);
    const at::Tensor unit = xd / xd.norm(2, {1}, true).clamp_min(1e-12);
    const at::Tensor sim = unit.mm(unit.t());
    const auto sa = sim.accessor<double, 2>();
    const EdgeList sparse = knn_out_edges(rows, 0, k), dense = knn_out_edges(x, 0, k);
    std::vector<std::set<int64_t>> a(static_cast<size_t>(n)), b(static_cast<size_t>(n));
    for (size_t e = 0; e < sparse.size(); ++e) a[static_cast<size_t>(sparse.src[e])].insert(sparse.dst[e]);
    for (size_t e = 0; e < dense.size(); ++e) b[static_cast<size_t>(dense.src[e])].insert(dense.dst[e]);
    int64_t differing = 0;
    for (int64_t i = 0; i < n; ++i) {
      const auto& si = a[static_cast<size_t>(i)];
      const auto& di = b[static_cast<size_t>(i)];
      if (si == di) continue;
      ++differing;
      ASSERT_EQ(si.size(), di.size()) << i;
      // The k-th best exact similarity of row i (itself left out).
      std::vector<double> others;
      for (int64_t j = 0; j < n; ++j)
        if (j != i) others.push_back(sa[i][j]);
      std::nth_element(others.begin(), others.begin() + (k - 1), others.end(), std::greater<double>());
      const double kth = others[static_cast<size_t>(k - 1)];
      for (const auto* side : {&si, &di})
        for (int64_t j : *side)
          if (!(side == &si ? di : si).count(j)) {
            EXPECT_NEAR(sa[i][j], kth, 1e-6) << (user_side ? "user " : "item ") << i << " neighbour " << j;
          }
    }
    EXPECT_LE(differing, n / 100) << (user_side ? "users" : "items");  // ties are rare
  }
}

}  // namespace
}  // namespace symgnn::graph
