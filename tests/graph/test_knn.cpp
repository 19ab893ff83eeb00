// Tests of src/graph/knn.cpp: the blocked k-NN graph against a brute-force O(n^2)
// reference (cosine similarity in double, ties to the lower index), symmetry, k >= n.
#include <gtest/gtest.h>
#include <torch/types.h>
#include <torch/utils.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <set>
#include <utility>
#include <vector>

#include "graph/knn_test_edges.h"
#include "symgnn/graph.h"

namespace symgnn::graph {
namespace {

using knn_test::edges_of;
using knn_test::EdgeSet;

/// Each node's k most similar others (similarity descending, index ascending) as directed
/// edges (node, neighbour), for the nodes from `first` on; with `both`, the reverse too.
EdgeSet brute_force(const at::Tensor& x, int64_t k, int64_t first = 0, bool both = true) {
  const auto xd = x.to(torch::kDouble);
  const int64_t n = xd.size(0);
  std::vector<double> norm(n);
  for (int64_t i = 0; i < n; ++i) norm[i] = std::sqrt((xd[i] * xd[i]).sum().item<double>());
  EdgeSet out;
  for (int64_t i = first; i < n; ++i) {
    std::vector<std::pair<double, int64_t>> cand;
    for (int64_t j = 0; j < n; ++j) {
      if (j == i) continue;
      const double dot = (xd[i] * xd[j]).sum().item<double>();
      const double sim = norm[i] > 0 && norm[j] > 0 ? dot / (norm[i] * norm[j]) : 0.0;
      cand.emplace_back(-sim, j);
    }
    std::sort(cand.begin(), cand.end());
    for (int64_t r = 0; r < std::min<int64_t>(k, n - 1); ++r) {
      out.emplace(i, cand[r].second);
      if (both) out.emplace(cand[r].second, i);
    }
  }
  return out;
}

void expect_well_formed(const EdgeList& g, int64_t n, int64_t k) {
  EXPECT_EQ(g.num_nodes, n);
  ASSERT_EQ(g.src.size(), g.size());
  ASSERT_EQ(g.dst.size(), g.size());
  const EdgeSet s = edges_of(g);
  EXPECT_EQ(s.size(), g.size()) << "duplicate edges";
  std::vector<int64_t> degree(n, 0);
  for (size_t e = 0; e < g.size(); ++e) {
    EXPECT_NE(g.src[e], g.dst[e]) << "self-loop";
    EXPECT_EQ(g.weight[e], 1.0f);
    EXPECT_TRUE(s.count({g.dst[e], g.src[e]})) << "missing reverse of " << g.src[e] << " -> " << g.dst[e];
    ++degree[g.src[e]];
  }
  for (int64_t i = 0; i < n; ++i) EXPECT_GE(degree[i], std::min(k, n - 1)) << "node " << i;
}

/// Rows whose cosine similarities are exact in float: m in {1, 4, 16} non-zero entries of
/// +-c (normalised entries +-1, +-1/2, +-1/4), so many similarities tie exactly; row 5
/// is zero.
at::Tensor tie_heavy_data(int64_t n, uint64_t seed) {
  std::mt19937 rng(seed);
  const int64_t d = 16;
  auto x = torch::zeros({n, d});
  for (int64_t i = 0; i < n; ++i) {
    if (i == 5) continue;
    const int64_t m = std::vector<int64_t>{1, 4, 16}[rng() % 3];
    const float c = static_cast<float>(1 + rng() % 3);
    std::vector<int64_t> cols(d);
    for (int64_t j = 0; j < d; ++j) cols[j] = j;
    std::shuffle(cols.begin(), cols.end(), rng);
    for (int64_t j = 0; j < m; ++j) x[i][cols[j]] = (rng() % 2 ? c : -c);
  }
  return x;
}

TEST(KnnGraph, MatchesBruteForceWithTiesAndAZeroRow) {
  const auto x = tie_heavy_data(40, 3);
  for (int64_t k : {1, 3, 5, 10})
    for (int64_t block : {1, 7, 1024}) {
      const EdgeList g = knn_graph(x, k, block);
      expect_well_formed(g, 40, k);
      EXPECT_EQ(edges_of(g), brute_force(x, k)) << "k " << k << ", block " << block;
    }
}

TEST(KnnGraph, MatchesBruteForceOnRandomData) {
  torch::manual_seed(5);
  auto x = torch::randn({60, 8});
  x[17].zero_();
  for (int64_t k : {2, 6}) {
    const EdgeList g = knn_graph(x, k, 16);
    expect_well_formed(g, 60, k);
    EXPECT_EQ(edges_of(g), brute_force(x, k)) << "k " << k;
  }
}

TEST(KnnGraph, DuplicateRowsTieToLowerIndex) {
  // Rows 1, 2, 3 are copies of row 0 scaled by powers of two (so that the normalised rows
  // are bitwise equal); row 4 is equally dissimilar to all four. With k = 1 every copy
  // and row 4 pick the lowest index among their tied candidates.
  auto x = torch::tensor({1.0f, 2.0f, 2.0f, 4.0f, 4.0f, 8.0f, 0.5f, 1.0f, -1.0f, 0.0f}).view({5, 2});
  const EdgeSet s = edges_of(knn_graph(x, 1));
  const EdgeSet expected = {{0, 1}, {1, 0}, {2, 0}, {0, 2}, {3, 0}, {0, 3}, {4, 0}, {0, 4}};
  EXPECT_EQ(s, expected);
  EXPECT_EQ(s, brute_force(x, 1));
}

TEST(KnnGraph, BlockSizeDoesNotChangeTheResult) {
  torch::manual_seed(6);
  const auto x = torch::randn({50, 5});
  const EdgeList a = knn_graph(x, 4, 3);
  const EdgeList b = knn_graph(x, 4, 50);
  EXPECT_EQ(a.src, b.src);
  EXPECT_EQ(a.dst, b.dst);
}

TEST(KnnGraph, LargeKGivesTheCompleteGraph) {
  torch::manual_seed(7);
  const auto x = torch::randn({6, 3});
  for (int64_t k : {5, 6, 100}) {
    const EdgeList g = knn_graph(x, k);
    EXPECT_EQ(g.size(), 30u) << "k " << k;
    expect_well_formed(g, 6, k);
  }
}

TEST(KnnGraph, TinyInputs) {
  EXPECT_EQ(knn_graph(torch::randn({1, 3}), 3).size(), 0u);
  EXPECT_EQ(knn_graph(torch::randn({1, 3}), 3).num_nodes, 1);
  EXPECT_EQ(knn_graph(torch::randn({0, 3}), 3).size(), 0u);
  EXPECT_EQ(knn_graph(torch::randn({2, 3}), 1).size(), 2u);
}

TEST(KnnGraph, DoubleInputAndBadArguments) {
  const auto x = tie_heavy_data(20, 9);
  EXPECT_EQ(edges_of(knn_graph(x.to(torch::kDouble), 3)), brute_force(x, 3));
  EXPECT_THROW(knn_graph(x, 0), c10::Error);
  EXPECT_THROW(knn_graph(x, 3, 0), c10::Error);
  EXPECT_THROW(knn_graph(torch::randn({4}), 3), c10::Error);
}

TEST(KnnOutEdges, LinksTheLastRowsToTheirNearestAndNothingBack) {
  const auto x = tie_heavy_data(40, 4);  // row 5 is zero
  for (int64_t first : {0, 30, 39, 40})
    for (int64_t k : {1, 4})
      for (int64_t block : {3, 1024}) {
        const EdgeList g = knn_out_edges(x, first, k, block);
        EXPECT_EQ(g.num_nodes, 40);
        EdgeSet expected = brute_force(x, k, first, /*both=*/false);
        for (auto it = expected.begin(); it != expected.end();)
          it = it->first == 5 ? expected.erase(it) : ++it;
        EXPECT_EQ(edges_of(g), expected) << "first " << first << ", k " << k << ", block " << block;
        for (size_t e = 0; e < g.size(); ++e) EXPECT_GE(g.src[e], first);
      }
  EXPECT_EQ(knn_out_edges(x, 2, 3).size(), 3u * 38u - 3u);  // every row from 2 but the zero row 5
  EXPECT_THROW(knn_out_edges(x, 41, 3), c10::Error);
}

TEST(KnnOutEdges, NewNodesOfARatingGraphLinkToTheirNearestByRatingRows) {
  // Users 0..5 rated in training; users 6 and 7 arrive later. The k-NN graph of rating rows
  // is resolved before they arrive; link_new_nodes then adds their rows only.
  Dataset ds;
  ds.users.count = 6;
  ds.items.count = 4;
  const float r[8][4] = {{5, 5, 0, 0}, {4, 5, 1, 0}, {0, 0, 5, 4}, {1, 0, 4, 5},
                         {5, 0, 0, 5}, {0, 5, 5, 0}, {5, 4, 0, 0}, {0, 0, 0, 0}};
  for (int64_t u = 0; u < 6; ++u)
    for (int64_t i = 0; i < 4; ++i)
      if (r[u][i] > 0) ds.train.add(u, i, r[u][i]);
  GraphConfig cfg;
  cfg.user_graph = "knn";
  cfg.item_graph = "identity";
  cfg.knn_source = "ratings";
  cfg.knn_k = 2;
  resolve_graphs(ds, cfg);
  const EdgeList trained = ds.users.graph;
  ds.users.count = 8;
  for (int64_t i = 0; i < 4; ++i)
    if (r[6][i] > 0) ds.train.add(6, i, r[6][i]);
  std::string how;
  EXPECT_EQ(link_new_nodes(ds, true, 6, cfg, &how), 2);  // user 7 has no ratings: no edges
  EXPECT_EQ(how, "2-NN of the rating rows");
  EXPECT_EQ(ds.users.graph.num_nodes, 8);
  ASSERT_EQ(ds.users.graph.size(), trained.size() + 2);
  for (size_t e = 0; e < trained.size(); ++e) EXPECT_EQ(ds.users.graph.src[e], trained.src[e]);
  auto rows = torch::zeros({8, 4});
  for (int64_t u = 0; u < 7; ++u)
    for (int64_t i = 0; i < 4; ++i) rows[u][i] = r[u][i];
  EdgeSet added;
  for (size_t e = trained.size(); e < ds.users.graph.size(); ++e)
    added.emplace(ds.users.graph.src[e], ds.users.graph.dst[e]);
  EXPECT_EQ(added, brute_force(rows.slice(0, 0, 7), 2, 6, false));
  EXPECT_EQ(added, (EdgeSet{{6, 0}, {6, 1}}));
  EXPECT_EQ(link_new_nodes(ds, false, 4, cfg), 0);  // the identity has no rows to add
}

}  // namespace
}  // namespace symgnn::graph
