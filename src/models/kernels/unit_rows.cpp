#include "models/kernels/unit_rows.h"

#include <torch/autograd.h>
#include <torch/types.h>

namespace symgnn::models {

namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

struct UnitRowsFunction : public torch::autograd::Function<UnitRowsFunction> {
  static at::Tensor forward(AutogradContext* ctx, const at::Tensor& x, double eps) {
    const at::Tensor norm = x.norm(2, {1}, true);
    const at::Tensor scale = norm.clamp_min(eps);
    const at::Tensor y = x / scale;
    // Where the norm is clamped the row is x / eps, linear in x: no projection.
    ctx->save_for_backward({y, scale, norm >= eps});
    return y;
  }

  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const auto saved = ctx->get_saved_variables();
    const at::Tensor &y = saved[0], &scale = saved[1], &unclamped = saved[2];
    const at::Tensor& dy = grads[0];
    // d(x/|x|) = (I - y y^T) / |x|: take each row's component along y out of dy.
    const at::Tensor along = (y * dy).sum(1, true) * unclamped;
    return {(dy - y * along) / scale, at::Tensor()};
  }
};

}  // namespace

at::Tensor unit_rows(const at::Tensor& x, double eps) {
  TORCH_CHECK(x.dim() == 2, "unit_rows: x must be [n, f], got ", x.sizes());
  return UnitRowsFunction::apply(x, eps);
}

}  // namespace symgnn::models
