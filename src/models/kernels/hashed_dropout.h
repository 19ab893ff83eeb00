/// @file
/// Inverted dropout whose mask is a hash of one seed and each element's position:
/// y_i = x_i / (1 - p) where h(seed, i) < (1 - p) 2^32, else 0; dx = the same mask applied to
/// dy. The seed is one draw from LibTorch's default CPU generator per call, so runs are
/// repeatable under torch::manual_seed (train.seed) as with torch::dropout.
///
/// Why: the prior encoder (models/layers/prior_encoder.cpp) drops 70 % of an n x w hidden
/// layer at every step. torch::dropout draws each element of a float mask with a serial
/// 64-bit generator call, then multiplies, and keeps the mask for the backward: on
/// `real/ml-latest-small` (9,742 x 510) its bernoulli draws were a quarter of an epoch
/// (52 of about 200 ms, LibTorch's profiler), on one thread whatever train.threads says.
/// Here one pass writes y (a splitmix64 hash of each element's position, vectorised, on
/// every thread), and the backward recomputes the mask from the seed instead of holding it
/// (n w floats fewer).
/// The keep probability is (1 - p) rounded to a multiple of 2^-32.
///
/// CPU tensors of float or double; on any other device or type, torch::dropout (same
/// distribution, LibTorch's draws).
#pragma once

#include <ATen/core/Tensor.h>

namespace symgnn::models {

/// x with each element kept with probability 1 - p and scaled by 1 / (1 - p) when `train`,
/// else x. p in [0, 1). Differentiable in x, to any order (the backward is the same mask).
at::Tensor hashed_dropout(const at::Tensor& x, double p, bool train);

}  // namespace symgnn::models
