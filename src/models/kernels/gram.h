/// @file
/// The Gram matrix G = F^T F of a tall matrix F (n x f), with a backward of one matrix
/// product: dF = F (dG + dG^T).
///
/// Why: the item-based ranker (models/elsa/elsa_model.cpp) forms the Gram matrix of its
/// item rows at every optimiser step, and on a wide catalogue that is nearly all of a step
/// (16,121 items at d = 128: 264 M multiply-adds, against a few million for the batch's
/// users). Autograd's `F.t().mm(F)` differentiates both factors apart, two n x f^2 products;
/// this one product makes a step about a third cheaper, with the same values. Any device:
/// it is built of matrix products.
#pragma once

#include <ATen/core/Tensor.h>

namespace symgnn::models {

/// F^T F ([f, f]) from f [n, f]; differentiable in f.
at::Tensor gram(const at::Tensor& f);

}  // namespace symgnn::models
