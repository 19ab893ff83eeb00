#include "models/kernels/graph_step.h"

#include <torch/autograd.h>
#include <torch/types.h>

namespace symgnn::models {

namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

/// (1 - beta) x + beta A x, the sum made in place on the product.
at::Tensor mixed(const graph::SparseMatrix& a, const at::Tensor& x, double beta) {
  at::NoGradGuard no_grad;
  return graph::spmm(a, x).mul_(beta).add_(x, 1 - beta);
}

struct GraphStepFunction : public torch::autograd::Function<GraphStepFunction> {
  static at::Tensor forward(AutogradContext* ctx, const at::Tensor& x, const graph::SparseMatrix& a,
                            double beta) {
    // A^T, O(1) where from_coo stored it (symgnn/graph.h).
    const graph::SparseMatrix t = a.transpose();
    ctx->saved_data["row_ptr"] = t.row_ptr;
    ctx->saved_data["col_idx"] = t.col_idx;
    ctx->saved_data["values"] = t.values;
    ctx->saved_data["rows"] = t.rows;
    ctx->saved_data["beta"] = beta;
    return mixed(a, x, beta);
  }

  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    graph::SparseMatrix t;
    t.row_ptr = ctx->saved_data["row_ptr"].toTensor();
    t.col_idx = ctx->saved_data["col_idx"].toTensor();
    t.values = ctx->saved_data["values"].toTensor();
    t.rows = t.cols = ctx->saved_data["rows"].toInt();
    return {mixed(t, grads[0].contiguous(), ctx->saved_data["beta"].toDouble()), at::Tensor(), at::Tensor()};
  }
};

}  // namespace

at::Tensor graph_step(const graph::SparseMatrix& a, const at::Tensor& x, double beta) {
  TORCH_CHECK(x.dim() == 2 && x.size(0) == a.cols && a.rows == a.cols,
              "graph_step: A must be n x n and x [n, d], got ", a.rows, " x ", a.cols, " and ", x.sizes());
  if (a.identity || beta == 0) return x;
  return GraphStepFunction::apply(x, a, beta);
}

}  // namespace symgnn::models
