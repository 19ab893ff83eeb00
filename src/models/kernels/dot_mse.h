/// @file
/// The dot decoder's prediction and squared error over a batch of (user, item) pairs, in
/// one pass (lowrank_model.h, decoder = dot, the paper's L_2):
///   pred_k = mean + std (<U1[u_k], U2[i_k]> + b1[u_k] + b2[i_k])   (with biases)
///   pred_k = <U1[u_k], U2[i_k]>                                     (without)
///   loss   = weight * sum_k (pred_k - t_k)^2
/// weight = 1 / K is torch::mse_loss; 1 / N over a chunk of N pairs is that chunk's share.
///
/// Why fused: the composite (gathers, the products, the biases' gathers, the affine map,
/// mse_loss, and the backward of each) makes about a dozen passes over per-pair tensors
/// and gathers both representation rows twice. Here each pair's rows are read once and its
/// gradients scattered at once: dU1[u] += g U2[i], dU2[i] += g U1[u], db1[u] += g,
/// db2[i] += g, g = 2 weight (pred - t) std. The forward computes the gradients with the
/// loss (the loss is a scalar, so the backward only scales them by the incoming gradient).
/// Threads take contiguous ranges of pairs, each with private gradient tables summed in
/// range order, so results do not depend on thread scheduling. CPU float and double
/// tensors take it; other devices and types take the composite (same values).
#pragma once

#include <ATen/core/Tensor.h>

namespace symgnn::models {

struct DotDecoder {
  at::Tensor u1, u2;  // [n1, d], [n2, d]
  at::Tensor b1, b2;  // [n1], [n2]; both undefined: no biases (and no mean, std)
  double mean = 0.0, std = 1.0;
};

/// The loss (a scalar), differentiable in u1, u2, b1, b2. `pred`, when given, receives
/// the predictions [K] (detached). Throws c10::Error on shapes that disagree or ids
/// outside the tables.
at::Tensor dot_mse(const DotDecoder& dec, const at::Tensor& users, const at::Tensor& items,
                   const at::Tensor& target, double weight, at::Tensor* pred = nullptr);

/// The composite reference (index_select, sum, mse): any device; tests compare with it.
at::Tensor dot_mse_composite(const DotDecoder& dec, const at::Tensor& users, const at::Tensor& items,
                             const at::Tensor& target, double weight, at::Tensor* pred = nullptr);

}  // namespace symgnn::models
