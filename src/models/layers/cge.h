/// @file
/// CGE stack of one side (paper, "Low-rank Model", CGE-based neural aggregation).
///
/// As printed: `U^(l+1) = phi((diag(sigma) + (I - diag(sigma)) At) U^(l) W^(l))`, U^(0) = Uh.
///
/// Computed (docs/models.md, "Readings and measured facts"): `Ah = diag(s) + (I - diag(s)) At`
/// with s = sigmoid(z), z a learnable logit per node, so each node weighs its own row against its neighbours'
/// with a weight in [0, 1]; then L layers `U^(l+1) = phi(Ah U^(l) W^(l))`, returning U^(L).
/// Ah is never formed: `Ah Y = s * Y + (1 - s) * (At Y)` with Y = U^(l) W^(l) (n x d), and
/// At Y is one graph::spmm, so a layer costs O(nnz(At) d + n d^2).
///
/// Shapes: At n x n (n = n1 or n2), U^(l) n x d, W^(l) d x d, s n.
/// Config: hidden sets d, layers sets L, activation sets phi.
/// Parameters: "s_logit" [n] (z, initialised to 0: s = 0.5) and "w0" .. "w{L-1}" [d, d]
/// (W^(l), no bias, as printed). sigma is shared by the L layers: the paper's symbol has
/// no layer index. With bias: "b0" .. "b{L-1}" [d], initialised to 0.
#pragma once

#include <torch/nn/module.h>
#include <torch/nn/pimpl.h>

#include <string>
#include <vector>

#include "symgnn/graph.h"

namespace symgnn::models {

/// Some rows of an n x d tensor: ascending node indices and their values [m, d].
struct NodeRows {
  std::vector<int64_t> index;
  at::Tensor values;
};

/// What a fold-in (cge_rows.cpp) reads of a forward: the layer products y^(l) = U^(l) W^(l),
/// l = 0..L-1 (on the module's device), and At's rows and columns (CSR and its stored
/// transpose) on the CPU.
struct CgeTrace {
  std::vector<at::Tensor> products;
  at::Tensor self_weight;  // s [n]
  at::Tensor row_ptr, col_idx, values, t_row_ptr, t_col_idx;
  bool identity = false;
};

/// A node appended after training (a fold-in's new user, RatingModel::fold_user): index n,
/// its row of At (the nodes it gathers from and the entries, or the identity's), its gate
/// s = sigmoid(0) (a zero weight row); no row of At names it.
struct AppendedNode {
  int64_t index = 0;
  std::vector<int64_t> cols;
  std::vector<float> vals;
  bool identity = false;
};

class CGEImpl : public torch::nn::Module {
 public:
  /// `at` is At of this side (n x n, dtype and device of the model's tensors), L >= 1.
  /// `bias`: add a learned b^(l) before phi, U^(l+1) = phi(Ah U^(l) W^(l) + b^(l))
  /// (lowrank.cge_bias; off as printed).
  CGEImpl(graph::SparseMatrix at, int64_t d, int64_t layers, std::string activation, bool bias = false);

  /// U^(L) (n x d) from U^(0) = uh (n x d).
  at::Tensor forward(const at::Tensor& uh);

  /// s = sigmoid(z) (n), the self-connection weights.
  at::Tensor self_weight() const;

  /// The forward of `uh` as a fold-in reads it (CgeTrace).
  CgeTrace trace(const at::Tensor& uh);

  /// The rows of U^(L) that change when the rows `changed` of U^(0) take new values, the
  /// others as in `trace` (cge_rows.cpp): each layer recomputes the rows that gather from a
  /// changed row, so an edit costs its receptive field, not the graph. `appended`: a node
  /// beyond the trace (among `changed`, with its own row of At). `wanted`: only these rows of
  /// U^(L) are asked for (the others are not computed); null: every changed row.
  NodeRows fold_rows(const CgeTrace& trace, const NodeRows& changed, const AppendedNode* appended,
                     const std::vector<int64_t>* wanted) const;

  /// The trace of this module's forward of the input `before` traced (the same U^(0) and
  /// weights) where At may differ from before's in some rows (a graph edit): the rows of At
  /// that differ, and layer by layer the rows that gather from a changed row, recomputed
  /// (cge_rows.cpp); the others taken from `before`. `changed` receives the rows of U^(L) that
  /// differ from before's, with their values.
  CgeTrace retrace(const CgeTrace& before, NodeRows& changed);

 private:
  /// A trace without products: s and At's CSR with its transpose (CPU).
  CgeTrace graph_trace() const;
  /// forward() keeping each layer's product in `products` where given.
  at::Tensor run(const at::Tensor& uh, std::vector<at::Tensor>* products);

  graph::SparseMatrix at_;
  std::string activation_;
  at::Tensor s_logit_;
  std::vector<at::Tensor> w_;
  std::vector<at::Tensor> b_;  // empty without bias
};
TORCH_MODULE(CGE);

}  // namespace symgnn::models
