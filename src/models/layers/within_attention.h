/// @file
/// Within-network attention of one side (paper, "Low-rank Model", Eq. attn).
///
/// As printed: `U^(att) = phi(B Uh W^(att))`, `B(i, j) = exp(<u_i, u_j>) / sum_k exp(<u_i, u_k>)`.
///
/// Computed as printed: B = row-softmax(Uh Uh^T) with the rows u_i of Uh (no 1/sqrt(d)
/// scaling, none is printed), `U^(att) = phi(B (Uh W^(att)))`. B is evaluated by
/// blocked_attention() in blocks of `attention_block` rows, so the forward pass never
/// holds more than block x n scores at once.
///
/// Memory, truly: without autograd the peak is O(block * n). With autograd every block's
/// softmax output (block x n) is saved for the backward pass (softmax and the product with
/// V both use it), so the saved tensors total n x n floats however small the block: 36 MB
/// for n = 3000, 14 GB for n = 60000. Blocking bounds the transient logits/exp buffers,
/// not the saved activations; recomputing in the backward (checkpointing) would be needed
/// for that and was not required.
///
/// Shapes: Uh n x d (n = n1 or n2), B n x n (never whole), W^(att) d x d.
/// Config: hidden sets d, activation sets phi, attention_block sets the block rows.
/// Parameters: "w_att" [d, d].
#pragma once

#include <torch/nn/module.h>
#include <torch/nn/pimpl.h>

#include <string>

namespace symgnn::models {

/// row-softmax(Q K^T) V, computed `block` rows of Q at a time and concatenated.
/// Q is m x d, K is n x d, V is n x e; returns m x e. Differentiable in Q, K and V.
at::Tensor blocked_attention(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, int64_t block);

class WithinAttentionImpl : public torch::nn::Module {
 public:
  WithinAttentionImpl(int64_t d, int64_t block, std::string activation);

  /// U^(att) (n x d) from Uh (n x d).
  at::Tensor forward(const at::Tensor& uh);

 private:
  int64_t block_;
  std::string activation_;
  at::Tensor w_att_;
};
TORCH_MODULE(WithinAttention);

}  // namespace symgnn::models
