/// @file
/// The symmetrically normalised adjacency of paper Eq. 1: `At = D^-1/2 A D^-1/2`,
/// D = diag(row sums of A).
///
/// Shapes: A is the side's n x n raw adjacency (EdgeList, both directions stored,
/// self-loops once and counted once in D); At is an n x n float32 SparseMatrix with the
/// same pattern. At_ij = A_ij / sqrt(d_i d_j), so At stays symmetric and its spectrum lies
/// in [-1, 1]. Nodes of degree 0 keep a zero row and column (D^-1/2 taken as 0 there).
#include <ATen/ATen.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "symgnn/error.h"
#include "symgnn/graph.h"

namespace symgnn::graph {

bool models_read_identity(const NodeSet& side) {
  return side.graph_origin == GraphOrigin::Identity || side.graph_origin == GraphOrigin::None ||
         side.links_only;
}

SparseMatrix normalized_adjacency(const NodeSet& side) {
  const int64_t n = side.count;
  if (models_read_identity(side)) return identity(n);

  const EdgeList& g = side.graph;
  const size_t m = g.size();
  if (g.src.size() != m || g.dst.size() != m)
    throw DataError("graph of " + std::to_string(n) + " nodes: src, dst and weight lists differ in length");
  // Degrees in double: a float sum over many heavy-tailed rows would lose the low bits
  // that the square roots then amplify.
  std::vector<double> degree(static_cast<size_t>(n), 0.0);
  for (size_t e = 0; e < m; ++e) {
    const int64_t s = g.src[e], d = g.dst[e];
    if (s < 0 || s >= n || d < 0 || d >= n)
      throw DataError("graph edge " + std::to_string(e) + " (" + std::to_string(s) + ", " +
                      std::to_string(d) + ") outside the " + std::to_string(n) + " nodes");
    if (!(g.weight[e] >= 0.0f) || !std::isfinite(g.weight[e]))
      throw DataError("graph edge " + std::to_string(e) + " has weight " + std::to_string(g.weight[e]) +
                      "; weights must be finite and non-negative");
    degree[static_cast<size_t>(s)] += g.weight[e];
  }
  std::vector<double> inv_sqrt(degree.size());
  for (size_t i = 0; i < degree.size(); ++i) inv_sqrt[i] = degree[i] > 0.0 ? 1.0 / std::sqrt(degree[i]) : 0.0;

  std::vector<float> values(m);
  for (size_t e = 0; e < m; ++e)
    // The degrees' product first: (s, d) and (d, s) get the same bits, so a symmetric A
    // gives an exactly symmetric At, whose transpose from_coo then stores once.
    values[e] = static_cast<float>(
        g.weight[e] * (inv_sqrt[static_cast<size_t>(g.src[e])] * inv_sqrt[static_cast<size_t>(g.dst[e])]));
  const auto len = static_cast<int64_t>(m);
  auto src = at::empty({len}, at::kLong);
  auto dst = at::empty({len}, at::kLong);
  auto val = at::empty({len}, at::kFloat);
  std::copy(g.src.begin(), g.src.end(), src.data_ptr<int64_t>());
  std::copy(g.dst.begin(), g.dst.end(), dst.data_ptr<int64_t>());
  std::copy(values.begin(), values.end(), val.data_ptr<float>());
  return from_coo(n, n, src, dst, val);
}

SparseMatrix directed_links(const NodeSet& side) {
  const EdgeList& g = side.directed;
  if (models_read_identity(side) || side.graph_origin != GraphOrigin::File || g.size() == 0) return {};
  const int64_t n = side.count;
  const auto len = static_cast<int64_t>(g.size());
  auto src = at::empty({len}, at::kLong);
  auto dst = at::empty({len}, at::kLong);
  for (size_t e = 0; e < g.size(); ++e) {
    if (g.src[e] < 0 || g.src[e] >= n || g.dst[e] < 0 || g.dst[e] >= n)
      throw DataError("directed link " + std::to_string(e) + " (" + std::to_string(g.src[e]) + ", " +
                      std::to_string(g.dst[e]) + ") outside the " + std::to_string(n) + " nodes");
    src.data_ptr<int64_t>()[e] = g.src[e];
    dst.data_ptr<int64_t>()[e] = g.dst[e];
  }
  return from_coo(n, n, src, dst, at::ones({len}, at::kFloat));
}

}  // namespace symgnn::graph
