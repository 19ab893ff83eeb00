/// @file
/// The four n1 x n2 channels of the base model (paper, "Base Model"), each returned as
/// thin factors so that the model forms every n1 x n2 product exactly once.
///
/// Every channel is phi of a rank-d product: `X_c = phi(L_c R_c^T)`, L_c n1 x d,
/// R_c n2 x d. The modules below return the factor pairs (L_c, R_c); BaseModel stacks them
/// and forms all products with one bmm (base_model.h). dense_channel() forms one channel
/// on its own (tests, small n).
///
/// X1, CGE-based aggregation. As printed:
///   `X1^(l) = sum_{i=1..l} phi(Ah1^i U1 W^(c)_i U2^T (Ah2^i)^T)`, `W^(c)_i = W'_i W'_i^T`,
///   `Ah = diag(sigma) + (I - diag(sigma)) At`.
/// Computed (docs/models.md, "Readings and measured facts"):
///   `X1 = sum_i phi((Ah1^i U1 W'_i)(Ah2^i U2 W'_i)^T)`, one factor pair per hop i = 1..hops;
/// `Ah = diag(s) + (I - diag(s)) At`, s = sigmoid(z) with a logit z per node (one vector per
/// side, shared by the hops). Ah^i is never formed:
/// `Ah Y = s * Y + (1 - s) * (At Y)` is applied i times to the thin U (n x d), one
/// graph::spmm each, so X1's factors cost O(hops (nnz(At) d + n d^2)).
/// Parameters: "s1_logit" [n1], "s2_logit" [n2] (0: s = 0.5), "w0".."w{hops-1}" [d, d] (W'_i).
///
/// X2, within-network attention. As printed: `X2 = phi(B1 U1 W^(a) U2^T B2^T)`,
/// `B(i, j) = exp(<u_i, u_j>) / sum_k exp(<u_i, u_k>)`.
/// Computed as printed: L = B1 (U1 W^(a)), R = B2 U2, B = row-softmax(U U^T) in row blocks
/// of `attention_block` (blocked_attention, within_attention.h; the saved softmax blocks
/// total n1^2 + n2^2 floats under autograd). Parameters: "w_a" [d, d].
///
/// X3, prior association. As printed: `X3 = phi(U1 H U2^T)` (H n1 x n2: does not type-check).
/// Computed (docs/models.md, "Readings and measured facts", per rating class k = 1..K):
///   `X3 = phi(U1 S U2^T)`, `S = sum_k (U1^T Hn_k U2) Theta_k`   (d x d),
/// Hn_k = D1^-1/2 H_k D2^-1/2 (D: rating counts over all classes). U1^T (Hn_k U2) is one
/// spmm and one d x n1 x d product: H is never densified. Parameters: "theta" [K, d, d].
/// Edge dropout (prior_dropout = p > 0, training only): entries of Hn_k kept with
/// probability 1 - p, scaled by 1/(1 - p).
///
/// X4, cross-network attention. As printed: `X4 = phi(U1 C U2^T)` (C n1 x n2: does not
/// type-check), `C(i, j) = exp(<u_i, u_j>) / sum_{k=1..n2} exp(<u_i, u_k>)`, i in G1, j in G2.
/// Computed: `X4 = phi(U1 (U1^T C U2) U2^T)`, C = row-softmax(U1 U2^T) (n1 x n2, in row
/// blocks): C U2 (n1 x d) by blocked_attention, then the d x d matrix U1^T (C U2). No
/// parameters (none printed; the fusion weight scales the channel).
///
/// Shapes: U1 n1 x d, U2 n2 x d, At1 n1 x n1, At2 n2 x n2, H_k n1 x n2.
/// Config (BaseConfig): hidden = d, hops, activation = phi, attention_block, prior_dropout.
/// Deviation: X3 and X4 as read above (docs/models.md, "Base model").
#pragma once

#include <torch/nn/module.h>
#include <torch/nn/pimpl.h>

#include <string>
#include <vector>

#include "symgnn/graph.h"

namespace symgnn::models {

/// One rank-d pre-activation `left right^T` (n1 x d, n2 x d).
struct ChannelFactors {
  at::Tensor left;
  at::Tensor right;
};

/// sum over `parts` of phi(left right^T): n1 x n2, formed densely (tests, small n).
at::Tensor dense_channel(const std::vector<ChannelFactors>& parts, const std::string& activation);

/// X1: the CGE-based channel (one factor pair per hop).
class CgeChannelImpl : public torch::nn::Module {
 public:
  CgeChannelImpl(graph::SparseMatrix at1, graph::SparseMatrix at2, int64_t d, int64_t hops);
  std::vector<ChannelFactors> factors(const at::Tensor& u1, const at::Tensor& u2);

 private:
  /// Ah^1 u, ..., Ah^hops u (each n x d) for one side.
  std::vector<at::Tensor> powers(graph::SparseMatrix& at, const at::Tensor& s_logit, const at::Tensor& u);
  graph::SparseMatrix at1_, at2_;
  at::Tensor s1_logit_, s2_logit_;
  std::vector<at::Tensor> w_;
};
TORCH_MODULE(CgeChannel);

/// X2: the within-network attention channel.
class WithinChannelImpl : public torch::nn::Module {
 public:
  WithinChannelImpl(int64_t d, int64_t block);
  ChannelFactors factors(const at::Tensor& u1, const at::Tensor& u2);

 private:
  int64_t block_;
  at::Tensor w_a_;
};
TORCH_MODULE(WithinChannel);

/// X3: the prior-association channel, per rating class.
class PriorChannelImpl : public torch::nn::Module {
 public:
  /// `h[k]` is the raw class-k prior (n1 x n2, entries 1), all of one shape.
  PriorChannelImpl(const std::vector<graph::SparseMatrix>& h, int64_t d, double edge_dropout);
  ChannelFactors factors(const at::Tensor& u1, const at::Tensor& u2);
  /// Hn_k, as used when edge dropout is off.
  const graph::SparseMatrix& normalized(size_t k) const { return hn_[k]; }

 private:
  std::vector<graph::SparseMatrix> hn_;
  std::vector<at::Tensor> perm_;  // t_values = values[perm]: carries a dropout mask to the transpose
  double edge_dropout_;
  at::Tensor theta_;
};
TORCH_MODULE(PriorChannel);

/// X4: the cross-network attention channel (no parameters).
class CrossChannelImpl : public torch::nn::Module {
 public:
  explicit CrossChannelImpl(int64_t block);
  ChannelFactors factors(const at::Tensor& u1, const at::Tensor& u2);

 private:
  int64_t block_;
};
TORCH_MODULE(CrossChannel);

}  // namespace symgnn::models
