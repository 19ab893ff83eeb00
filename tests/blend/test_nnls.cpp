// Lawson-Hanson NNLS (blend/nnls.h) against brute force over every set of free variables,
// and on the degenerate problems blending meets (zero, duplicate and useless columns).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

#include "blend/blend.h"
#include "blend/nnls.h"

using symgnn::blend::Matrix;
using symgnn::blend::nnls;
using symgnn::blend::squared_error;

namespace {

/// Least squares on the columns in `subset` by Gaussian elimination with partial pivoting
/// on the normal equations (independent of the Cholesky in nnls.cpp); false if singular.
bool least_squares(const Matrix& x, const std::vector<double>& y, const std::vector<size_t>& subset,
                   std::vector<double>& w) {
  const size_t m = subset.size();
  Matrix a(m, m + 1);
  for (size_t i = 0; i < m; ++i) {
    for (size_t j = 0; j < m; ++j)
      for (size_t r = 0; r < x.rows; ++r) a(i, j) += x(r, subset[i]) * x(r, subset[j]);
    for (size_t r = 0; r < x.rows; ++r) a(i, m) += x(r, subset[i]) * y[r];
  }
  for (size_t c = 0; c < m; ++c) {
    size_t p = c;
    for (size_t r = c + 1; r < m; ++r)
      if (std::abs(a(r, c)) > std::abs(a(p, c))) p = r;
    if (std::abs(a(p, c)) < 1e-12) return false;
    for (size_t j = 0; j <= m; ++j) std::swap(a(c, j), a(p, j));
    for (size_t r = 0; r < m; ++r)
      if (r != c) {
        const double f = a(r, c) / a(c, c);
        for (size_t j = c; j <= m; ++j) a(r, j) -= f * a(c, j);
      }
  }
  w.assign(x.cols, 0.0);
  for (size_t i = 0; i < m; ++i) w[subset[i]] = a(i, m) / a(i, i);
  return true;
}

/// The least objective over w >= 0: the optimum is the unconstrained least-squares fit on
/// its own support, so enumerating supports and keeping feasible fits finds it.
double brute_force(const Matrix& x, const std::vector<double>& y) {
  double best = squared_error(x, std::vector<double>(x.cols, 0.0), y);
  for (size_t mask = 1; mask < (size_t{1} << x.cols); ++mask) {
    std::vector<size_t> subset;
    for (size_t j = 0; j < x.cols; ++j)
      if (mask >> j & 1) subset.push_back(j);
    std::vector<double> w;
    if (!least_squares(x, y, subset, w)) continue;
    if (std::all_of(w.begin(), w.end(), [](double v) { return v >= 0.0; }))
      best = std::min(best, squared_error(x, w, y));
  }
  return best;
}

}  // namespace

TEST(Nnls, MatchesBruteForceOnRandomProblems) {
  std::mt19937_64 rng(7);
  std::normal_distribution<double> normal;
  int with_zeros = 0;
  for (int trial = 0; trial < 400; ++trial) {
    const size_t k = 1 + static_cast<size_t>(trial % 5);
    const size_t n = k + 3 + static_cast<size_t>(trial % 17);
    Matrix x(n, k);
    std::vector<double> y(n);
    // Correlated columns with mixed signs, as model predictions are.
    for (size_t r = 0; r < n; ++r) {
      const double common = normal(rng);
      for (size_t j = 0; j < k; ++j) x(r, j) = (trial % 3 == 0 ? 0.9 * common : 0.0) + normal(rng);
      y[r] = normal(rng) + (trial % 2 ? x(r, 0) - 0.5 * x(r, k - 1) : 0.0);
    }
    const std::vector<double> w = nnls(x, y);
    for (double v : w) ASSERT_GE(v, 0.0) << "trial " << trial;
    with_zeros += std::count(w.begin(), w.end(), 0.0) > 0;
    const double got = squared_error(x, w, y), want = brute_force(x, y);
    EXPECT_LE(std::abs(got - want), 1e-9 * want) << "trial " << trial << " k " << k << " n " << n;
  }
  EXPECT_GT(with_zeros, 50);  // the constraint was active in many problems
}

