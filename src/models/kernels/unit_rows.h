/// @file
/// Each row of a matrix scaled to unit length, y = x / max(|x|, eps), with a backward of a
/// few passes: dx = (dy - y <y, dy>) / |x| (dy / eps where the norm is clamped).
///
/// Why: the item-based ranker (models/elsa/elsa_model.cpp) normalises its whole item matrix
/// at every optimiser step. Autograd's `x / x.norm(2, {1}, true).clamp_min(eps)`
/// differentiates the norm and the division apart; on 16,121 items x 128 that backward
/// costs as much as the step's Gram matrix. Any device: it is built of ATen ops.
#pragma once

#include <ATen/core/Tensor.h>

namespace symgnn::models {

/// x [n, f] with each row divided by max(its norm, eps); differentiable in x.
at::Tensor unit_rows(const at::Tensor& x, double eps = 1e-12);

}  // namespace symgnn::models
