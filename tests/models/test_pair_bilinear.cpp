// The fused per-pair bilinear forms of the class decoder (models/kernels/pair_bilinear.h)
// against the composite index_select reference: values, gradients (and central
// differences), thread counts, repeated pairs, and ids outside the tables.
#include <ATen/Parallel.h>
#include <gtest/gtest.h>
#include <torch/autograd.h>
#include <torch/types.h>
#include <torch/utils.h>

#include "lowrank_test_util.h"
#include "models/kernels/pair_bilinear.h"

namespace symgnn::models {
namespace {

struct BilinearProblem {
  at::Tensor p, v, users, items, w;
};

/// n1 x nb x d and n2 x d tables, k pairs with repeats (more pairs than cells for small n).
BilinearProblem random_problem(int64_t n1, int64_t n2, int64_t nb, int64_t d, int64_t k, torch::Dtype dtype) {
  BilinearProblem pr;
  pr.p = torch::randn({n1, nb, d}, dtype).requires_grad_(true);
  pr.v = torch::randn({n2, d}, dtype).requires_grad_(true);
  pr.users = torch::randint(n1, {k}, torch::kLong);
  pr.items = torch::randint(n2, {k}, torch::kLong);
  pr.w = torch::randn({k, nb}, dtype);
  return pr;
}

TEST(PairBilinear, ValuesAndGradientsEqualTheCompositeReference) {
  torch::manual_seed(3);
  // 20,000 pairs: more than one parallel chunk, so the per-chunk reduction is exercised.
  for (const int threads : {1, 2}) {
    at::set_num_threads(threads);
    BilinearProblem pr = random_problem(40, 30, 3, 7, 20000, torch::kDouble);
    const at::Tensor fused = pair_bilinear(pr.p, pr.v, pr.users, pr.items);
    const at::Tensor ref = pair_bilinear_composite(pr.p, pr.v, pr.users, pr.items);
    EXPECT_TRUE(torch::allclose(fused, ref, 1e-12, 1e-12)) << threads << " thread(s)";
    const auto gf = torch::autograd::grad({(fused * pr.w).sum()}, {pr.p, pr.v});
    const auto gr = torch::autograd::grad({(ref * pr.w).sum()}, {pr.p, pr.v});
    EXPECT_TRUE(torch::allclose(gf[0], gr[0], 1e-10, 1e-10)) << "dP, " << threads << " thread(s)";
    EXPECT_TRUE(torch::allclose(gf[1], gr[1], 1e-10, 1e-10)) << "dV, " << threads << " thread(s)";
  }
  at::set_num_threads(1);
}

TEST(PairBilinear, GradientsMatchCentralDifferences) {
  torch::manual_seed(4);
  BilinearProblem pr = random_problem(4, 3, 2, 3, 9, torch::kDouble);
  auto f = [&] { return (pair_bilinear(pr.p, pr.v, pr.users, pr.items) * pr.w).sum(); };
  testing::expect_gradient_matches(f, pr.p, "dP");
  testing::expect_gradient_matches(f, pr.v, "dV");
}

TEST(PairBilinear, FloatMatchesDoubleAndEmptyBatchesWork) {
  torch::manual_seed(5);
  BilinearProblem pr = random_problem(50, 60, 4, 16, 5000, torch::kDouble);
  const at::Tensor d = pair_bilinear(pr.p, pr.v, pr.users, pr.items);
  const at::Tensor f = pair_bilinear(pr.p.to(torch::kFloat), pr.v.to(torch::kFloat), pr.users, pr.items);
  EXPECT_EQ(f.scalar_type(), torch::kFloat);
  EXPECT_LT((f.to(torch::kDouble) - d).abs().max().item<double>(), 1e-4);
  const at::Tensor none = torch::empty({0}, torch::kLong);
  EXPECT_EQ(pair_bilinear(pr.p, pr.v, none, none).sizes(), (std::vector<int64_t>{0, 4}));
}

TEST(PairBilinear, IdsOutsideTheTablesAndBadShapesAreErrors) {
  torch::manual_seed(6);
  BilinearProblem pr = random_problem(5, 4, 2, 3, 10, torch::kDouble);
  at::Tensor bad = pr.users.clone();
  bad[3] = 5;
  EXPECT_THROW(pair_bilinear(pr.p, pr.v, bad, pr.items), c10::Error);
  bad[3] = -1;
  EXPECT_THROW(pair_bilinear(pr.p, pr.v, bad, pr.items), c10::Error);
  EXPECT_THROW(pair_bilinear(pr.p, pr.v.narrow(1, 0, 2), pr.users, pr.items), c10::Error);
  EXPECT_THROW(pair_bilinear(pr.p, pr.v, pr.users.to(torch::kInt), pr.items), c10::Error);
}

}  // namespace
}  // namespace symgnn::models
