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

 private:
  graph::SparseMatrix at_;
  std::string activation_;
  at::Tensor s_logit_;
  std::vector<at::Tensor> w_;
  std::vector<at::Tensor> b_;  // empty without bias
};
TORCH_MODULE(CGE);

}  // namespace symgnn::models
