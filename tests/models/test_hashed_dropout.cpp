// The prior encoder's dropout (models/kernels/hashed_dropout.h): its keep rate and scale, its
// backward (the same mask, to any order), repeatability under torch::manual_seed and across
// thread counts, fresh masks per call, and the cases that leave x alone.
#include <ATen/Parallel.h>
#include <gtest/gtest.h>
#include <torch/autograd.h>
#include <torch/types.h>

#include <cmath>

#include "models/kernels/hashed_dropout.h"

namespace symgnn::models {
namespace {

TEST(HashedDropout, KeepsOneMinusPOfTheElementsScaledByItsInverse) {
  torch::manual_seed(1);
  const int64_t n = 1000, m = 1001;
  for (const double p : {0.1, 0.5, 0.7}) {
    const at::Tensor x = torch::rand({n, m}, torch::kFloat) + 0.5;  // no zeros
    const at::Tensor y = hashed_dropout(x, p, true);
    ASSERT_EQ(y.sizes(), x.sizes());
    const at::Tensor kept = y != 0;
    // 1,001,000 Bernoulli draws: the standard deviation of the rate is below 5e-4.
    EXPECT_NEAR(kept.to(torch::kDouble).mean().item<double>(), 1 - p, 3e-3) << p;
    const at::Tensor ratio = y.masked_select(kept) / x.masked_select(kept);
    EXPECT_TRUE(torch::allclose(ratio, torch::full_like(ratio, 1 / (1 - p)), 1e-6, 0)) << p;
    // Neighbouring elements (consecutive counters of the hash) are not correlated.
    const at::Tensor a = kept.view(-1).narrow(0, 0, n * m - 1).to(torch::kDouble);
    const at::Tensor b = kept.view(-1).narrow(0, 1, n * m - 1).to(torch::kDouble);
    EXPECT_NEAR(((a * b).mean() - a.mean() * b.mean()).item<double>(), 0, 2e-3) << p;
  }
}

TEST(HashedDropout, TheBackwardAppliesTheForwardsMaskToAnyOrder) {
  torch::manual_seed(2);
  for (const auto type : {torch::kFloat, torch::kDouble}) {
    const at::Tensor x = (torch::rand({64, 33}, type) + 0.5).requires_grad_(true);
    const at::Tensor y = hashed_dropout(x, 0.6, true);
    const at::Tensor w = torch::randn({64, 33}, type);
    const at::Tensor g = torch::autograd::grad({(y * w).sum()}, {x}, {}, /*retain_graph=*/true,
                                               /*create_graph=*/true)[0];
    const at::Tensor factor = (y / x).detach();  // the mask times 1 / (1 - p)
    EXPECT_TRUE(torch::allclose(g, w * factor, 1e-6, 1e-12));
    // The gradient is linear in w through the same mask: d/dw of sum(g * v) is factor * v.
    const at::Tensor v = torch::randn({64, 33}, type);
    const at::Tensor w_leaf = w.clone().requires_grad_(true);
    const at::Tensor x2 = x.detach().clone().requires_grad_(true);
    torch::manual_seed(3);
    const at::Tensor y2 = hashed_dropout(x2, 0.6, true);
    const at::Tensor g2 = torch::autograd::grad({(y2 * w_leaf).sum()}, {x2}, {}, true, true)[0];
    const at::Tensor gw = torch::autograd::grad({(g2 * v).sum()}, {w_leaf})[0];
    EXPECT_TRUE(torch::allclose(gw, (y2 / x2).detach() * v, 1e-6, 1e-12));
  }
}

TEST(HashedDropout, RepeatsUnderTheSameSeedAndThreadCountAndDrawsAFreshMaskEachCall) {
  const at::Tensor x = torch::ones({300, 301}, torch::kFloat);
  const int threads = at::get_num_threads();
  at::set_num_threads(1);
  torch::manual_seed(7);
  const at::Tensor one = hashed_dropout(x, 0.5, true), next = hashed_dropout(x, 0.5, true);
  at::set_num_threads(std::max(2, threads));
  torch::manual_seed(7);
  const at::Tensor again = hashed_dropout(x, 0.5, true);
  at::set_num_threads(threads);
  EXPECT_TRUE(torch::equal(one, again));
  // Two calls: independent masks, agreeing on about half of the elements.
  const double same = (one == next).to(torch::kDouble).mean().item<double>();
  EXPECT_NEAR(same, 0.5, 0.02);
}

TEST(HashedDropout, LeavesXAloneOutOfTrainingAtZeroAndRefusesPOfOne) {
  const at::Tensor x = torch::randn({5, 4});
  EXPECT_TRUE(hashed_dropout(x, 0.7, false).is_same(x));
  EXPECT_TRUE(hashed_dropout(x, 0.0, true).is_same(x));
  EXPECT_THROW(hashed_dropout(x, 1.0, true), c10::Error);
  EXPECT_THROW(hashed_dropout(x, -0.1, true), c10::Error);
  // Other types take torch::dropout: the same keep rate and scale.
  torch::manual_seed(4);
  const at::Tensor h = torch::ones({200, 200}, torch::kBFloat16);
  const at::Tensor y = hashed_dropout(h, 0.5, true).to(torch::kFloat);
  EXPECT_NEAR((y != 0).to(torch::kDouble).mean().item<double>(), 0.5, 0.02);
  EXPECT_TRUE(torch::allclose(y.masked_select(y != 0), torch::full({1}, 2.0f)));
}

}  // namespace
}  // namespace symgnn::models
