// Lawson-Hanson NNLS (see nnls.h for why it is written here, in normal-equations form).
#include "blend/nnls.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace symgnn::blend {

Matrix gram(const Matrix& x) {
  Matrix g(x.cols, x.cols);
  for (size_t r = 0; r < x.rows; ++r)
    for (size_t i = 0; i < x.cols; ++i)
      for (size_t j = i; j < x.cols; ++j) g(i, j) += x(r, i) * x(r, j);
  for (size_t i = 0; i < x.cols; ++i)
    for (size_t j = 0; j < i; ++j) g(i, j) = g(j, i);
  return g;
}

std::vector<double> xt_y(const Matrix& x, const std::vector<double>& y) {
  if (y.size() != x.rows) throw std::invalid_argument("xt_y: y has the wrong length");
  std::vector<double> c(x.cols, 0.0);
  for (size_t r = 0; r < x.rows; ++r)
    for (size_t j = 0; j < x.cols; ++j) c[j] += x(r, j) * y[r];
  return c;
}

double squared_error(const Matrix& x, const std::vector<double>& w, const std::vector<double>& y) {
  double se = 0.0;
  for (size_t r = 0; r < x.rows; ++r) {
    double p = 0.0;
    for (size_t j = 0; j < x.cols; ++j) p += x(r, j) * w[j];
    se += (p - y[r]) * (p - y[r]);
  }
  return se;
}

namespace {

/// Solves G[S, S] z = c[S] by Cholesky; false when G[S, S] is numerically singular (a
/// column in S depends on the others), which the caller treats as "do not add it".
bool solve_subset(const Matrix& g, const std::vector<double>& c, const std::vector<size_t>& s,
                  std::vector<double>& z) {
  const size_t m = s.size();
  Matrix l(m, m);
  double max_diag = 0.0;
  for (size_t i = 0; i < m; ++i) max_diag = std::max(max_diag, g(s[i], s[i]));
  const double floor = 1e-13 * max_diag;
  for (size_t j = 0; j < m; ++j) {
    double d = g(s[j], s[j]);
    for (size_t k = 0; k < j; ++k) d -= l(j, k) * l(j, k);
    if (!(d > floor)) return false;
    l(j, j) = std::sqrt(d);
    for (size_t i = j + 1; i < m; ++i) {
      double v = g(s[i], s[j]);
      for (size_t k = 0; k < j; ++k) v -= l(i, k) * l(j, k);
      l(i, j) = v / l(j, j);
    }
  }
  z.assign(m, 0.0);
  for (size_t i = 0; i < m; ++i) {  // L u = c
    double v = c[s[i]];
    for (size_t k = 0; k < i; ++k) v -= l(i, k) * z[k];
    z[i] = v / l(i, i);
  }
  for (size_t i = m; i-- > 0;) {  // L' z = u
    double v = z[i];
    for (size_t k = i + 1; k < m; ++k) v -= l(k, i) * z[k];
    z[i] = v / l(i, i);
  }
  return true;
}

}  // namespace

std::vector<double> nnls_normal(const Matrix& g, const std::vector<double>& c) {
  const size_t k = c.size();
  if (g.rows != k || g.cols != k) throw std::invalid_argument("nnls_normal: G and c disagree in size");
  std::vector<double> w(k, 0.0), grad(k), z;
  std::vector<bool> passive(k, false), refused(k, false);
  // A variable enters only when its gradient beats rounding at the problem's scale.
  double scale = 0.0;
  for (size_t j = 0; j < k; ++j) scale = std::max({scale, std::abs(c[j]), g(j, j)});
  const double tol = 1e-12 * scale;

  for (size_t outer = 0; outer < 3 * k + 10; ++outer) {
    for (size_t j = 0; j < k; ++j) {  // grad = c - G w: minus half the objective's gradient
      grad[j] = c[j];
      for (size_t i = 0; i < k; ++i) grad[j] -= g(j, i) * w[i];
    }
    size_t t = k;
    for (size_t j = 0; j < k; ++j)
      if (!passive[j] && !refused[j] && grad[j] > tol && (t == k || grad[j] > grad[t])) t = j;
    if (t == k) break;  // Kuhn-Tucker conditions hold
    passive[t] = true;

    for (bool first = true;; first = false) {
      std::vector<size_t> s;
      for (size_t j = 0; j < k; ++j)
        if (passive[j]) s.push_back(j);
      // Rounding can make a dependent column look useful, or its first step point the wrong
      // way; either would cycle, so such a variable is set aside until another one enters.
      const bool solved = solve_subset(g, c, s, z);
      const size_t pos_t = static_cast<size_t>(std::find(s.begin(), s.end(), t) - s.begin());
      if (first && (!solved || z[pos_t] <= 0.0)) {
        passive[t] = false;
        refused[t] = true;
        break;
      }
      if (!solved) throw std::runtime_error("nnls: singular subproblem after a feasible step");
      bool feasible = true;
      for (double v : z) feasible = feasible && v > 0.0;
      if (feasible) {
        std::fill(w.begin(), w.end(), 0.0);
        for (size_t i = 0; i < s.size(); ++i) w[s[i]] = z[i];
        std::fill(refused.begin(), refused.end(), false);
        break;
      }
      // Step from w towards z until the first passive variable reaches 0; it leaves.
      double alpha = 1.0;
      size_t leave = s.size();
      for (size_t i = 0; i < s.size(); ++i)
        if (z[i] <= 0.0 && w[s[i]] / (w[s[i]] - z[i]) < alpha) {
          alpha = w[s[i]] / (w[s[i]] - z[i]);
          leave = i;
        }
      for (size_t i = 0; i < s.size(); ++i) {
        w[s[i]] += alpha * (z[i] - w[s[i]]);
        // The blocking variable is 0 in exact arithmetic; ties may bring others to 0 too.
        if (i == leave || w[s[i]] <= 0.0) {
          w[s[i]] = 0.0;
          passive[s[i]] = false;
        }
      }
    }
  }
  return w;
}

std::vector<double> nnls(const Matrix& x, const std::vector<double>& y) {
  return nnls_normal(gram(x), xt_y(x, y));
}

}  // namespace symgnn::blend
