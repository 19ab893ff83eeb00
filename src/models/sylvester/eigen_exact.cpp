// Exact solve of Eq. 1 through the eigendecompositions At1 = Q1 diag(l) Q1^T and
// At2 = Q2 diag(m) Q2^T (sylvester.h). In those bases the equation decouples entrywise:
//   Y = Q1^T X Q2,  B = Q1^T (1-a) H Q2,  Y_ij = B_ij / (1 - a l_i m_j),  X = Q1 Y Q2^T.
// Cost: two dense symmetric eigendecompositions, O(n1^3 + n2^3) and 2 (n1 + n2) n1 n2 for the
// four products, with n1^2 + n2^2 doubles for the bases: seconds at n = 3000, impractical
// beyond a few thousand nodes. The decompositions depend on the graphs only, so
// EigenBasis can be kept and reused for many a and H (the baseline's sweep over a).
// An identity graph (At = I) has Q = I and l = 1 and is never decomposed.
#include <ATen/ATen.h>

#include "models/sylvester/sylvester.h"

namespace symgnn::models::sylvester {

EigenBasis eigen_basis(const graph::SparseMatrix& at, const at::Device& device) {
  EigenBasis e;
  e.identity = at.identity;
  e.n = at.rows;
  if (at.identity) return e;
  const graph::SparseMatrix a = detail::prepare(at, device);
  at::Tensor dense = at::zeros({a.rows, a.cols}, a.values.options());
  dense.index_put_({detail::row_of_entries(a), a.col_idx}, a.values, /*accumulate=*/true);
  // eigh reads one triangle; At is symmetric by construction (D^-1/2 A D^-1/2, A = A^T).
  auto [values, vectors] = at::linalg_eigh(dense, "L");
  e.values = values;
  e.vectors = vectors;
  return e;
}

SolverResult solve_exact(const EigenBasis& e1, const EigenBasis& e2, const graph::SparseMatrix& at1,
                         const graph::SparseMatrix& at2, const at::Tensor& h, const SolverOptions& opts) {
  detail::Start s = detail::start("exact", at1, at2, h, opts);
  TORCH_CHECK(e1.n == at1.rows && e2.n == at2.rows, "solve_exact: eigenbases do not match the graphs");
  if (s.res.x.defined()) return s.finish();
  SolverResult& res = s.res;
  const at::Tensor& b = s.b;
  const double a = opts.alpha, b_norm = s.b_norm;
  const auto opt = b.options();
  at::Tensor y = b;                                                                          // n1 x n2
  if (!e1.identity) y = at::mm(e1.vectors.t(), y);                                           // Q1^T B
  if (!e2.identity) y = at::mm(y, e2.vectors);                                               // Q1^T B Q2
  const at::Tensor l = e1.identity ? at::ones({e1.n, 1}, opt) : e1.values.reshape({-1, 1});  // n1 x 1
  const at::Tensor m = e2.identity ? at::ones({1, e2.n}, opt) : e2.values.reshape({1, -1});  // 1 x n2
  y = y / (1.0 - a * (l * m));                      // 1 - a l_i m_j >= 1 - a > 0
  if (!e1.identity) y = at::mm(e1.vectors, y);      // Q1 Y
  if (!e2.identity) y = at::mm(y, e2.vectors.t());  // Q1 Y Q2^T
  res.x = y.contiguous();

  // The residual certifies the decomposition's accuracy (one application).
  const at::Tensor r = b - (res.x - detail::propagate(s.a1, s.a2, res.x).mul_(a));
  res.operator_applications = 1;
  res.relative_residual = detail::fro_norm(r) / b_norm;
  res.converged = res.relative_residual <= opts.tol;
  if (opts.on_iteration) opts.on_iteration(0, res.x, res.relative_residual);
  return s.finish();
}

SolverResult solve_exact(const graph::SparseMatrix& at1, const graph::SparseMatrix& at2, const at::Tensor& h,
                         const SolverOptions& opts) {
  detail::check_arguments(at1, at2, h, opts);
  const double t0 = detail::now_seconds();
  const EigenBasis e1 = eigen_basis(at1, h.device());
  const EigenBasis e2 = eigen_basis(at2, h.device());
  SolverResult res = solve_exact(e1, e2, at1, at2, h, opts);
  res.seconds = detail::now_seconds() - t0;  // the decompositions included
  return res;
}

}  // namespace symgnn::models::sylvester
