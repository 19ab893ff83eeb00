// Tests of src/graph/knn_approximate.cpp: the HNSW k-NN lists against the exact knn_graph
// (recall, counting ties at the k-th similarity as found), one index for every thread
// count, a well-formed symmetric graph, and resolve_graphs taking it over graph.knn_exact_max.
#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <utility>
#include <vector>

#include "graph/knn_approximate.h"
#include "symgnn/config.h"
#include "symgnn/graph.h"

namespace symgnn::graph {
namespace {

/// n points around 20 random centres in d dimensions (features of a catalogue: groups of
/// similar items), float.
at::Tensor clustered(int64_t n, int64_t d, uint64_t seed) {
  at::manual_seed(seed);
  const at::Tensor centres = at::randn({20, d});
  const at::Tensor which = at::randint(0, 20, {n}, at::kLong);
  return centres.index_select(0, which) + 0.3 * at::randn({n, d});
}

/// Fraction of the approximate neighbours that are at least as similar as the exact k-th
/// neighbour of their row (brute force in double: ties with the k-th count as found).
double recall(const at::Tensor& x, const std::vector<int64_t>& approx, int64_t k) {
  const at::Tensor xd = x.to(at::kDouble);
  const at::Tensor xn = xd / xd.norm(2, {1}, true).clamp_min(1e-12);
  at::Tensor s = xn.mm(xn.t());
  s.fill_diagonal_(-2.0);
  const at::Tensor kth = std::get<0>(s.topk(k, 1)).select(1, k - 1);
  const int64_t n = x.size(0);
  int64_t good = 0;
  for (int64_t i = 0; i < n; ++i) {
    const double bar = kth[i].item<double>() - 1e-9;
    for (int64_t r = 0; r < k; ++r)
      good += s[i][approx[static_cast<size_t>(i * k + r)]].item<double>() >= bar;
  }
  return static_cast<double>(good) / static_cast<double>(n * k);
}

TEST(KnnApproximate, FindsTheExactNeighbours) {
  const at::Tensor x = clustered(1500, 16, 3);
  const std::vector<int64_t> nb = approximate_neighbours(x, 10);
  ASSERT_EQ(nb.size(), 1500u * 10u);
  for (int64_t i = 0; i < 1500; ++i) {
    std::set<int64_t> row(nb.begin() + i * 10, nb.begin() + i * 10 + 10);
    EXPECT_EQ(row.size(), 10u) << "row " << i << " lists a neighbour twice";
    EXPECT_EQ(row.count(i), 0u) << "row " << i << " lists itself";
  }
  EXPECT_GE(recall(x, nb, 10), 0.98);
}

TEST(KnnApproximate, SameListsForEveryThreadCount) {
  const at::Tensor x = clustered(800, 8, 5);
  const int threads = at::get_num_threads();
  at::set_num_threads(1);
  const std::vector<int64_t> one = approximate_neighbours(x, 5);
  at::set_num_threads(2);
  const std::vector<int64_t> two = approximate_neighbours(x, 5);
  at::set_num_threads(threads);
  EXPECT_EQ(one, two);
}

TEST(KnnApproximate, SymmetricGraphWithoutSelfLoops) {
  const at::Tensor x = clustered(400, 6, 7);
  const EdgeList g = knn_graph_approximate(x, 4);
  EXPECT_EQ(g.num_nodes, 400);
  std::set<std::pair<int64_t, int64_t>> edges;
  std::vector<int64_t> degree(400, 0);
  for (size_t e = 0; e < g.size(); ++e) {
    EXPECT_NE(g.src[e], g.dst[e]);
    EXPECT_EQ(g.weight[e], 1.0f);
    edges.emplace(g.src[e], g.dst[e]);
    ++degree[static_cast<size_t>(g.src[e])];
  }
  EXPECT_EQ(edges.size(), g.size()) << "duplicate edges";
  for (const auto& [a, b] : edges)
    EXPECT_EQ(edges.count({b, a}), 1u) << a << " -> " << b << " without its reverse";
  for (int64_t i = 0; i < 400; ++i) EXPECT_GE(degree[static_cast<size_t>(i)], 4) << "node " << i;
  // Nothing to choose: the complete graph, as knn_graph gives.
  const at::Tensor few = clustered(4, 3, 1);
  EXPECT_EQ(knn_graph_approximate(few, 3).size(), 12u);
  EXPECT_EQ(knn_graph_approximate(few.slice(0, 0, 1), 3).size(), 0u);
}

TEST(KnnApproximate, ZeroRowsAndTooFewOthers) {
  at::Tensor x = clustered(50, 4, 9);
  x[7].zero_();  // similarity 0 to everything: still k distinct neighbours
  const std::vector<int64_t> nb = approximate_neighbours(x, 3);
  const std::set<int64_t> row(nb.begin() + 21, nb.begin() + 24);
  EXPECT_EQ(row.size(), 3u);
  EXPECT_EQ(row.count(7), 0u);
  EXPECT_EQ(approximate_neighbours(x.slice(0, 0, 3), 5).size(), 3u * 2u);  // n - 1 each
  EXPECT_THROW(approximate_neighbours(x, 0), c10::Error);
}

TEST(KnnApproximate, ResolveUsesItOverTheExactLimit) {
  const at::Tensor f = clustered(300, 5, 11);
  Dataset ds;
  ds.name = "wide";
  ds.users.count = 2;
  ds.users.graph.num_nodes = 2;
  ds.items.count = 300;
  ds.items.graph.num_nodes = 300;
  ds.items.features.rows = 300;
  ds.items.features.cols = 5;
  ds.items.features.values.assign(f.data_ptr<float>(), f.data_ptr<float>() + f.numel());
  ds.train.add(0, 0, 4.0f);
  ds.train.add(1, 1, 3.0f);
  GraphConfig cfg;
  cfg.user_graph = "identity";
  cfg.item_graph = "knn";
  cfg.knn_k = 5;
  Dataset exact = ds, approximate = ds;
  cfg.knn_exact_max = 300;  // at the limit: exact
  EXPECT_TRUE(resolve_graphs(exact, cfg).empty());
  const EdgeList want = knn_graph(f, 5);
  EXPECT_EQ(exact.items.graph.src, want.src);
  EXPECT_EQ(exact.items.graph.dst, want.dst);
  cfg.knn_exact_max = 299;  // over it: the index, said
  const std::vector<std::string> notes = resolve_graphs(approximate, cfg);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("300 nodes, over graph.knn_exact_max = 299"), std::string::npos) << notes[0];
  const EdgeList hnsw = knn_graph_approximate(f, 5);
  EXPECT_EQ(approximate.items.graph_origin, GraphOrigin::Knn);
  EXPECT_EQ(approximate.items.graph.src, hnsw.src);
  EXPECT_EQ(approximate.items.graph.dst, hnsw.dst);
}

}  // namespace
}  // namespace symgnn::graph
