// A random Douban-sized rating problem shared by the model benchmarks: symmetric random
// graphs with ~`degree` neighbours per node and distinct random ratings in 1..5.
#pragma once

#include <random>
#include <vector>

#include "symgnn/dataset.h"
#include "symgnn/model.h"

namespace bench {

/// Symmetric random graph with about `degree` neighbours per node, as a Dataset side.
inline symgnn::NodeSet random_side(int64_t n, int64_t degree, std::mt19937& gen) {
  symgnn::NodeSet side;
  side.count = n;
  side.graph.num_nodes = n;
  std::uniform_int_distribution<int64_t> node(0, n - 1);
  for (int64_t u = 0; u < n; ++u)
    for (int64_t e = 0; e < degree / 2; ++e) {
      const int64_t v = node(gen);
      if (v == u) continue;
      side.graph.add(u, v, 1.0f);
      side.graph.add(v, u, 1.0f);
    }
  side.graph_origin = symgnn::GraphOrigin::File;
  return side;
}

inline symgnn::models::ModelContext random_context(int64_t n1, int64_t n2, int64_t ratings) {
  std::mt19937 gen(42);
  symgnn::Dataset ds;
  ds.name = "bench";
  ds.users = random_side(n1, 20, gen);
  ds.items = random_side(n2, 20, gen);
  // Distinct pairs: a random sample of cells without replacement.
  std::vector<int64_t> cells(static_cast<size_t>(n1 * n2));
  for (size_t i = 0; i < cells.size(); ++i) cells[i] = static_cast<int64_t>(i);
  std::uniform_int_distribution<int> rating(1, 5);
  for (int64_t e = 0; e < ratings; ++e) {
    std::uniform_int_distribution<int64_t> pick(e, static_cast<int64_t>(cells.size()) - 1);
    std::swap(cells[static_cast<size_t>(e)], cells[static_cast<size_t>(pick(gen))]);
    const int64_t c = cells[static_cast<size_t>(e)];
    ds.train.add(c / n2, c % n2, static_cast<float>(rating(gen)));
  }
  ds.rating_levels = {1, 2, 3, 4, 5};
  ds.rating_min = 1;
  ds.rating_max = 5;
  return symgnn::models::make_context(ds);
}

}  // namespace bench
