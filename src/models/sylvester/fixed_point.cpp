// Fixed-point iteration for Eq. 1 (the textbook method, see sylvester.h):
//   X_0 = (1-a) H,   X_{k+1} = a At1 X_k At2^T + (1-a) H.
// The residual of X_k is exactly X_{k+1} - X_k, so each step both advances and checks
// convergence with one application of At1 . At2^T; the error shrinks by the factor a per
// step (|mu_j lambda_i| <= 1), i.e. log(tol) / log(a) steps: 83 at a = 0.8, 1833 at 0.99.
#include <ATen/ATen.h>

#include "models/sylvester/sylvester.h"

namespace symgnn::models::sylvester {

SolverResult solve_fixed_point(const graph::SparseMatrix& at1, const graph::SparseMatrix& at2,
                               const at::Tensor& h, const SolverOptions& opts) {
  detail::Start s = detail::start("fixed_point", at1, at2, h, opts);
  if (s.res.x.defined()) return s.finish();
  SolverResult& res = s.res;
  const at::Tensor& b = s.b;
  const double a = opts.alpha, b_norm = s.b_norm;
  const graph::SparseMatrix &a1 = s.a1, &a2 = s.a2;

  at::Tensor x = b.clone();  // X_0: the first iterate from X = 0, free
  for (int64_t k = 0;; ++k) {
    at::Tensor next = detail::propagate(a1, a2, x).mul_(a).add_(b);  // X_{k+1}
    ++res.operator_applications;
    // The residual of X_k, (1-a) H - L(X_k), is X_{k+1} - X_k; we return the iterate whose
    // residual we know rather than X_{k+1}, so the reported figure is exact.
    const double rel = detail::fro_norm(next - x) / b_norm;
    if (opts.on_iteration) opts.on_iteration(k, x, rel);
    res.iterations = k;
    res.relative_residual = rel;
    if (rel <= opts.tol || k + 1 >= opts.max_iter) {
      res.converged = rel <= opts.tol;
      res.x = x;
      break;
    }
    x = next;
  }
  return s.finish();
}

}  // namespace symgnn::models::sylvester
