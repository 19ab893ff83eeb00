#include "models/layers/cross_attention.h"

#include <torch/nn/init.h>
#include <torch/types.h>

#include "models/layers/activation.h"
#include "models/layers/within_attention.h"

namespace symgnn::models {

CrossAttentionImpl::CrossAttentionImpl(int64_t d, int64_t block, std::string activation)
    : block_(block), activation_(std::move(activation)) {
  auto theta = torch::empty({d, d});
  torch::nn::init::xavier_uniform_(theta);
  theta_c_ = register_parameter("theta_c", theta);
}

at::Tensor CrossAttentionImpl::forward(const at::Tensor& uh, const at::Tensor& uh_other) {
  return activate(blocked_attention(uh, uh_other, uh_other.mm(theta_c_), block_), activation_);
}

}  // namespace symgnn::models
