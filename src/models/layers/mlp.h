/// @file
/// Feature MLP of one side (paper, "Low-rank Model"): `Uh = MLP(F)`.
///
/// As printed: `U^(h)_1 = MLP^(l)_1(F_1)`, `U^(h)_2 = MLP^(l)_2(F_2)`.
///
/// Computed: F = [one-hot id || side features]. The one-hot part times a weight matrix is
/// an embedding table E (n x d); side features X (n x p), where the data has them, are
/// projected first (P = X W_p + b_p, n x d), then
///   `Uh = [E || P] W + b`   (n x 2d -> n x d; n x d -> n x d without side features).
///
/// Shapes: n nodes of this side (n1 or n2), d = LowRankConfig::hidden, p side features.
/// Config: hidden sets d. Parameters: "embedding" [n, d],
/// "side.weight"/"side.bias" (only with side features), "linear.weight"/"linear.bias".
///
/// Deviation: the one-hot block is an embedding (equal to a linear map of one-hot rows) and
/// the side features get their own projection so that p >> d (ML genres) or p << d (age,
/// gender) do not dominate the concatenation. The last layer is plain (no phi, as PyG's
/// MLP with plain_last): with relu, Uh and every module output would be >= 0 and the dot
/// product could not go below zero; see docs/models.md.
#pragma once

#include <torch/nn/module.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/pimpl.h>

namespace symgnn::models {

class FeatureMlpImpl : public torch::nn::Module {
 public:
  /// `features` is n x p (float) or undefined when the side has none.
  FeatureMlpImpl(int64_t n, int64_t d, const at::Tensor& features);

  /// Uh (n x d).
  at::Tensor forward();

 private:
  at::Tensor features_;  // fixed input, not a parameter
  at::Tensor embedding_;
  torch::nn::Linear side_{nullptr};
  torch::nn::Linear linear_{nullptr};
};
TORCH_MODULE(FeatureMlp);

}  // namespace symgnn::models
