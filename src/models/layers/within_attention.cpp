#include "models/layers/within_attention.h"

#include <torch/nn/init.h>
#include <torch/types.h>

#include <vector>

#include "models/layers/activation.h"

namespace symgnn::models {

at::Tensor blocked_attention(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, int64_t block) {
  TORCH_CHECK(block >= 1, "blocked_attention: block must be >= 1, got ", block);
  TORCH_CHECK(
      q.dim() == 2 && k.dim() == 2 && v.dim() == 2 && q.size(1) == k.size(1) && k.size(0) == v.size(0),
      "blocked_attention: Q m x d, K n x d, V n x e expected");
  const int64_t m = q.size(0);
  const at::Tensor kt = k.t();  // d x n
  if (m <= block) return torch::softmax(q.mm(kt), 1).mm(v);
  std::vector<at::Tensor> out;
  for (int64_t start = 0; start < m; start += block) {
    const at::Tensor scores = q.slice(0, start, std::min(start + block, m)).mm(kt);  // b x n
    out.push_back(torch::softmax(scores, 1).mm(v));                                  // b x e
  }
  return torch::cat(out, 0);
}

WithinAttentionImpl::WithinAttentionImpl(int64_t d, int64_t block, std::string activation)
    : block_(block), activation_(std::move(activation)) {
  auto w = torch::empty({d, d});
  torch::nn::init::xavier_uniform_(w);
  w_att_ = register_parameter("w_att", w);
}

at::Tensor WithinAttentionImpl::forward(const at::Tensor& uh) {
  // B (Uh W) rather than (B Uh) W: same result, and the n x n product meets a thin matrix.
  return activate(blocked_attention(uh, uh, uh.mm(w_att_), block_), activation_);
}

}  // namespace symgnn::models
