/// @file
/// The bilinear forms of the rating-class decoder for a batch of (user, item) pairs,
/// fused: `s[k, b] = <P[users_k, b, :], V[items_k, :]>` with P = U1 Q (n1 x nb x d, the
/// users' rows times each basis Q_b) and V = U2 (n2 x d). lowrank_model.cpp builds
/// `logits = s A^T` from it (decoder = classes).
///
/// Why fused: the composite `P.index_select(users) * V.index_select(items)` writes and
/// reads a K x nb x d tensor in the forward and again in the backward (Douban: 117,000
/// pairs x 4 bases x 50 = 94 MB per pass), about two thirds of an epoch's time. The fused
/// kernel reads P and V, which are small enough to stay in cache, once per pair: the
/// forward is K nb d multiply-adds and the backward scatters into per-chunk copies of dP
/// and dV that are summed in chunk order, so results do not depend on thread scheduling.
/// CPU tensors take the fused kernel; other devices take the composite (same values).
#pragma once

#include <ATen/core/Tensor.h>

namespace symgnn::models {

/// s [K, nb] from p [n1, nb, d], v [n2, d], users and items int64 [K]; differentiable in
/// p and v. Throws c10::Error on shapes that disagree or ids outside the tables.
at::Tensor pair_bilinear(const at::Tensor& p, const at::Tensor& v, const at::Tensor& users,
                         const at::Tensor& items);

/// The composite reference (index_select, multiply, sum): any device; tests compare with it.
at::Tensor pair_bilinear_composite(const at::Tensor& p, const at::Tensor& v, const at::Tensor& users,
                                   const at::Tensor& items);

}  // namespace symgnn::models
