/// @file
/// What the exact (knn.cpp) and approximate (knn_approximate.cpp) k-NN graphs share: the
/// unit-normalised rows they compare, the graph where nothing is left to choose, and the
/// symmetric union of the directed lists.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>

#include "symgnn/graph.h"

namespace symgnn::graph::knn_detail {

/// x / max(||x_i||, 1e-12) row by row, as floats (a zero row stays zero: similarity 0).
at::Tensor unit_rows(const at::Tensor& x);

/// The k-NN graph of n <= 1 nodes, or of k >= n - 1: no edge, or every pair once each way.
EdgeList trivial_graph(int64_t n);

/// A symmetric EdgeList over n nodes holding (s, d) and (d, s) for every directed pair,
/// sorted by (src, dst), each once, weight 1.
EdgeList symmetric_union(int64_t n, const at::Tensor& s_all, const at::Tensor& d_all);

}  // namespace symgnn::graph::knn_detail
