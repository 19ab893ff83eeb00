// RatingModel's default training objective: masked MSE, i.e. the squared error on the
// observed training ratings only (unobserved entries never enter the loss).
#include <torch/torch.h>

#include "symgnn/model.h"

namespace symgnn::models {

at::Tensor RatingModel::training_loss(const at::Tensor& users, const at::Tensor& items,
                                      const at::Tensor& target, at::Tensor* pred) {
  at::Tensor p = forward(users, items);
  if (pred) *pred = p;
  return torch::mse_loss(p, target);
}

}  // namespace symgnn::models
