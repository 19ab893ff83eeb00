/// @file
/// Cross-network attention of one side (paper, "Low-rank Model", Eq. x4 and U^(c)).
///
/// As printed: `U_1^(c) = phi(C U^(h)_1 Theta^(c))` with
/// `C(i, j) = exp(<u_i, u_j>) / sum_{k=1..n2} exp(<u_i, u_k>)`, i in G1, j in G2.
/// C is n1 x n2, so C U^(h)_1 does not type-check.
///
/// Computed (docs/models.md, "Readings and measured facts"): `U_1^(c) = phi(C1 Uh2 Theta_c)`,
/// C1 = row-softmax(Uh1 Uh2^T) (n1 x n2): each user attends over the items; symmetrically, for the items,
/// `U_2^(c) = phi(C2 Uh1 Theta_c')` with C2 = row-softmax(Uh2 Uh1^T) (n2 x n1) and their own
/// Theta. Evaluated in row blocks by blocked_attention() (within_attention.h), with the
/// same memory caveat: the saved softmax blocks total n_this x n_other under autograd.
///
/// Shapes: Uh (this side) n x d, Uh_other m x d, C n x m, Theta_c d x d.
/// Config: hidden sets d, activation sets phi, attention_block sets the block rows.
/// Parameters: "theta_c" [d, d].
/// Deviation: Uh_other in place of the printed Uh (see docs/models.md).
#pragma once

#include <torch/nn/module.h>
#include <torch/nn/pimpl.h>

#include <string>

namespace symgnn::models {

class CrossAttentionImpl : public torch::nn::Module {
 public:
  CrossAttentionImpl(int64_t d, int64_t block, std::string activation);

  /// U^(c) (n x d) of the side whose representations are `uh` (n x d); `uh_other` is m x d.
  at::Tensor forward(const at::Tensor& uh, const at::Tensor& uh_other);

 private:
  int64_t block_;
  std::string activation_;
  at::Tensor theta_c_;
};
TORCH_MODULE(CrossAttention);

}  // namespace symgnn::models
