// A graph's directed edges as a set, what the k-NN tests compare against brute force.
#pragma once

#include <cstdint>
#include <set>
#include <utility>

#include "symgnn/graph.h"

namespace symgnn::graph::knn_test {

using EdgeSet = std::set<std::pair<int64_t, int64_t>>;

/// The (src, dst) pairs of `g`.
inline EdgeSet edges_of(const EdgeList& g) {
  EdgeSet s;
  for (size_t e = 0; e < g.size(); ++e) s.emplace(g.src[e], g.dst[e]);
  return s;
}

}  // namespace symgnn::graph::knn_test
