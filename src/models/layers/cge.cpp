#include "models/layers/cge.h"

#include <torch/nn/init.h>
#include <torch/types.h>

#include "models/layers/activation.h"

namespace symgnn::models {

CGEImpl::CGEImpl(graph::SparseMatrix at, int64_t d, int64_t layers, std::string activation, bool bias)
    : at_(std::move(at)), activation_(std::move(activation)) {
  TORCH_CHECK(at_.rows == at_.cols, "CGE: At must be square, got ", at_.rows, " x ", at_.cols);
  TORCH_CHECK(layers >= 1, "CGE: needs at least one layer, got ", layers);
  s_logit_ = register_parameter("s_logit", torch::zeros({at_.rows}));
  for (int64_t l = 0; l < layers; ++l) {
    auto w = torch::empty({d, d});
    torch::nn::init::xavier_uniform_(w);
    w_.push_back(register_parameter("w" + std::to_string(l), w));
    if (bias) b_.push_back(register_parameter("b" + std::to_string(l), torch::zeros({d})));
  }
}

at::Tensor CGEImpl::self_weight() const {
  return torch::sigmoid(s_logit_);
}

at::Tensor CGEImpl::forward(const at::Tensor& uh) {
  return run(uh, nullptr);
}

CgeTrace CGEImpl::trace(const at::Tensor& uh) {
  CgeTrace t = graph_trace();
  run(uh, &t.products);
  return t;
}

CgeTrace CGEImpl::graph_trace() const {
  CgeTrace t;
  t.self_weight = self_weight();
  t.identity = at_.identity;
  if (!t.identity) {
    const graph::SparseMatrix m =
        at_.t_row_ptr.defined() ? at_
                                : graph::from_coo(at_.rows, at_.cols, at_.row_idx, at_.col_idx, at_.values);
    t.row_ptr = m.row_ptr.cpu().contiguous();
    t.col_idx = m.col_idx.cpu().contiguous();
    t.values = m.values.to(at::kCPU, at::kFloat).contiguous();
    t.t_row_ptr = m.t_row_ptr.cpu().contiguous();
    t.t_col_idx = m.t_col_idx.cpu().contiguous();
  }
  return t;
}

at::Tensor CGEImpl::run(const at::Tensor& uh, std::vector<at::Tensor>* products) {
  TORCH_CHECK(uh.dim() == 2 && uh.size(0) == at_.rows, "CGE: input must be ", at_.rows, " x d");
  if (!at_.identity &&
      at_.values.scalar_type() != uh.scalar_type()) {  // the module was cast (e.g. to double)
    at_.values = at_.values.to(uh.scalar_type());
    at_.t_values = at_.t_values.to(uh.scalar_type());
  }
  const at::Tensor s = self_weight().unsqueeze(1);  // n x 1, broadcast over d
  at::Tensor u = uh;
  for (size_t l = 0; l < w_.size(); ++l) {
    const at::Tensor y = u.mm(w_[l]);
    if (products) products->push_back(y);
    at::Tensor z = s * y + (1 - s) * graph::spmm(at_, y);
    if (!b_.empty()) z = z + b_[l];
    u = activate(z, activation_);
  }
  return u;
}

}  // namespace symgnn::models
