// The Sylvester solvers (src/models/sylvester/): agreement with an explicit Kronecker
// solve, what each Krylov method makes monotone, a = 0, isolated nodes, bad arguments.
#include <ATen/ATen.h>
#include <gtest/gtest.h>
#include <torch/cuda.h>

#include <cmath>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "models/sylvester/sylvester.h"
#include "symgnn/error.h"

namespace syl = symgnn::models::sylvester;
using symgnn::graph::SparseMatrix;

namespace {

/// A random symmetric graph on n nodes (edge probability p, weights in (0.5, 2)), the
/// last `isolated` nodes without edges, normalised as At = D^-1/2 A D^-1/2 (isolated
/// rows and columns stay 0). Returns the float CSR matrix and its exact dense double copy.
std::pair<SparseMatrix, at::Tensor> random_at(int64_t n, double p, uint64_t seed, int64_t isolated = 0) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  at::Tensor a = at::zeros({n, n}, at::kDouble);
  auto acc = a.accessor<double, 2>();
  for (int64_t i = 0; i < n - isolated; ++i)
    for (int64_t j = i + 1; j < n - isolated; ++j)
      if (u(rng) < p) acc[i][j] = acc[j][i] = 0.5 + 1.5 * u(rng);
  const at::Tensor deg = a.sum(1);
  const at::Tensor dinv = at::where(deg > 0, deg.rsqrt(), at::zeros_like(deg));
  const at::Tensor at_dense = (dinv.unsqueeze(1) * a * dinv.unsqueeze(0)).to(at::kFloat);
  const at::Tensor nz = at_dense.nonzero();  // k x 2
  const at::Tensor rows = nz.select(1, 0).contiguous(), cols = nz.select(1, 1).contiguous();
  SparseMatrix m = symgnn::graph::from_coo(n, n, rows, cols, at_dense.index({rows, cols}));
  return {m, at_dense.to(at::kDouble)};  // the reference uses the float-rounded values
}

/// X from the explicit system (I - a At2 (x) At1) vec X = (1-a) vec H, column-major vec.
at::Tensor kronecker_solve(const at::Tensor& d1, const at::Tensor& d2, const at::Tensor& h, double a) {
  const int64_t n1 = h.size(0), n2 = h.size(1);
  const at::Tensor l = at::eye(n1 * n2, at::kDouble) - a * at::kron(d2, d1);
  const at::Tensor b = (1.0 - a) * h.t().reshape({-1, 1});  // column-major vec
  return at::linalg_solve(l, b).reshape({n2, n1}).t();
}

at::Tensor random_h(int64_t n1, int64_t n2, uint64_t seed) {
  at::manual_seed(seed);
  return at::randn({n1, n2}, at::kDouble);
}

double rel_diff(const at::Tensor& x, const at::Tensor& ref) {
  return (x - ref).norm().item<double>() / ref.norm().item<double>();
}

const std::vector<std::string> kSolvers = {"fixed_point", "cg", "cr", "exact"};

}  // namespace

// (n1, n2, a, isolated users, identity item graph)
class SylvesterAgreement : public ::testing::TestWithParam<
                               std::tuple<std::string, std::tuple<int64_t, int64_t, double, int64_t, bool>>> {
};

TEST_P(SylvesterAgreement, MatchesDenseKroneckerSolve) {
  const auto& [solver, shape] = GetParam();
  const auto& [n1, n2, a, isolated, item_identity] = shape;
  auto [at1, d1] = random_at(n1, 0.25, 11 + n1, isolated);
  auto [at2, d2] = random_at(n2, 0.3, 29 + n2);
  if (item_identity) {
    at2 = symgnn::graph::identity(n2);
    d2 = at::eye(n2, at::kDouble);
  }
  const at::Tensor h = random_h(n1, n2, 3);
  syl::SolverOptions opts;
  opts.alpha = a;
  opts.tol = 1e-13;
  opts.max_iter = 100000;
  const syl::SolverResult r = syl::solve(solver, at1, at2, h, opts);
  const at::Tensor ref = kronecker_solve(d1, d2, h, a);
  EXPECT_EQ(r.x.scalar_type(), at::kDouble);
  EXPECT_EQ(r.x.sizes(), h.sizes());
  EXPECT_LT(rel_diff(r.x, ref), 1e-8) << solver;
  EXPECT_LE(r.relative_residual, 1e-12) << solver;
  EXPECT_TRUE(r.converged);
  EXPECT_EQ(r.solver, solver);
  EXPECT_GE(r.seconds, 0.0);
  EXPECT_GE(r.operator_applications, 1);
}

