#include "models/sylvester/path_weights.h"

#include <ATen/ATen.h>

#include <cmath>

#include "models/sylvester/sylvester.h"

namespace symgnn::models::sylvester {

std::vector<double> path_weights(const graph::SparseMatrix& at1, const graph::SparseMatrix& at2, double alpha,
                                 int64_t user, int64_t item, const std::vector<int64_t>& users,
                                 const std::vector<int64_t>& items) {
  TORCH_CHECK(users.size() == items.size(), "path_weights: ", users.size(), " users but ", items.size(),
              " items");
  TORCH_CHECK(alpha >= 0 && alpha < 1, "path_weights: a = ", alpha, " is outside [0, 1)");
  at::NoGradGuard no_grad;
  const at::Device cpu(at::kCPU);
  // Row u of At1^k is (At1^T)^k e_u, and row j of At2^k is (At2^T)^k e_j: one sparse
  // product per side and step, in float64.
  const graph::SparseMatrix a1 = detail::prepare(at1.transpose(), cpu),
                            a2 = detail::prepare(at2.transpose(), cpu);
  const auto opts = at::TensorOptions().dtype(at::kDouble);
  at::Tensor r = at::zeros({at1.rows}, opts), c = at::zeros({at2.rows}, opts);
  r[user] = 1.0;
  c[item] = 1.0;
  const auto n = static_cast<int64_t>(users.size());
  const at::Tensor v = at::from_blob(const_cast<int64_t*>(users.data()), {n}, at::kLong).clone();
  const at::Tensor i = at::from_blob(const_cast<int64_t*>(items.data()), {n}, at::kLong).clone();
  at::Tensor g = at::zeros({n}, opts);
  double weight = 1.0 - alpha;  // (1-a) a^k
  for (int64_t k = 0;; ++k) {
    g.add_(r.index_select(0, v).mul_(c.index_select(0, i)), weight);
    weight *= alpha;
    if (weight < 1e-15 * (1.0 - alpha) || k >= 100000) break;
    r = graph::spmm(a1, r);
    c = graph::spmm(a2, c);
  }
  return std::vector<double>(g.data_ptr<double>(), g.data_ptr<double>() + n);
}

}  // namespace symgnn::models::sylvester
