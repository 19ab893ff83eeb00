// Tests of src/graph/normalize.cpp: At = D^-1/2 A D^-1/2 against a brute-force dense
// computation in double, on hand-built graphs with isolated nodes and self-loops.
#include <gtest/gtest.h>
#include <torch/types.h>

#include <cmath>
#include <random>

#include "symgnn/error.h"
#include "symgnn/graph.h"

namespace symgnn::graph {
namespace {

NodeSet file_side(int64_t n) {
  NodeSet s;
  s.count = n;
  s.graph.num_nodes = n;
  s.graph_origin = GraphOrigin::File;
  return s;
}

void add_undirected(EdgeList& g, int64_t u, int64_t v, float w) {
  g.add(u, v, w);
  if (u != v) g.add(v, u, w);
}

/// The definition, densely and in double: A from the edge list, d = row sums,
/// At_ij = A_ij / sqrt(d_i d_j), zero where d_i or d_j is zero.
at::Tensor brute_force(const NodeSet& s) {
  const int64_t n = s.count;
  auto a = torch::zeros({n, n}, torch::kDouble);
  for (size_t e = 0; e < s.graph.size(); ++e)
    a[s.graph.src[e]][s.graph.dst[e]] += static_cast<double>(s.graph.weight[e]);
  auto at = torch::zeros({n, n}, torch::kDouble);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) {
      const double di = a[i].sum().item<double>(), dj = a[j].sum().item<double>();
      if (di > 0 && dj > 0) at[i][j] = a[i][j].item<double>() / std::sqrt(di * dj);
    }
  return at;
}

void expect_matches_brute_force(const NodeSet& s) {
  const SparseMatrix at = normalized_adjacency(s);
  EXPECT_EQ(at.values.scalar_type(), torch::kFloat);
  EXPECT_FALSE(at.identity);
  const auto dense = at.to_dense().to(torch::kDouble);
  EXPECT_FALSE(dense.isnan().any().item<bool>());
  EXPECT_TRUE(torch::allclose(dense, brute_force(s), 1e-6, 1e-7)) << dense << "\n" << brute_force(s);
}

TEST(NormalizedAdjacency, PathWithIsolatedNodeAndSelfLoop) {
  NodeSet s = file_side(5);  // 0 - 1 - 2 with a self-loop on 1 and a weighted edge 2 - 3; 4 isolated
  add_undirected(s.graph, 0, 1, 1.0f);
  add_undirected(s.graph, 1, 2, 2.0f);
  add_undirected(s.graph, 2, 3, 0.5f);
  add_undirected(s.graph, 1, 1, 3.0f);
  expect_matches_brute_force(s);
  const auto dense = normalized_adjacency(s).to_dense();
  EXPECT_TRUE(torch::equal(dense[4], torch::zeros({5})));
  EXPECT_TRUE(torch::equal(dense.select(1, 4), torch::zeros({5})));
  // Row 1 by hand: d1 = 1 + 2 + 3 = 6, d0 = 1, d2 = 2.5.
  EXPECT_NEAR(dense[1][1].item<float>(), 3.0 / 6.0, 1e-6);
  EXPECT_NEAR(dense[1][0].item<float>(), 1.0 / std::sqrt(6.0 * 1.0), 1e-6);
  EXPECT_NEAR(dense[1][2].item<float>(), 2.0 / std::sqrt(6.0 * 2.5), 1e-6);
}

TEST(NormalizedAdjacency, TriangleAndStar) {
  NodeSet tri = file_side(3);
  add_undirected(tri.graph, 0, 1, 1.0f);
  add_undirected(tri.graph, 1, 2, 1.0f);
  add_undirected(tri.graph, 0, 2, 1.0f);
  expect_matches_brute_force(tri);
  NodeSet star = file_side(6);
  for (int64_t leaf = 1; leaf < 6; ++leaf) add_undirected(star.graph, 0, leaf, static_cast<float>(leaf));
  expect_matches_brute_force(star);
}

TEST(NormalizedAdjacency, OnlySelfLoopsGiveTheIdentityPattern) {
  NodeSet s = file_side(3);
  s.graph.add(0, 0, 2.0f);
  s.graph.add(2, 2, 5.0f);
  expect_matches_brute_force(s);
  EXPECT_TRUE(
      torch::allclose(normalized_adjacency(s).to_dense(), torch::diag(torch::tensor({1.0f, 0.0f, 1.0f}))));
}

TEST(NormalizedAdjacency, NoEdgesGivesZerosNotNaN) {
  const NodeSet s = file_side(4);
  const SparseMatrix at = normalized_adjacency(s);
  EXPECT_EQ(at.nnz(), 0);
  EXPECT_TRUE(torch::equal(at.to_dense(), torch::zeros({4, 4})));
}

TEST(NormalizedAdjacency, SymmetricWithSpectrumInMinusOneOne) {
  std::mt19937 rng(11);
  std::uniform_int_distribution<int64_t> node(0, 39);  // nodes 40..44 stay isolated
  std::uniform_real_distribution<float> weight(0.1f, 3.0f);
  NodeSet s = file_side(45);
  for (int e = 0; e < 150; ++e) add_undirected(s.graph, node(rng), node(rng), weight(rng));
  expect_matches_brute_force(s);
  const auto dense = normalized_adjacency(s).to_dense().to(torch::kDouble);
  EXPECT_TRUE(torch::allclose(dense, dense.t(), 0, 1e-7));
  const auto eig = at::linalg_eigvalsh(dense);
  EXPECT_GE(eig.min().item<double>(), -1.0 - 1e-6);
  EXPECT_LE(eig.max().item<double>(), 1.0 + 1e-6);
  // A graph with edges has the eigenvalue 1 (eigenvector D^1/2 1 on a component).
  EXPECT_NEAR(eig.max().item<double>(), 1.0, 1e-6);
}

TEST(NormalizedAdjacency, AnUndirectedGraphIsExactlySymmetricAndStoredOnce) {
  // Each pair once in each direction: At_ij and At_ji must be the same float, so that
  // from_coo keeps one copy of At for its transpose (half a context's graph bytes).
  std::mt19937 rng(12);
  std::uniform_real_distribution<float> weight(0.1f, 3.0f);
  NodeSet s = file_side(60);
  for (int64_t u = 0; u < 50; ++u)
    for (int64_t v = u; v < 50; ++v)
      if ((u * 7 + v * 13) % 9 == 0) add_undirected(s.graph, u, v, weight(rng));
  expect_matches_brute_force(s);
  const SparseMatrix at = normalized_adjacency(s);
  EXPECT_TRUE(torch::equal(at.to_dense(), at.to_dense().t()));
  EXPECT_TRUE(at.t_col_idx.is_same(at.col_idx));
  EXPECT_TRUE(at.t_values.is_same(at.values));
}

TEST(NormalizedAdjacency, IdentityAndNoneGiveTheIdentity) {
  NodeSet s;
  s.count = 7;
  s.graph_origin = GraphOrigin::Identity;
  EXPECT_TRUE(normalized_adjacency(s).identity);
  EXPECT_EQ(normalized_adjacency(s).rows, 7);
  s.graph_origin = GraphOrigin::None;
  EXPECT_TRUE(normalized_adjacency(s).identity);
}

TEST(NormalizedAdjacency, KnnOriginIsNormalisedLikeAFileGraph) {
  NodeSet s = file_side(3);
  s.graph_origin = GraphOrigin::Knn;
  add_undirected(s.graph, 0, 1, 1.0f);
  add_undirected(s.graph, 1, 2, 1.0f);
  expect_matches_brute_force(s);
}

TEST(NormalizedAdjacency, RejectsBadEdges) {
  NodeSet s = file_side(3);
  s.graph.add(0, 3, 1.0f);
  EXPECT_THROW(normalized_adjacency(s), DataError);
  NodeSet neg = file_side(3);
  add_undirected(neg.graph, 0, 1, -1.0f);
  EXPECT_THROW(normalized_adjacency(neg), DataError);
}

}  // namespace
}  // namespace symgnn::graph
