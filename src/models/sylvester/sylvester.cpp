// The pieces every Sylvester solver shares: argument checks, the product At1 X At2^T and
// the dispatch by name. The equation and the solvers' costs are in sylvester.h.
#include "models/sylvester/sylvester.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <sstream>

#include "symgnn/error.h"

namespace symgnn::models::sylvester {
namespace detail {

void check_arguments(const graph::SparseMatrix& at1, const graph::SparseMatrix& at2, const at::Tensor& h,
                     const SolverOptions& opts) {
  if (!(opts.alpha >= 0.0 && opts.alpha < 1.0)) {
    std::ostringstream msg;
    msg << "sylvester.alpha = " << opts.alpha
        << ": must be in [0, 1) (X = a At1 X At2^T + (1-a) H is solvable and L = I - a At2 (x) At1 "
           "positive definite only for 0 <= a < 1)";
    throw ConfigError(msg.str());
  }
  if (!(opts.tol > 0.0)) throw ConfigError("sylvester.tol = " + std::to_string(opts.tol) + ": must be > 0");
  if (opts.max_iter < 1)
    throw ConfigError("sylvester.max_iter = " + std::to_string(opts.max_iter) + ": must be >= 1");
  if (!h.defined() || h.dim() != 2) throw ConfigError("sylvester: H must be a defined n1 x n2 matrix");
  if (at1.rows != at1.cols || at2.rows != at2.cols || at1.rows != h.size(0) || at2.rows != h.size(1)) {
    std::ostringstream msg;
    msg << "sylvester: shapes do not fit X = a At1 X At2^T + (1-a) H: H is " << h.size(0) << " x "
        << h.size(1) << ", At1 " << at1.rows << " x " << at1.cols << " (needs n1 x n1), At2 " << at2.rows
        << " x " << at2.cols << " (needs n2 x n2)";
    throw ConfigError(msg.str());
  }
}

at::Tensor row_of_entries(const graph::SparseMatrix& at) {
  const at::Tensor ptr = at.row_ptr.to(at::kLong);
  return at::repeat_interleave(ptr.slice(0, 1) - ptr.slice(0, 0, at.rows));
}

graph::SparseMatrix prepare(const graph::SparseMatrix& at, const at::Device& device) {
  if (at.identity) return graph::identity(at.rows);
  // Residuals of 1e-8 and below need float64 throughout; the adjacency is stored as float.
  const at::Tensor values = at.values.to(device, at::kDouble);
  return graph::from_coo(at.rows, at.cols, row_of_entries(at).to(device), at.col_idx.to(device), values);
}

namespace {

// The solvers multiply n x n sparse matrices by n x n dense ones, where a generic
// sparse-times-dense path streams a whole 24 KB row of X per non-zero from memory
// (1.4 GB per product on Flixster). This kernel works on column slabs of X narrow
// enough (n x 32 doubles, 768 KB at n = 3000) to stay in one core's L2 cache while every
// non-zero of A passes over it; threads take disjoint slabs, so no two write the same
// output. O(nnz d) work, no temporaries.
constexpr int64_t kSlab = 32;

/// out = A x (A sparse rows x cols in CSR, float64; x cols x d).
at::Tensor left_product_cpu(const graph::SparseMatrix& a, const at::Tensor& x_in) {
  const at::Tensor x = x_in.contiguous();
  const int64_t d = x.size(1);
  at::Tensor out = at::zeros({a.rows, d}, x.options());
  const int64_t* rp = a.row_ptr.data_ptr<int64_t>();
  const int64_t* ci = a.col_idx.data_ptr<int64_t>();
  const double* v = a.values.data_ptr<double>();
  const double* xp = x.data_ptr<double>();
  double* op = out.data_ptr<double>();
  const int64_t slabs = (d + kSlab - 1) / kSlab;
  at::parallel_for(0, slabs, 1, [&](int64_t begin, int64_t end) {
    for (int64_t s = begin; s < end; ++s) {
      const int64_t j0 = s * kSlab, w = std::min(kSlab, d - j0);
      for (int64_t i = 0; i < a.rows; ++i) {
        double* __restrict__ o = op + i * d + j0;
        for (int64_t k = rp[i]; k < rp[i + 1]; ++k) {
          const double wk = v[k];
          const double* __restrict__ xr = xp + ci[k] * d + j0;
          for (int64_t j = 0; j < w; ++j) o[j] += wk * xr[j];
        }
      }
    }
  });
  return out;
}

}  // namespace

at::Tensor propagate(const graph::SparseMatrix& at1, const graph::SparseMatrix& at2, const at::Tensor& x) {
  if (at1.identity && at2.identity) return x.clone();  // callers update the result in place
  if (x.device().is_cpu() && x.scalar_type() == at::kDouble) {
    at::Tensor y = at1.identity ? x : left_product_cpu(at1, x);  // n1 x n2
    if (at2.identity) return y;
    return left_product_cpu(at2, y.t()).t().contiguous();  // (At2 Y^T)^T = Y At2^T, n1 x n2
  }
  // Other devices: the graph layer's product; X At2^T = (At2 X^T)^T.
  at::Tensor y = graph::spmm(at1, x);                            // n1 x n2
  return graph::spmm(at2, y.t().contiguous()).t().contiguous();  // (n2 x n1)^T
}

double fro_norm(const at::Tensor& x) {
  return x.norm().item<double>();
}

double inner(const at::Tensor& a, const at::Tensor& b) {
  return at::dot(a.reshape({-1}), b.reshape({-1})).item<double>();
}

Start start(const std::string& solver, const graph::SparseMatrix& at1, const graph::SparseMatrix& at2,
            const at::Tensor& h, const SolverOptions& opts) {
  check_arguments(at1, at2, h, opts);
  Start s;
  s.t0 = now_seconds();
  s.res.solver = solver;
  const double alpha = opts.alpha;
  s.b = h.to(at::kDouble) * (1.0 - alpha);  // (1-a) H, n1 x n2
  s.b_norm = fro_norm(s.b);
  if (alpha == 0.0 || s.b_norm == 0.0) {  // L = I, or the solution is 0: nothing to iterate
    s.res.x = alpha == 0.0 ? h.to(at::kDouble).clone() : at::zeros_like(s.b);
    s.res.converged = true;
    return s;
  }
  s.a1 = prepare(at1, h.device());
  s.a2 = prepare(at2, h.device());
  return s;
}

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace detail

SolverResult solve(const std::string& solver, const graph::SparseMatrix& at1, const graph::SparseMatrix& at2,
                   const at::Tensor& h, const SolverOptions& opts) {
  if (solver == "fixed_point") return solve_fixed_point(at1, at2, h, opts);
  if (solver == "cg") return solve_conjugate_gradient(at1, at2, h, opts);
  if (solver == "cr") return solve_conjugate_residual(at1, at2, h, opts);
  if (solver == "exact") return solve_exact(at1, at2, h, opts);
  throw ConfigError("sylvester.solver = '" + solver + "': must be one of fixed_point, cg, cr, exact");
}

}  // namespace symgnn::models::sylvester
