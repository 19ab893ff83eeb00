// Helpers shared by the low-rank model tests: finite-difference gradient checks and a
// tiny hand-built dataset.
#pragma once

#include <gtest/gtest.h>
#include <torch/autograd.h>
#include <torch/types.h>
#include <torch/utils.h>

#include <functional>
#include <random>
#include <string>

#include "symgnn/dataset.h"
#include "symgnn/graph.h"

namespace symgnn::testing {

/// Compares d f / d p from autograd with central differences (step 1e-6) for every entry
/// of `p` (a leaf in double that requires grad). `f` must return a scalar.
inline void expect_gradient_matches(const std::function<at::Tensor()>& f, const at::Tensor& p,
                                    const std::string& what, double rel_tol = 1e-6) {
  ASSERT_EQ(p.scalar_type(), torch::kDouble) << what;
  const at::Tensor analytic = torch::autograd::grad({f()}, {p}, {}, /*retain_graph=*/false,
                                                    /*create_graph=*/false, /*allow_unused=*/true)[0];
  ASSERT_TRUE(analytic.defined()) << what << ": no gradient";
  torch::NoGradGuard no_grad;
  at::Tensor flat = p.detach().view({-1});  // shares p's storage
  const at::Tensor a = analytic.reshape({-1});
  const double scale = std::max(1.0, a.abs().max().item<double>());
  const double h = 1e-6;
  for (int64_t i = 0; i < flat.numel(); ++i) {
    const double x0 = flat[i].item<double>();
    flat[i] = x0 + h;
    const double up = f().item<double>();
    flat[i] = x0 - h;
    const double down = f().item<double>();
    flat[i] = x0;
    const double numeric = (up - down) / (2 * h);
    EXPECT_NEAR(a[i].item<double>(), numeric, rel_tol * scale) << what << " entry " << i;
  }
}

/// A random weighted sum, so that every output entry matters to the checked gradient.
inline at::Tensor weighted_sum(const at::Tensor& y, const at::Tensor& w) {
  return (y * w).sum();
}

/// D^-1/2 A D^-1/2 of a dense symmetric A (reference for graph::normalized_adjacency).
inline at::Tensor dense_normalized(const at::Tensor& a) {
  const at::Tensor deg = a.sum(1);
  const at::Tensor inv = torch::where(deg > 0, deg.rsqrt(), torch::zeros_like(deg));
  return inv.unsqueeze(1) * a * inv.unsqueeze(0);
}

/// A random symmetric 0/1 graph on n nodes without self-loops, as a dense matrix.
inline at::Tensor random_graph(int64_t n, double p, torch::Dtype dtype) {
  at::Tensor a = (torch::rand({n, n}, torch::kDouble) < p).to(dtype).triu(1);
  return a + a.t();
}

/// A dense matrix as a SparseMatrix with the same dtype.
inline graph::SparseMatrix sparse_of(const at::Tensor& dense) {
  const at::Tensor nz = dense.nonzero();  // nnz x 2
  const at::Tensor r = nz.select(1, 0).contiguous(), c = nz.select(1, 1).contiguous();
  return graph::from_coo(dense.size(0), dense.size(1), r, c, dense.index({r, c}));
}

/// n1 x n2 ratings in 1..5 at `count` distinct random positions, graphs from files
/// (users) and the identity (items), optional side features on both sides.
inline Dataset tiny_dataset(int64_t n1, int64_t n2, int64_t count, bool features, unsigned seed) {
  std::mt19937 gen(seed);
  Dataset ds;
  ds.name = "tiny";
  ds.users.count = n1;
  ds.items.count = n2;
  std::vector<int64_t> cells(static_cast<size_t>(n1 * n2));
  for (size_t i = 0; i < cells.size(); ++i) cells[i] = static_cast<int64_t>(i);
  std::shuffle(cells.begin(), cells.end(), gen);
  std::uniform_int_distribution<int> rating(1, 5);
  for (int64_t e = 0; e < count; ++e)
    ds.train.add(cells[static_cast<size_t>(e)] / n2, cells[static_cast<size_t>(e)] % n2,
                 static_cast<float>(rating(gen)));
  ds.rating_levels = {1, 2, 3, 4, 5};
  ds.rating_min = 1;
  ds.rating_max = 5;
  ds.users.graph.num_nodes = n1;
  for (int64_t u = 0; u < n1; ++u) {  // a ring: every node has two neighbours
    const int64_t v = (u + 1) % n1;
    ds.users.graph.add(u, v, 1.0f);
    ds.users.graph.add(v, u, 1.0f);
  }
  ds.users.graph_origin = GraphOrigin::File;
  ds.items.graph_origin = GraphOrigin::Identity;
  if (features) {
    std::normal_distribution<float> normal;
    for (NodeSet* side : {&ds.users, &ds.items}) {
      side->features.rows = side->count;
      side->features.cols = 3;
      for (int64_t i = 0; i < side->count * 3; ++i) side->features.values.push_back(normal(gen));
    }
  }
  return ds;
}

}  // namespace symgnn::testing
