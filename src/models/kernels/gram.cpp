#include "models/kernels/gram.h"

#include <torch/autograd.h>
#include <torch/types.h>

namespace symgnn::models {

namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

struct GramFunction : public torch::autograd::Function<GramFunction> {
  static at::Tensor forward(AutogradContext* ctx, const at::Tensor& f) {
    ctx->save_for_backward({f});
    return f.t().mm(f);
  }

  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const at::Tensor f = ctx->get_saved_variables()[0];
    // d<dG, F^T F>/dF = F dG^T + F dG: one product of the n x f rows by the small f x f sum.
    return {f.mm(grads[0] + grads[0].t())};
  }
};

}  // namespace

at::Tensor gram(const at::Tensor& f) {
  TORCH_CHECK(f.dim() == 2, "gram: f must be [n, f], got ", f.sizes());
  return GramFunction::apply(f);
}

}  // namespace symgnn::models
