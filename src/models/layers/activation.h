// phi: the activation named by a config field (relu|elu|tanh|sigmoid|identity).
#pragma once

#include <ATen/core/Tensor.h>

#include <string>

namespace symgnn::models {

/// Applies the activation `name` (already validated by the config checks).
at::Tensor activate(const at::Tensor& x, const std::string& name);

}  // namespace symgnn::models
