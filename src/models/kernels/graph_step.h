/// @file
/// One step over a fixed graph, mixed with the input: y = (1 - beta) x + beta A x, with a
/// backward of one product: dx = (1 - beta) dy + beta A^T dy.
///
/// Why: the item-based ranker (models/elsa/elsa_model.cpp, elsa.graph_beta) mixes its whole
/// item matrix at every optimiser step. Autograd's `(1 - beta) * x + beta * spmm(A, x)` makes
/// three more passes over the n x d matrix each way; here the sum is made in place on the
/// product, and no matrix beside A is built (a (1 - beta) I + beta A would hold A twice: 160 MB
/// for a 260,000-item 10-NN graph). Any device: spmm and in-place ATen ops.
#pragma once

#include <ATen/core/Tensor.h>

#include "symgnn/graph.h"

namespace symgnn::models {

/// (1 - beta) x + beta A x for x [n, d] (A n x n, x's type); differentiable in x.
at::Tensor graph_step(const graph::SparseMatrix& a, const at::Tensor& x, double beta);

}  // namespace symgnn::models
