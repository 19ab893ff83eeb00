/// @file
/// The rating head of the closed-form ranking kinds (EASE, ItemKNN; symgnn/model_kinds.h),
/// which do not model rating values: Koren's damped baseline predictor,
///
///   b_i = sum_u (r_ui - mu) / (n_i + 25),  b_u = sum_i (r_ui - mu - b_i) / (n_u + 10),
///   r(u, i) = mu + b_u + b_i,
///
/// items first, then users on what the items leave.
#pragma once

#include <ATen/core/Tensor.h>

#include <vector>

#include "symgnn/dataset.h"

namespace symgnn::models {

struct DampedBiases {
  double mu = 0;    // the mean of the ratings (0 when there are none)
  at::Tensor user;  // [n1] float64
  at::Tensor item;  // [n2] float64
};

/// The damped biases of `ratings` over n1 users and n2 items, on `device`.
DampedBiases damped_biases(const std::vector<const RatingList*>& ratings, int64_t n1, int64_t n2,
                           const at::Device& device);

}  // namespace symgnn::models
