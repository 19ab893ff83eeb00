// Non-negative least squares for blending a handful of models: min ||X w - y||^2 subject to
// w >= 0, by Lawson and Hanson's active-set method ("Solving Least Squares Problems", 1974,
// ch. 23). Debian 12 ships no maintained C++ NNLS (Eigen 3.4.0 lacks the unsupported NNLS
// module) and this library stays torch-free, so the subproblems are solved here in the
// normal-equations form with a small dense Cholesky factorisation in double: with k <= ~50
// columns the k x k Gram matrix is tiny, and forming it costs one pass over the rows.
#pragma once

#include <cstddef>
#include <vector>

namespace symgnn::blend {

/// Dense row-major matrix of doubles.
struct Matrix {
  size_t rows = 0;
  size_t cols = 0;
  std::vector<double> values;  // rows * cols

  Matrix() = default;
  Matrix(size_t r, size_t c) : rows(r), cols(c), values(r * c, 0.0) {}
  double& operator()(size_t r, size_t c) { return values[r * cols + c]; }
  double operator()(size_t r, size_t c) const { return values[r * cols + c]; }
};

/// X'X (cols x cols) and X'y.
Matrix gram(const Matrix& x);
std::vector<double> xt_y(const Matrix& x, const std::vector<double>& y);

/// Lawson-Hanson on the normal equations: minimises w'Gw - 2c'w over w >= 0, where
/// G = X'X (symmetric positive semi-definite) and c = X'y. Columns that are zero or exact
/// copies of others get weight 0 (a copy's gradient vanishes once its twin is fitted).
std::vector<double> nnls_normal(const Matrix& g, const std::vector<double>& c);

/// nnls_normal(gram(x), xt_y(x, y)).
std::vector<double> nnls(const Matrix& x, const std::vector<double>& y);

/// ||X w - y||^2, the objective, computed from the rows (not from G).
double squared_error(const Matrix& x, const std::vector<double>& w, const std::vector<double>& y);

}  // namespace symgnn::blend
