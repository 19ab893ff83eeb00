// class_spmm (src/models/kernels/class_spmm.h): each layout's values and gradients, first
// and second order, equal the composite of graph::spmm per class (against a dense product
// too), in double and in float at the row lengths with their own code and one without, at
// one and two threads.
#include <ATen/Parallel.h>
#include <gtest/gtest.h>
#include <torch/autograd.h>
#include <torch/types.h>
#include <torch/utils.h>

#include <string>
#include <utility>
#include <vector>

#include "lowrank_test_util.h"
#include "models/kernels/class_spmm.h"

namespace symgnn::models {
namespace {

const ClassLayout kLayouts[] = {ClassLayout::kBlocks, ClassLayout::kBroadcast, ClassLayout::kSum};

std::string name(ClassLayout layout) {
  return layout == ClassLayout::kBlocks ? "blocks" : layout == ClassLayout::kBroadcast ? "broadcast" : "sum";
}

/// K classes of a random partial n x m matrix with weights, as dense matrices; row 0 empty.
std::vector<at::Tensor> dense_classes(int64_t n, int64_t m, int64_t classes, at::ScalarType type) {
  const at::Tensor observed = torch::rand({n, m}, torch::kDouble) < 0.3;
  observed[0].fill_(false);
  const at::Tensor cls = torch::randint(0, classes, {n, m}, torch::kLong);
  std::vector<at::Tensor> h;
  for (int64_t k = 0; k < classes; ++k)
    h.push_back(((observed & (cls == k)).to(torch::kDouble) * torch::rand({n, m}, torch::kDouble)).to(type));
  return h;
}

std::vector<graph::SparseMatrix> sparse(const std::vector<at::Tensor>& dense) {
  std::vector<graph::SparseMatrix> out;
  for (const auto& hk : dense) out.push_back(testing::sparse_of(hk));
  return out;
}

/// The input of a layout for classes of n x m with rows of d.
at::Tensor input(ClassLayout layout, int64_t classes, int64_t m, int64_t d, at::ScalarType type) {
  switch (layout) {
    case ClassLayout::kBlocks: return torch::randn({m, classes * d}, type);
    case ClassLayout::kBroadcast: return torch::randn({m, d}, type);
    default: return torch::randn({classes, m, d}, type);
  }
}

/// The layout with dense products.
at::Tensor dense_product(const std::vector<at::Tensor>& h, const at::Tensor& x, ClassLayout layout) {
  const auto classes = static_cast<int64_t>(h.size());
  std::vector<at::Tensor> parts;
  for (int64_t k = 0; k < classes; ++k) {
    const at::Tensor& hk = h[static_cast<size_t>(k)];
    if (layout == ClassLayout::kBlocks) {
      const int64_t d = x.size(1) / classes;
      parts.push_back(hk.mm(x.narrow(1, k * d, d)));
    } else {
      parts.push_back(hk.mm(layout == ClassLayout::kBroadcast ? x : x[k]));
    }
  }
  if (layout == ClassLayout::kBlocks) return torch::cat(parts, 1);
  if (layout == ClassLayout::kBroadcast) return torch::stack(parts, 0);
  return torch::stack(parts, 0).sum(0);
}

TEST(ClassSpmm, EachLayoutMatchesTheDenseProductAndTheComposite) {
  torch::manual_seed(1);
  const int64_t classes = 3;
  // 23 x 17: every layout but the sum gathers; 40 x 2600: the input is the larger table
  // wherever it has the 2600 rows, and is scattered from the transposes, in two ranges at
  // two threads.
  for (const auto& [n, m] : {std::pair<int64_t, int64_t>{23, 17}, std::pair<int64_t, int64_t>{40, 2600}})
    for (const auto type : {torch::kDouble, torch::kFloat}) {
      const auto h = dense_classes(n, m, classes, type);
      const auto hs = sparse(h);
      const double tol = type == torch::kDouble ? 1e-12 : 1e-4;  // float: sums of up to 2,300 terms
      for (const int64_t d : {int64_t{32}, int64_t{16}, int64_t{64}, int64_t{5}}) {
        for (const ClassLayout layout : kLayouts) {
          for (const int threads : {1, 2}) {
            at::set_num_threads(threads);
            const at::Tensor x = input(layout, classes, m, d, type);
            const at::Tensor fused = class_spmm(hs, x, layout);
            const std::string what = std::to_string(n) + " x " + std::to_string(m) + " " + name(layout) +
                                     " d=" + std::to_string(d) + " " + std::string(c10::toString(type)) +
                                     " threads=" + std::to_string(threads);
            EXPECT_TRUE(torch::allclose(fused, class_spmm_composite(hs, x, layout), tol, tol)) << what;
            EXPECT_TRUE(torch::allclose(fused, dense_product(h, x, layout), tol, tol)) << what;
          }
        }
      }
    }
  at::set_num_threads(1);
}

TEST(ClassSpmm, GradientsOfFirstAndSecondOrderMatchTheComposite) {
  torch::manual_seed(2);
  const int64_t classes = 3, d = 4;
  // 11 x 9 gathers both ways; 30 x 7 scatters the blocks' backward and the broadcast's.
  for (const auto& [n, m] : {std::pair<int64_t, int64_t>{11, 9}, std::pair<int64_t, int64_t>{30, 7}})
    for (const ClassLayout layout : kLayouts) {
      const auto hs = sparse(dense_classes(n, m, classes, torch::kDouble));
      const at::Tensor x0 = input(layout, classes, m, d, torch::kDouble);
      const at::Tensor w = torch::randn_like(class_spmm_composite(hs, x0, layout));
      // f(x) = sum(w * y^2): its gradient depends on x, so the second order is not trivial.
      auto grads = [&](bool fused) {
        const at::Tensor x = x0.clone().requires_grad_();
        const at::Tensor y = fused ? class_spmm(hs, x, layout) : class_spmm_composite(hs, x, layout);
        const at::Tensor g = torch::autograd::grad({(w * y * y).sum()}, {x}, {}, true, true)[0];
        g.sum().backward();
        return std::make_pair(g.detach(), x.grad());
      };
      const auto [g1, gg1] = grads(true);
      const auto [g0, gg0] = grads(false);
      EXPECT_TRUE(torch::allclose(g1, g0, 1e-12, 1e-12)) << name(layout);
      EXPECT_TRUE(torch::allclose(gg1, gg0, 1e-12, 1e-12)) << name(layout) << ": second order";
      const at::Tensor x = x0.clone().requires_grad_();
      testing::expect_gradient_matches([&] { return (w * class_spmm(hs, x, layout)).sum(); }, x,
                                       name(layout));
    }
}

TEST(ClassSpmm, RejectsShapesThatDisagree) {
  const auto hs = sparse(dense_classes(5, 4, 2, torch::kFloat));
  EXPECT_THROW(class_spmm(hs, torch::randn({4, 7}), ClassLayout::kBlocks), c10::Error);     // 7 not 2 d
  EXPECT_THROW(class_spmm(hs, torch::randn({5, 3}), ClassLayout::kBroadcast), c10::Error);  // 5 rows, not 4
  EXPECT_THROW(class_spmm(hs, torch::randn({3, 4, 3}), ClassLayout::kSum), c10::Error);  // 3 classes, not 2
  EXPECT_THROW(class_spmm({}, torch::randn({4, 3}), ClassLayout::kBroadcast), c10::Error);
}

}  // namespace
}  // namespace symgnn::models