TEST(Nnls, MatchesBruteForceOnNearlyCollinearPredictions) {
  // What blending meets: every column is the rating plus a little model-specific error, so
  // X'X is nearly singular (all columns share a large common part).
  std::mt19937_64 rng(11);
  std::normal_distribution<double> normal;
  for (int trial = 0; trial < 100; ++trial) {
    const size_t k = 2 + static_cast<size_t>(trial % 4), n = 300;
    Matrix x(n, k);
    std::vector<double> y(n);
    for (size_t r = 0; r < n; ++r) {
      y[r] = 3.5 + normal(rng);
      const double shared = 0.3 * normal(rng);
      for (size_t j = 0; j < k; ++j)
        x(r, j) = y[r] + shared + (0.1 + 0.2 * static_cast<double>(j)) * normal(rng) - 0.2 * (y[r] - 3.5);
    }
    const std::vector<double> w = nnls(x, y);
    const double got = squared_error(x, w, y), want = brute_force(x, y);
    EXPECT_LE(std::abs(got - want), 1e-9 * want) << "trial " << trial;
  }
}

TEST(Nnls, ExactNonNegativeFitIsRecovered) {
  Matrix x(6, 3);
  std::vector<double> y(6);
  for (size_t r = 0; r < 6; ++r) {
    x(r, 0) = 1.0 + static_cast<double>(r);
    x(r, 1) = std::sin(static_cast<double>(r));
    x(r, 2) = static_cast<double>(r * r) / 10.0;
    y[r] = 0.7 * x(r, 0) + 0.3 * x(r, 2);
  }
  const auto w = nnls(x, y);
  EXPECT_NEAR(w[0], 0.7, 1e-10);
  EXPECT_NEAR(w[1], 0.0, 1e-10);
  EXPECT_NEAR(w[2], 0.3, 1e-10);
}

TEST(Nnls, ZeroColumnGetsZeroWeight) {
  Matrix x(5, 2);
  std::vector<double> y(5);
  for (size_t r = 0; r < 5; ++r) {
    x(r, 1) = static_cast<double>(r) + 1.0;
    y[r] = 2.0 * x(r, 1) + (r % 2 ? 0.1 : -0.1);
  }
  const auto w = nnls(x, y);
  EXPECT_EQ(w[0], 0.0);
  EXPECT_NEAR(squared_error(x, w, y), brute_force(x, y), 1e-12);
}

TEST(Nnls, DuplicateColumnsShareTheSingleColumnFit) {
  Matrix x(8, 3), single(8, 1);
  std::vector<double> y(8);
  for (size_t r = 0; r < 8; ++r) {
    x(r, 0) = x(r, 2) = single(r, 0) = std::cos(static_cast<double>(r)) + 2.0;
    x(r, 1) = -static_cast<double>(r);
    y[r] = 1.5 * x(r, 0) + std::sin(3.0 * static_cast<double>(r));
  }
  const auto w = nnls(x, y);
  const auto w1 = nnls(single, y);
  EXPECT_NEAR(w[0] + w[2], w1[0], 1e-10);
  EXPECT_NEAR(squared_error(x, w, y), squared_error(single, w1, y), 1e-10);
}

TEST(Nnls, AllNegativeCorrelationsGiveAllZeroWeights) {
  Matrix x(6, 3);
  std::vector<double> y(6);
  for (size_t r = 0; r < 6; ++r) {
    y[r] = 1.0 + static_cast<double>(r);
    for (size_t j = 0; j < 3; ++j) x(r, j) = -y[r] * (1.0 + static_cast<double>(j)) + (r == j ? 0.5 : 0.0);
  }
  EXPECT_EQ(nnls(x, y), std::vector<double>(3, 0.0));
  // With an intercept, only the intercept is left: the mean of y.
  const auto fit = symgnn::blend::fit_weights(x, y, /*intercept=*/true);
  // Centred columns here still correlate negatively with centred y.
  EXPECT_EQ(fit.w, std::vector<double>(3, 0.0));
  EXPECT_NEAR(fit.intercept, 3.5, 1e-12);
}

TEST(Nnls, NoColumnsAndNoRows) {
  EXPECT_TRUE(nnls(Matrix(4, 0), std::vector<double>(4, 1.0)).empty());
  EXPECT_EQ(nnls(Matrix(0, 2), {}), std::vector<double>(2, 0.0));
}