INSTANTIATE_TEST_SUITE_P(
    AllSolvers, SylvesterAgreement,
    ::testing::Combine(::testing::ValuesIn(kSolvers),
                       ::testing::Values(std::make_tuple(int64_t{30}, int64_t{20}, 0.8, int64_t{0}, false),
                                         std::make_tuple(int64_t{12}, int64_t{30}, 0.5, int64_t{0}, false),
                                         std::make_tuple(int64_t{25}, int64_t{25}, 0.95, int64_t{4}, false),
                                         std::make_tuple(int64_t{30}, int64_t{7}, 0.9, int64_t{2}, true))));

TEST(SylvesterSolvers, AgreeWithEachOtherAtTheDefaultTolerance) {
  auto [at1, d1] = random_at(30, 0.2, 5);
  auto [at2, d2] = random_at(28, 0.2, 6);
  const at::Tensor h = random_h(30, 28, 7);
  syl::SolverOptions opts;  // a = 0.8, tol = 1e-8
  const at::Tensor ref = syl::solve_exact(at1, at2, h, opts).x;
  for (const auto& s : kSolvers) {
    const auto r = syl::solve(s, at1, at2, h, opts);
    EXPECT_LE(r.relative_residual, 1e-8) << s;
    // error <= kappa * residual, kappa <= (1 + a) / (1 - a) = 9
    EXPECT_LT(rel_diff(r.x, ref), 9e-8) << s;
  }
}

// CG minimises ||X_k - X*||_L over the Krylov space, so the energy norm of the error is
// monotone; the 2-norm of CG's residual is not guaranteed to be (see the next tests).
TEST(ConjugateGradient, EnergyNormOfErrorDecreasesMonotonically) {
  auto [at1, d1] = random_at(20, 0.3, 41);
  auto [at2, d2] = random_at(15, 0.3, 42);
  const at::Tensor h = random_h(20, 15, 43);
  const double a = 0.95;
  const at::Tensor l = at::eye(20 * 15, at::kDouble) - a * at::kron(d2, d1);
  const at::Tensor x_star = kronecker_solve(d1, d2, h, a);
  std::vector<double> energy;
  syl::SolverOptions opts;
  opts.alpha = a;
  opts.tol = 1e-12;
  opts.on_iteration = [&](int64_t, const at::Tensor& x, double) {
    const at::Tensor e = (x - x_star).t().reshape({-1, 1});
    energy.push_back(std::sqrt(at::mm(e.t(), at::mm(l, e)).item<double>()));
  };
  const auto r = syl::solve_conjugate_gradient(at1, at2, h, opts);
  ASSERT_GE(energy.size(), 5u);
  // Until the error reaches rounding level, each step must strictly reduce it.
  for (size_t k = 1; k < energy.size(); ++k)
    if (energy[k - 1] > 1e-12 * energy[0]) {
      EXPECT_LT(energy[k], energy[k - 1]) << "step " << k;
    }
  EXPECT_LE(r.relative_residual, 1e-12);
}

// Conjugate residual is the Krylov method whose residual 2-norm cannot increase.
TEST(ConjugateResidual, ResidualNormDecreasesMonotonically) {
  auto [at1, d1] = random_at(30, 0.15, 51, 3);
  auto [at2, d2] = random_at(30, 0.15, 52);
  const at::Tensor h = random_h(30, 30, 53);
  std::vector<double> residuals;
  syl::SolverOptions opts;
  opts.alpha = 0.99;
  opts.tol = 1e-12;
  opts.on_iteration = [&](int64_t, const at::Tensor&, double rel) { residuals.push_back(rel); };
  const auto r = syl::solve_conjugate_residual(at1, at2, h, opts);
  ASSERT_GE(residuals.size(), 5u);
  for (size_t k = 1; k < residuals.size(); ++k) EXPECT_LE(residuals[k], residuals[k - 1] * (1 + 1e-12)) << k;
  EXPECT_TRUE(r.converged);
}

// What the issue literally asks ("residual decreases monotonically for CG") holds on these
// small SPD systems but is not a theorem; the guarantee is the energy-norm test above.
TEST(ConjugateGradient, ResidualNormDecreasesOnTheseSmallSystems) {
  for (const double a : {0.5, 0.8, 0.95}) {
    auto [at1, d1] = random_at(25, 0.2, 61);
    auto [at2, d2] = random_at(20, 0.2, 62);
    const at::Tensor h = random_h(25, 20, 63);
    std::vector<double> residuals;
    syl::SolverOptions opts;
    opts.alpha = a;
    opts.tol = 1e-10;
    opts.on_iteration = [&](int64_t, const at::Tensor&, double rel) { residuals.push_back(rel); };
    syl::solve_conjugate_gradient(at1, at2, h, opts);
    for (size_t k = 1; k < residuals.size(); ++k)
      EXPECT_LT(residuals[k], residuals[k - 1]) << "a " << a << " k " << k;
  }
}

