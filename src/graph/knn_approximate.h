/// @file
/// The k-NN graph of feature rows by an approximate index (HNSW, hnswlib), for sides too
/// large for the exact, quadratic search of knn.cpp (graph.knn_exact_max, resolve.cpp).
///
/// Same similarity as knn_graph (cosine: inner products of unit-normalised rows, zero rows
/// 0 to everything) and the same symmetric union; each row's k neighbours are the k best the
/// index finds, ordered by (similarity descending, index ascending). Deterministic: rows are
/// inserted in index order on one thread with a fixed seed, so the index and the graph are
/// the same for every thread count; only the queries run in parallel. The exact knn_graph is
/// its oracle (tests/graph/test_knn_approximate.cpp, bench/bench_knn.cpp for recall).
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>

#include "symgnn/graph.h"

namespace symgnn::graph {

/// HNSW's settings: M links per node per layer, the candidate list while building and while
/// searching (at least k + 1). The defaults give recall@10 about 0.99 on 100-dimensional data
/// (bench/bench_knn.cpp).
struct HnswSettings {
  int64_t m = 16;
  int64_t ef_construction = 200;
  int64_t ef_search = 100;
  uint64_t seed = 100;
};

/// Directed approximate k-NN lists: n x k row indices (row i's neighbours at [i k, i k + k)),
/// never i itself; rows with fewer than k others get n - 1.
std::vector<int64_t> approximate_neighbours(const at::Tensor& x, int64_t k, const HnswSettings& hnsw = {});

/// The symmetric k-NN graph of the rows of x (n x d) from approximate_neighbours.
EdgeList knn_graph_approximate(const at::Tensor& x, int64_t k, const HnswSettings& hnsw = {});

}  // namespace symgnn::graph
