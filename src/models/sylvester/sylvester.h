// symgnn: the classic Sylvester equation (paper Eq. 1) and its three solvers.
//
// Eq. 1 as printed:   X = a At2 X At1^T + (1-a) H
// Computed here:      X = a At1 X At2^T + (1-a) H          X, H: n1 x n2 (users x items)
//
// At1 (n1 x n1, users) and At2 (n2 x n2, items) are the symmetrically normalised
// adjacencies At = D^-1/2 A D^-1/2 (graph::normalized_adjacency). The printed form has
// the items on the rows of X; transposing it gives X^T = a At1 X^T At2^T + (1-a) H^T,
// which is the form above with users on the rows, the layout of every other part of
// symgnn. Nothing else changes.
//
// The linear system. With column-major vec, vec(At1 X At2^T) = (At2 (x) At1) vec(X), so
//     L vec(X) = (1-a) vec(H),    L = I - a (At2 (x) At1)     (n1 n2 x n1 n2).
// The eigenvalues of At2 (x) At1 are the products mu_j lambda_i of the eigenvalues of
// At2 and At1, all in [-1, 1] (At is symmetric, ||At||_2 <= 1; an isolated node gives a
// zero row and column, eigenvalue 0). So L's eigenvalues lie in [1 - a, 1 + a]:
//   - |a| < 1 makes L non-singular and the fixed-point iteration contract (rate a);
//   - 0 <= a < 1 makes L symmetric positive definite with condition number
//     kappa <= (1 + a) / (1 - a) (9 at a = 0.8, 199 at a = 0.99), so CG converges at
//     rate (sqrt(kappa) - 1) / (sqrt(kappa) + 1) (0.5 at a = 0.8) instead of a.
// The solvers accept a in [0, 1) only (ConfigError otherwise); a = 0 returns H exactly.
// L is applied as two sparse products, At1 X and (At2 (At1 X)^T)^T, never formed.
//
// Cost per solver (n1 ~ n2 ~ n, E = nnz(At1) + nnz(At2), one application = O(E n)):
//   | solver        | per iteration     | iterations to tol             | sizes         |
//   | fixed_point   | 1 application     | log(tol) / log(a)             | any (sparse)  |
//   | cg            | 1 application     | ~ sqrt(kappa)/2 * log(2/tol)  | any (sparse)  |
//   | exact         | 2 eigh O(n^3) + 4 dense n^3 products, once            | n <= ~5000    |
// Memory: fixed_point 3 n1 n2 doubles, cg 5, exact 4 plus the two n^2 eigenbases.
//
// Every solver works in float64 on the device of H, reports iterations, operator
// applications, the relative residual ||(1-a)H - L(X)||_F / ||(1-a)H||_F of the X it
// returns, and wall time, and stops once that residual is below `tol`.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <functional>
#include <string>

#include "symgnn/graph.h"