TEST(SylvesterSolvers, FixedPointResidualShrinksByAtMostA) {
  auto [at1, d1] = random_at(20, 0.3, 71);
  auto [at2, d2] = random_at(20, 0.3, 72);
  const at::Tensor h = random_h(20, 20, 73);
  std::vector<double> residuals;
  syl::SolverOptions opts;
  opts.alpha = 0.7;
  opts.on_iteration = [&](int64_t, const at::Tensor&, double rel) { residuals.push_back(rel); };
  syl::solve_fixed_point(at1, at2, h, opts);
  for (size_t k = 1; k < residuals.size(); ++k) EXPECT_LE(residuals[k], 0.7 * residuals[k - 1] * (1 + 1e-9));
}

TEST(SylvesterSolvers, CgNeedsFarFewerOperatorApplicationsThanFixedPoint) {
  auto [at1, d1] = random_at(30, 0.2, 81);
  auto [at2, d2] = random_at(30, 0.2, 82);
  const at::Tensor h = random_h(30, 30, 83);
  syl::SolverOptions opts;
  opts.alpha = 0.95;
  const auto fp = syl::solve_fixed_point(at1, at2, h, opts);
  const auto cg = syl::solve_conjugate_gradient(at1, at2, h, opts);
  EXPECT_TRUE(fp.converged);
  EXPECT_TRUE(cg.converged);
  EXPECT_LT(3 * cg.operator_applications, fp.operator_applications)
      << "cg " << cg.operator_applications << " fixed point " << fp.operator_applications;
}

TEST(SylvesterSolvers, AlphaZeroReturnsH) {
  auto [at1, d1] = random_at(10, 0.3, 91);
  auto [at2, d2] = random_at(12, 0.3, 92);
  const at::Tensor h = random_h(10, 12, 93).to(at::kFloat);
  syl::SolverOptions opts;
  opts.alpha = 0.0;
  for (const auto& s : kSolvers) {
    const auto r = syl::solve(s, at1, at2, h, opts);
    EXPECT_TRUE(at::equal(r.x, h.to(at::kDouble))) << s;
    EXPECT_EQ(r.relative_residual, 0.0);
    EXPECT_TRUE(r.converged);
  }
}

TEST(SylvesterSolvers, ZeroPriorGivesZero) {
  auto [at1, d1] = random_at(10, 0.3, 94);
  auto [at2, d2] = random_at(12, 0.3, 95);
  syl::SolverOptions opts;
  for (const auto& s : kSolvers) {
    const auto r = syl::solve(s, at1, at2, at::zeros({10, 12}), opts);
    EXPECT_EQ(r.x.abs().max().item<double>(), 0.0) << s;
  }
}

// An isolated user has a zero row in At1, so its row of X is (1-a) H, whatever the rest.
TEST(SylvesterSolvers, IsolatedNodesKeepTheirShareOfThePrior) {
  const int64_t n1 = 15, n2 = 10, isolated = 3;
  auto [at1, d1] = random_at(n1, 0.4, 101, isolated);
  auto [at2, d2] = random_at(n2, 0.4, 102);
  const at::Tensor h = random_h(n1, n2, 103);
  syl::SolverOptions opts;
  opts.alpha = 0.9;
  opts.tol = 1e-12;
  for (const auto& s : kSolvers) {
    const auto r = syl::solve(s, at1, at2, h, opts);
    ASSERT_TRUE(r.x.isfinite().all().item<bool>()) << s;
    const at::Tensor tail = r.x.slice(0, n1 - isolated);
    EXPECT_LT((tail - 0.1 * h.slice(0, n1 - isolated)).abs().max().item<double>(), 1e-12) << s;
  }
}

TEST(SylvesterSolvers, GraphsWithoutAnyEdge) {
  // Every node isolated: At = 0, X = (1-a) H.
  const int64_t n = 8;
  const SparseMatrix empty = symgnn::graph::from_coo(n, n, at::zeros({0}, at::kLong),
                                                     at::zeros({0}, at::kLong), at::zeros({0}, at::kFloat));
  const at::Tensor h = random_h(n, n, 111);
  syl::SolverOptions opts;
  opts.alpha = 0.6;
  for (const auto& s : kSolvers) {
    const auto r = syl::solve(s, empty, empty, h, opts);
    EXPECT_LT((r.x - 0.4 * h).abs().max().item<double>(), 1e-12) << s;
  }
}

