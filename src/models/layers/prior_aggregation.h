/// @file
/// Prior-association aggregation of one side (paper, "Low-rank Model", V^(p)_i and U^(p)).
///
/// As printed: `V^(p)_i = phi(H_i U^(h)_1 Theta^(p)_i)`, i = 1..K rating classes, and
/// `U_1^(p) = MLP([V^(p)_1 || ... || V^(p)_K])`. H_i is n1 x n2, so H_i U^(h)_1 does not
/// type-check, and a raw H_i sums over a node's whole history, growing with its degree.
///
/// Computed (docs/models.md, "Readings and measured facts", GC-MC-like): for the users
///   `V_k = phi(norm(H_k) Uh2 Theta_k)`   (n1 x n2)(n2 x d)(d x d) -> n1 x d,
/// each user aggregating the items it rated with class k; for the items the same with
/// H_k^T and Uh1. Then `U^(p) = phi([V_1 || ... || V_K] W_p + b_p)` (n x Kd -> n x d), the
/// MLP being one linear layer and phi.
/// norm (prior_norm): "left" (default): `norm(H_k) = D^-1 H_k`, D = diag of the node's
/// number of training ratings over all classes, so the K blocks are averages sharing one
/// scale; "symmetric": `D^-1/2 H_k D_other^-1/2` (GC-MC's symmetric option).
/// Edge dropout (prior_dropout = p > 0, training only): each stored entry of norm(H_k) is
/// kept with probability 1 - p and scaled by 1/(1 - p); off by default (faithful).
///
/// Order: `(H_k Uh_other) Theta_k` (aggregate first) costs its K d x d products on this
/// side's n rows, `H_k (Uh_other Theta_k)` (transform first) on the other side's m rows;
/// the values are the same up to rounding, so the side with fewer rows is taken (at 1 M
/// ratings, 20,000 users x 5,000 items, the users' prior does its products on the items'
/// rows). Either way class_spmm.h writes the K aggregations in the layout read next.
///
/// Shapes: H_k n x m (n this side, m the other side), Uh_other m x d, Theta [K, d, d],
/// W_p Kd x d. Config: hidden sets d, activation phi, prior_norm, prior_dropout.
/// Parameters: "theta" [K, d, d], "mlp.weight" [d, Kd], "mlp.bias" [d].
/// Deviation: Uh_other and norm(H_k) in place of the printed U^(h)_1 and H_i; see
/// docs/models.md.
#pragma once

#include <torch/nn/module.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/pimpl.h>

#include <string>
#include <vector>

#include "symgnn/graph.h"

namespace symgnn::models {

/// Position in `values` (CSR order) of each entry of m's stored transpose, so that one
/// edge-dropout mask can be applied to both: t_values = values[positions].
at::Tensor transpose_positions(const graph::SparseMatrix& m);

/// m with each stored entry dropped with probability p and the others scaled by 1/(1-p)
/// (inverted dropout), the same entries in the matrix and its stored transpose.
graph::SparseMatrix drop_entries(const graph::SparseMatrix& m, const at::Tensor& positions, double p);

/// norm(H_k) for every class: "left" gives D^-1 H_k with D the node's number of training
/// ratings over all classes (so the K blocks share one scale); "symmetric" gives
/// D^-1/2 H_k D_other^-1/2. `h` holds the raw class-k priors seen from one side.
std::vector<graph::SparseMatrix> normalize_prior(const std::vector<graph::SparseMatrix>& h,
                                                 const std::string& norm);

/// Which product comes first (see above); kAuto takes the side with fewer rows. Tests pin it.
enum class PriorOrder { kAuto, kAggregateFirst, kTransformFirst };

class PriorAggregationImpl : public torch::nn::Module {
 public:
  /// `h[k]` is the raw class-k prior seen from this side (n x m, entries 1); all share
  /// a shape, dtype and device. `norm` is "left" or "symmetric".
  PriorAggregationImpl(const std::vector<graph::SparseMatrix>& h, int64_t d, const std::string& norm,
                       double edge_dropout, std::string activation);

  /// U^(p) (n x d) from the other side's Uh (m x d).
  at::Tensor forward(const at::Tensor& uh_other);

  /// norm(H_k), as used when edge dropout is off.
  const graph::SparseMatrix& normalized(size_t k) const { return hn_[k]; }

  void set_order(PriorOrder order) { order_ = order; }

 private:
  std::vector<graph::SparseMatrix> hn_;
  std::vector<at::Tensor> perm_;  // t_values = values[perm]: carries a dropout mask to the transpose
  double edge_dropout_;
  std::string activation_;
  PriorOrder order_ = PriorOrder::kAuto;
  at::Tensor theta_;
  torch::nn::Linear mlp_{nullptr};
};
TORCH_MODULE(PriorAggregation);

}  // namespace symgnn::models