namespace symgnn::models::sylvester {

/// What a solver returns.
struct SolverResult {
  at::Tensor x;                       // n1 x n2, float64, on the device of H
  int64_t iterations = 0;             // iterations of the method (0 for exact)
  double relative_residual = 0.0;     // ||(1-a)H - L(X)||_F / ||(1-a)H||_F of x
  double seconds = 0.0;               // wall time of the solve
  int64_t operator_applications = 0;  // applications of L (or of At1 . At2), residual checks included
  bool converged = false;             // relative_residual <= tol
  std::string solver;                 // "fixed_point", "cg", "cr" or "exact"
};

/// Called with every iterate whose residual is known: the iteration number (0 for the
/// starting guess X_0 = (1-a) H), the iterate (a view into the solver's state: copy it to
/// keep it) and its relative residual. Used by tests and progress output; empty = not called.
using IterationCallback =
    std::function<void(int64_t iteration, const at::Tensor& x, double relative_residual)>;

struct SolverOptions {
  double alpha = 0.8;        // a in [0, 1)
  double tol = 1e-8;         // stop when the relative residual is <= tol
  int64_t max_iter = 10000;  // iteration limit of the iterative solvers
  IterationCallback on_iteration;
};

/// Fixed-point iteration X_{k+1} = a At1 X_k At2^T + (1-a) H (fixed_point.cpp).
SolverResult solve_fixed_point(const graph::SparseMatrix& at1, const graph::SparseMatrix& at2,
                               const at::Tensor& h, const SolverOptions& opts);

/// Conjugate gradient on L vec(X) = (1-a) vec(H) (conjugate_gradient.cpp).
SolverResult solve_conjugate_gradient(const graph::SparseMatrix& at1, const graph::SparseMatrix& at2,
                                      const at::Tensor& h, const SolverOptions& opts);

/// Conjugate residual (CG's minimal-residual sibling; conjugate_gradient.cpp): same cost per
/// iteration, but the residual 2-norm never increases, which CG does not promise.
SolverResult solve_conjugate_residual(const graph::SparseMatrix& at1, const graph::SparseMatrix& at2,
                                      const at::Tensor& h, const SolverOptions& opts);

/// Exact solve through the eigendecompositions of At1 and At2 (eigen_exact.cpp).
SolverResult solve_exact(const graph::SparseMatrix& at1, const graph::SparseMatrix& at2, const at::Tensor& h,
                         const SolverOptions& opts);

/// At = Q diag(values) Q^T in float64, kept to solve for many a and H with one
/// decomposition. identity: At = I, nothing stored.
struct EigenBasis {
  int64_t n = 0;
  bool identity = false;
  at::Tensor values;   // n
  at::Tensor vectors;  // n x n, columns are the eigenvectors
};

/// The eigendecomposition of a symmetric At on `device` (O(n^3)).
EigenBasis eigen_basis(const graph::SparseMatrix& at, const at::Device& device);

/// The exact solve with precomputed bases (seconds then exclude the decompositions).
SolverResult solve_exact(const EigenBasis& e1, const EigenBasis& e2, const graph::SparseMatrix& at1,
                         const graph::SparseMatrix& at2, const at::Tensor& h, const SolverOptions& opts);

/// Dispatches on `solver` ("fixed_point", "cg", "cr" or "exact"; ConfigError otherwise).
SolverResult solve(const std::string& solver, const graph::SparseMatrix& at1, const graph::SparseMatrix& at2,
                   const at::Tensor& h, const SolverOptions& opts);

/// The pieces the solvers share (sylvester.cpp).
namespace detail {

/// Throws ConfigError for a outside [0, 1), tol <= 0, max_iter < 1, and shape mismatches
/// between H (n1 x n2), At1 (n1 x n1) and At2 (n2 x n2).
void check_arguments(const graph::SparseMatrix& at1, const graph::SparseMatrix& at2, const at::Tensor& h,
                     const SolverOptions& opts);

/// The adjacency in float64 on `device`, ready for repeated products.
graph::SparseMatrix prepare(const graph::SparseMatrix& at, const at::Device& device);

/// The row index of every stored entry, from row_ptr.
at::Tensor row_of_entries(const graph::SparseMatrix& at);

/// At1 X At2^T for X n1 x n2 (float64), as two sparse products; always a new tensor.
at::Tensor propagate(const graph::SparseMatrix& at1, const graph::SparseMatrix& at2, const at::Tensor& x);

/// Frobenius norm as a double.
double fro_norm(const at::Tensor& x);

/// Frobenius inner product <a, b> = sum a .* b as a double.
double inner(const at::Tensor& a, const at::Tensor& b);

/// Wall-clock seconds since an arbitrary origin.
double now_seconds();

/// The common start of every solver (start()): b = (1-a) H in float64, ||b||_F, the clock,
/// and the result, whose x is already the exact answer (converged, residual 0) when a = 0
/// (X = H) or H = 0 (X = 0); otherwise x is undefined and the solver iterates.
struct Start {
  SolverResult res;
  graph::SparseMatrix a1, a2;  // At1, At2 prepared (prepare()) when the solver iterates
  at::Tensor b;
  double b_norm = 0.0;
  double t0 = 0.0;
  /// res with the seconds since start().
  SolverResult finish() {
    res.seconds = now_seconds() - t0;
    return res;
  }
};

/// Checks the arguments (check_arguments) and starts solver `solver`.
Start start(const std::string& solver, const graph::SparseMatrix& at1, const graph::SparseMatrix& at2,
            const at::Tensor& h, const SolverOptions& opts);

}  // namespace detail

}  // namespace symgnn::models::sylvester