TEST(SylvesterSolvers, BothGraphsIdentity) {
  // At = I on both sides: X = a X + (1-a) H, so X = H.
  const at::Tensor h = random_h(6, 9, 121);
  syl::SolverOptions opts;
  opts.alpha = 0.8;
  for (const auto& s : kSolvers) {
    const auto r = syl::solve(s, symgnn::graph::identity(6), symgnn::graph::identity(9), h, opts);
    EXPECT_LT(rel_diff(r.x, h), 1e-8) << s;
  }
}

TEST(SylvesterSolvers, ReportsNonConvergenceAtTheIterationLimit) {
  auto [at1, d1] = random_at(20, 0.3, 131);
  auto [at2, d2] = random_at(20, 0.3, 132);
  const at::Tensor h = random_h(20, 20, 133);
  syl::SolverOptions opts;
  opts.alpha = 0.99;
  opts.max_iter = 3;
  for (const std::string s : {"fixed_point", "cg", "cr"}) {
    const auto r = syl::solve(s, at1, at2, h, opts);
    EXPECT_FALSE(r.converged) << s;
    EXPECT_GT(r.relative_residual, opts.tol) << s;
    EXPECT_LE(r.iterations, 3) << s;
  }
}

TEST(SylvesterSolvers, ExactReusesItsEigenbases) {
  auto [at1, d1] = random_at(20, 0.3, 141);
  auto [at2, d2] = random_at(18, 0.3, 142);
  const at::Tensor h = random_h(20, 18, 143);
  const auto e1 = syl::eigen_basis(at1, at::kCPU);
  const auto e2 = syl::eigen_basis(at2, at::kCPU);
  for (const double a : {0.3, 0.9, 0.999}) {
    syl::SolverOptions opts;
    opts.alpha = a;
    const auto r = syl::solve_exact(e1, e2, at1, at2, h, opts);
    EXPECT_LT(rel_diff(r.x, kronecker_solve(d1, d2, h, a)), 1e-8) << a;
  }
}

TEST(SylvesterSolvers, RejectsBadArguments) {
  auto [at1, d1] = random_at(5, 0.5, 151);
  auto [at2, d2] = random_at(4, 0.5, 152);
  const at::Tensor h = at::zeros({5, 4});
  for (const auto& s : kSolvers) {
    for (const double a : {1.0, -0.1, 1.5, std::nan("")}) {
      syl::SolverOptions opts;
      opts.alpha = a;
      EXPECT_THROW(syl::solve(s, at1, at2, h, opts), symgnn::ConfigError) << s << " a " << a;
    }
    syl::SolverOptions opts;
    EXPECT_THROW(syl::solve(s, at1, at2, at::zeros({4, 5}), opts), symgnn::ConfigError) << s;
    EXPECT_THROW(syl::solve(s, at1, at2, at::zeros({5}), opts), symgnn::ConfigError) << s;
    opts.tol = 0.0;
    EXPECT_THROW(syl::solve(s, at1, at2, h, opts), symgnn::ConfigError) << s;
    opts.tol = 1e-8;
    opts.max_iter = 0;
    EXPECT_THROW(syl::solve(s, at1, at2, h, opts), symgnn::ConfigError) << s;
  }
  EXPECT_THROW(syl::solve("gmres", at1, at2, h, syl::SolverOptions{}), symgnn::ConfigError);
  try {
    syl::SolverOptions opts;
    opts.alpha = 1.0;
    syl::solve("cg", at1, at2, h, opts);
  } catch (const symgnn::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("[0, 1)"), std::string::npos) << e.what();
  }
}

TEST(SylvesterSolvers, RunOnCudaWhenAvailable) {
  if (!torch::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  auto [at1, d1] = random_at(30, 0.2, 161);
  auto [at2, d2] = random_at(25, 0.2, 162);
  const at::Tensor h = random_h(30, 25, 163);
  const at::Tensor ref = kronecker_solve(d1, d2, h, 0.8);
  syl::SolverOptions opts;
  opts.tol = 1e-12;
  for (const auto& s : kSolvers) {
    const auto r = syl::solve(s, at1, at2, h.to(at::kCUDA), opts);
    EXPECT_TRUE(r.x.is_cuda()) << s;
    EXPECT_LT(rel_diff(r.x.cpu(), ref), 1e-8) << s;
  }
}
