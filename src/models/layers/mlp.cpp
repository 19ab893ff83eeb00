#include "models/layers/mlp.h"

#include <torch/types.h>

#include <cmath>

namespace symgnn::models {

FeatureMlpImpl::FeatureMlpImpl(int64_t n, int64_t d, const at::Tensor& features) : features_(features) {
  TORCH_CHECK(!features.defined() || (features.dim() == 2 && features.size(0) == n),
              "FeatureMlp: features must be ", n, " x p");
  // N(0, 1/d) keeps <Uh_i, Uh_j> of order 1 at the start whatever d is.
  embedding_ = register_parameter("embedding", torch::randn({n, d}) / std::sqrt(static_cast<double>(d)));
  int64_t in = d;
  if (features_.defined()) {
    side_ = register_module("side", torch::nn::Linear(features_.size(1), d));
    in += d;
  }
  linear_ = register_module("linear", torch::nn::Linear(in, d));
}

at::Tensor FeatureMlpImpl::forward() {
  at::Tensor f = embedding_;
  if (features_.defined()) {
    // The fixed features follow the parameters when the module was moved or cast.
    if (features_.device() != f.device() || features_.scalar_type() != f.scalar_type())
      features_ = features_.to(f.options());
    f = torch::cat({f, side_->forward(features_)}, 1);  // n x 2d
  }
  // Plain last layer (no phi): with phi = relu every module output is >= 0, so with the
  // sum fusion <U1_i, U2_j> could never go below zero, which standardised ratings need
  // (the tiny overfit test stalled at RMSE 0.35-0.57 with biases); see docs/models.md.
  return linear_->forward(f);
}

}  // namespace symgnn::models
