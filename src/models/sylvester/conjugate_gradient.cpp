// Conjugate gradient and conjugate residual on the SPD system of Eq. 1 (sylvester.h):
//   L vec(X) = (1-a) vec(H),   L X = X - a At1 X At2^T,
// with Frobenius inner products on n1 x n2 matrices (= Euclidean ones on vec X), started
// from X_0 = (1-a) H. One application of L per iteration; kappa(L) <= (1+a)/(1-a) bounds
// the error after k steps by 2 ((sqrt(kappa)-1)/(sqrt(kappa)+1))^k: about 27 steps to 1e-8
// at a = 0.8 against 83 for the fixed point.
//
// What is monotone. CG minimises the L-norm of the error ||X_k - X*||_L over the Krylov
// space, so that norm decreases at every step; the 2-norm of its residual does not have
// to (it usually does, but can rise between steps). Conjugate residual minimises the
// residual 2-norm over the same space instead (MINRES for SPD L), so its residual never
// increases, at the same cost per step plus one more n1 x n2 vector. Both stop on the
// recursively updated residual and then confirm it with one true residual (one more
// application), restarting from the true residual should rounding have made them drift.
#include <ATen/ATen.h>

#include <cmath>

#include "models/sylvester/sylvester.h"

namespace symgnn::models::sylvester {

namespace {

/// L X = X - a At1 X At2^T.
at::Tensor apply_l(const graph::SparseMatrix& a1, const graph::SparseMatrix& a2, double a,
                   const at::Tensor& x) {
  return x - detail::propagate(a1, a2, x).mul_(a);
}

enum class Method { kGradient, kResidual };

SolverResult krylov(Method method, const graph::SparseMatrix& at1, const graph::SparseMatrix& at2,
                    const at::Tensor& h, const SolverOptions& opts) {
  detail::Start s = detail::start(method == Method::kGradient ? "cg" : "cr", at1, at2, h, opts);
  if (s.res.x.defined()) return s.finish();
  SolverResult& res = s.res;
  const at::Tensor& b = s.b;
  const double a = opts.alpha, b_norm = s.b_norm;
  const graph::SparseMatrix &a1 = s.a1, &a2 = s.a2;

  at::Tensor x = b.clone();
  at::Tensor r, p, lr, lp;  // residual, direction, L r and L p (the last two: CR only)
  double rho = 0.0;         // CG: <r, r>; CR: <r, L r>
  int64_t k = 0;
  // (Re)starts the recurrences from the true residual of x.
  auto restart = [&] {
    r = b - apply_l(a1, a2, a, x);
    ++res.operator_applications;
    p = r.clone();
    if (method == Method::kResidual) {
      lr = apply_l(a1, a2, a, r);
      ++res.operator_applications;
      lp = lr.clone();
      rho = detail::inner(r, lr);
    } else {
      rho = detail::inner(r, r);
    }
    return detail::fro_norm(r) / b_norm;
  };
  double rel = restart();
  if (opts.on_iteration) opts.on_iteration(0, x, rel);
  while (rel > opts.tol && k < opts.max_iter) {
    ++k;
    double step = 0.0;
    if (method == Method::kGradient) {
      lp = apply_l(a1, a2, a, p);
      ++res.operator_applications;
      step = rho / detail::inner(p, lp);  // minimises the L-norm of the error along p
    } else {
      step = rho / detail::inner(lp, lp);  // minimises the residual 2-norm along p
    }
    x.add_(p, step);
    r.sub_(lp, step);
    rel = detail::fro_norm(r) / b_norm;
    if (opts.on_iteration) opts.on_iteration(k, x, rel);
    if (rel <= opts.tol) {
      const double true_rel = restart();  // confirm with the true residual
      if (true_rel <= opts.tol || k >= opts.max_iter) {
        rel = true_rel;
        break;
      }
      rel = true_rel;
      continue;
    }
    double rho_next = 0.0;
    if (method == Method::kGradient) {
      rho_next = detail::inner(r, r);
    } else {
      lr = apply_l(a1, a2, a, r);
      ++res.operator_applications;
      rho_next = detail::inner(r, lr);
    }
    const double beta = rho_next / rho;
    rho = rho_next;
    p.mul_(beta).add_(r);
    if (method == Method::kResidual) lp.mul_(beta).add_(lr);
  }
  res.x = x;
  res.iterations = k;
  res.relative_residual = rel;
  res.converged = rel <= opts.tol;
  return s.finish();
}

}  // namespace

SolverResult solve_conjugate_gradient(const graph::SparseMatrix& at1, const graph::SparseMatrix& at2,
                                      const at::Tensor& h, const SolverOptions& opts) {
  return krylov(Method::kGradient, at1, at2, h, opts);
}

SolverResult solve_conjugate_residual(const graph::SparseMatrix& at1, const graph::SparseMatrix& at2,
                                      const at::Tensor& h, const SolverOptions& opts) {
  return krylov(Method::kResidual, at1, at2, h, opts);
}

}  // namespace symgnn::models::sylvester
