/// @file
/// Prior-association module b_Theta built as GC-MC builds its encoder (lowrank.prior =
/// encoder): the paper's "K neural networks, each aggregating one class of nodes,
/// concatenated, then an MLP", with free embeddings of the other side as the aggregated
/// messages.
///
/// Per rating class k (K classes), with A_k the 0/1 class-k training ratings (n1 x n2) and
/// E1 (n1 x w), E2 (n2 x w) free embeddings (w = prior_width):
///   concat stacking: class k reads its own block S_k of w/K columns,
///     H1 = relu([D1^-1 A_1 E2[:, S_1] || ... || D1^-1 A_K E2[:, S_K]])     n1 x w
///   sum stacking: one table E2^(k) (n2 x w) per class,
///     H1 = relu(sum_k D1^-1 A_k E2^(k))                                   n1 x w
/// D1 = each user's number of training ratings over all classes (normalize_prior, "left";
/// prior_norm = symmetric uses D1^-1/2 A_k D2^-1/2). The items do the same with A_k^T, D2
/// and E1.
/// Side features x (where the side has them), rows scaled to sum 1 so that an age and a
/// one-hot occupation weigh alike: f = relu(x W_f) + b_f (prior_side_width units), and
/// H <- [H || f].
/// Output: U^(p) = dropout(H) W_d (hidden units, no bias, no activation). W_d is shared by
/// the two sides when neither has side features (their H have the same meaning: the
/// aggregated embedding of the other side), separate otherwise.
/// Node dropout (training only): per forward pass each row of E1 and of E2 is kept with
/// probability 1 - prior_node_dropout and scaled by 1/(1 - p): a user's whole message is
/// dropped, not single entries, which is what regularises GC-MC.
/// Kernels (encoder_kernels): fused, the default, folds the node dropout into the class
/// entries (H_k (keep * E) = (H_k diag(keep)) E), makes the K class products in one pass over
/// the table's column blocks (models/kernels/class_spmm.h) and draws the dense dropout's mask
/// from a hash of one seed (models/kernels/hashed_dropout.h); composite makes the same model
/// from LibTorch's ops, with other random draws and float sums, as the figures of
/// docs/results.md were measured.
///
/// Shapes: E1 [n1, w] ([K, n1, w] with sum stacking), W_f [p, s], W_d [w + s, d].
/// Parameters: "e1", "e2", "side1.*", "side2.*", "dense" or "dense1"/"dense2".
#pragma once

#include <torch/nn/module.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/pimpl.h>

#include <string>
#include <utility>
#include <vector>

#include "symgnn/config.h"
#include "symgnn/graph.h"

namespace symgnn::models {

class PriorEncoderImpl : public torch::nn::Module {
 public:
  /// `h` / `ht`: the raw class-k priors n1 x n2 and their transposes (ModelContext::h, ht);
  /// `f1`, `f2`: side features (n x p) or undefined. Output width cfg.hidden.
  PriorEncoderImpl(const LowRankConfig& cfg, const std::vector<graph::SparseMatrix>& h,
                   const std::vector<graph::SparseMatrix>& ht, const at::Tensor& f1, const at::Tensor& f2);

  /// (U1^(p) n1 x d, U2^(p) n2 x d).
  std::pair<at::Tensor, at::Tensor> forward();

  /// Rows of U^(p) of one side (0: users, 1: items) from their normalised prior entries,
  /// in eval mode (prior_encoder_rows.cpp): a fold-in's rows (RatingModel::fold_user). Entry e
  /// adds val[e] times the other side's embedding of node col[e] in class cls[e] to row
  /// row[e] (of `m` rows); `x`: the rows' side-feature inputs, row-normalised (side_inputs()
  /// rows, or feature_rows_normalized() of new ones), undefined for zeros.
  at::Tensor rows(int side, int64_t m, const std::vector<int64_t>& row, const std::vector<int64_t>& cls,
                  const std::vector<int64_t>& col, const std::vector<float>& val, const at::Tensor& x);
  /// The normalised priors seen from one side (0: users, 1: items): norm(H_k) per class.
  const std::vector<graph::SparseMatrix>& normalized(int side) const { return side == 0 ? hn1_ : hn2_; }
  /// The row-normalised side features of one side; undefined where the side has none.
  const at::Tensor& side_inputs(int side) const { return side == 0 ? x1_ : x2_; }

 private:
  /// H of one side: aggregation of `other` (the other side's embedding), its rows scaled by
  /// `keep` (node dropout's factors [n_other, 1]; undefined: none).
  at::Tensor aggregate(std::vector<graph::SparseMatrix>& hn, const at::Tensor& other, const at::Tensor& keep);
  /// The same H with LibTorch's ops, class by class, from a table whose rows dropout already
  /// scaled: encoder_kernels = composite, and sum stacking under either kernels.
  at::Tensor aggregate_composite(std::vector<graph::SparseMatrix>& hn, const at::Tensor& other);
  /// The side branches joined, the dense dropout and the dense layer(s): U^(p) of both sides.
  std::pair<at::Tensor, at::Tensor> dense_layers(at::Tensor h1, at::Tensor h2, bool train);
  at::Tensor side_branch(torch::nn::Linear& layer, const at::Tensor& bias, at::Tensor& x,
                         const at::Tensor& like);

  LowRankConfig cfg_;
  std::vector<graph::SparseMatrix> hn1_, hn2_;  // norm(H_k) seen from the users, the items
  at::Tensor x1_, x2_;                          // row-normalised side features (fixed inputs)
  at::Tensor e1_, e2_;
  torch::nn::Linear side1_{nullptr}, side2_{nullptr};
  at::Tensor side1_bias_, side2_bias_;
  torch::nn::Linear dense1_{nullptr}, dense2_{nullptr};  // dense2_ null when shared
};
TORCH_MODULE(PriorEncoder);

/// Side-feature rows as the encoder reads them: scaled to sum 1 in absolute value.
at::Tensor feature_rows_normalized(const at::Tensor& x);

}  // namespace symgnn::models
