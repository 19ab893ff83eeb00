#include "models/layers/activation.h"

#include <ATen/ATen.h>

#include "symgnn/error.h"

namespace symgnn::models {

at::Tensor activate(const at::Tensor& x, const std::string& name) {
  if (name == "relu") return at::relu(x);
  if (name == "elu") return at::elu(x);
  if (name == "tanh") return at::tanh(x);
  if (name == "sigmoid") return at::sigmoid(x);
  if (name == "identity") return x;
  throw ConfigError("unknown activation '" + name + "' (relu|elu|tanh|sigmoid|identity)");
}

}  // namespace symgnn::models
