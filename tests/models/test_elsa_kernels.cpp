// The item-based ranker's kernels against autograd's composites: the Gram matrix with its
// one-product backward (models/kernels/gram.h), the unit rows (models/kernels/unit_rows.h)
// and the graph step (models/kernels/graph_step.h):
// values, gradients for upstream gradients of any shape, central differences, clamped rows.
#include <gtest/gtest.h>
#include <torch/autograd.h>
#include <torch/types.h>
#include <torch/utils.h>

#include <functional>

#include "models/kernels/gram.h"
#include "models/kernels/graph_step.h"
#include "models/kernels/unit_rows.h"

namespace symgnn::models {
namespace {

/// `loss`'s autograd gradient at x0 [n, f] against central differences (h = 1e-6), each entry
/// within 1e-5 relative (absolute below 1).
void expect_gradient_matches_central_differences(const std::function<at::Tensor(const at::Tensor&)>& loss,
                                                 const at::Tensor& x0) {
  const at::Tensor x = x0.clone().requires_grad_(true);
  const at::Tensor grad = torch::autograd::grad({loss(x)}, {x})[0];
  const double h = 1e-6;
  at::NoGradGuard no_grad;
  for (int64_t i = 0; i < x0.size(0); ++i)
    for (int64_t j = 0; j < x0.size(1); ++j) {
      at::Tensor up = x0.clone(), down = x0.clone();
      up[i][j] += h;
      down[i][j] -= h;
      const double numeric = (loss(up) - loss(down)).item<double>() / (2 * h);
      EXPECT_NEAR(grad[i][j].item<double>(), numeric, 1e-5 * std::max(1.0, std::abs(numeric)))
          << i << "," << j;
    }
}

TEST(Gram, ValuesAndGradientEqualAutogradsProduct) {
  torch::manual_seed(5);
  const at::Tensor f = torch::randn({37, 6}, torch::kDouble).requires_grad_(true);
  // A weight that is not symmetric: the backward must add dG and its transpose.
  const at::Tensor w = torch::randn({6, 6}, torch::kDouble);
  const at::Tensor g = gram(f);
  const at::Tensor ref = f.t().mm(f);
  EXPECT_TRUE(torch::allclose(g, ref, 1e-12, 1e-12));
  const at::Tensor dg = torch::autograd::grad({(g * w).sum()}, {f})[0];
  const at::Tensor dref = torch::autograd::grad({(ref * w).sum()}, {f})[0];
  EXPECT_TRUE(torch::allclose(dg, dref, 1e-12, 1e-12)) << (dg - dref).abs().max().item<double>();
}

TEST(Gram, GradientMatchesCentralDifferences) {
  torch::manual_seed(6);
  const at::Tensor f = torch::randn({9, 4}, torch::kDouble);
  const at::Tensor w = torch::randn({4, 4}, torch::kDouble);
  // A loss nonlinear in G, as the ranker's (normalised by |S_u|) is.
  const auto loss = [&](const at::Tensor& x) { return (gram(x) * w).sum().pow(2) + gram(x).pow(2).sum(); };
  expect_gradient_matches_central_differences(loss, f);
}

TEST(Gram, RefusesAnythingButAMatrix) {
  EXPECT_THROW(gram(torch::randn({3, 4, 5})), c10::Error);
}

TEST(UnitRows, ValuesAndGradientEqualAutogradsComposite) {
  torch::manual_seed(7);
  at::Tensor x = torch::randn({23, 5}, torch::kDouble);
  // A zero row and a tiny one: the norm is clamped there, and the row is x / eps.
  x[3].zero_();
  x[11] *= 1e-14;
  x.requires_grad_(true);
  const at::Tensor w = torch::randn({23, 5}, torch::kDouble);
  const at::Tensor y = unit_rows(x);
  const at::Tensor ref = x / x.norm(2, {1}, true).clamp_min(1e-12);
  EXPECT_TRUE(torch::allclose(y, ref, 1e-12, 1e-12));
  const at::Tensor dy = torch::autograd::grad({(y * w).sum()}, {x})[0];
  const at::Tensor dref = torch::autograd::grad({(ref * w).sum()}, {x})[0];
  // Relative: the clamped rows' gradients are of size 1 / eps.
  EXPECT_TRUE(torch::allclose(dy, dref, 1e-10, 1e-10)) << (dy - dref).abs().max().item<double>();
  EXPECT_GT(dy[11].abs().max().item<double>(), 1e6);
}

TEST(UnitRows, GradientMatchesCentralDifferences) {
  torch::manual_seed(8);
  const at::Tensor x0 = torch::randn({6, 4}, torch::kDouble);
  const at::Tensor w = torch::randn({4, 4}, torch::kDouble);
  // Through the Gram matrix, as the ranker's loss reads the unit rows.
  const auto loss = [&](const at::Tensor& x) { return (gram(unit_rows(x)) * w).sum().pow(2); };
  expect_gradient_matches_central_differences(loss, x0);
}

TEST(GraphStep, ValuesAndGradientEqualAutogradsComposite) {
  torch::manual_seed(9);
  // A directed graph (A != A^T, so the backward must use the transpose), a node without edges.
  const at::Tensor row = torch::tensor({0, 0, 1, 2, 2, 3, 5, 5}, torch::kLong);
  const at::Tensor col = torch::tensor({1, 3, 2, 0, 5, 3, 1, 2}, torch::kLong);
  const graph::SparseMatrix a = graph::from_coo(
      6, 6, row, col, torch::tensor({0.5, 0.5, 1.0, 0.3, 0.7, 1.0, 0.4, 0.6}, torch::kDouble));
  const at::Tensor x = torch::randn({6, 3}, torch::kDouble).requires_grad_(true);
  const at::Tensor w = torch::randn({6, 3}, torch::kDouble);
  for (const double beta : {0.3, 1.0}) {
    const at::Tensor y = graph_step(a, x, beta);
    const at::Tensor ref = (1 - beta) * x + beta * a.to_dense().mm(x);
    EXPECT_TRUE(torch::allclose(y, ref, 1e-12, 1e-12)) << beta;
    const at::Tensor dy = torch::autograd::grad({(y * w).sum()}, {x})[0];
    const at::Tensor dref = torch::autograd::grad({(ref * w).sum()}, {x})[0];
    EXPECT_TRUE(torch::allclose(dy, dref, 1e-12, 1e-12)) << beta;
  }
  // beta = 0 and the identity graph are x itself.
  EXPECT_TRUE(torch::equal(graph_step(a, x, 0.0), x));
  EXPECT_TRUE(torch::equal(graph_step(graph::identity(6), x, 0.3), x));
  EXPECT_THROW(graph_step(a, torch::randn({5, 3}, torch::kDouble), 0.3), c10::Error);
}

}  // namespace
}  // namespace symgnn::models
