#include "models/closed_form/damped_biases.h"

#include <torch/torch.h>

namespace symgnn::models {

DampedBiases damped_biases(const std::vector<const RatingList*>& ratings, int64_t n1, int64_t n2,
                           const at::Device& device) {
  std::vector<int64_t> u, i;
  std::vector<float> r;
  for (const RatingList* list : ratings) {
    u.insert(u.end(), list->user.begin(), list->user.end());
    i.insert(i.end(), list->item.begin(), list->item.end());
    r.insert(r.end(), list->value.begin(), list->value.end());
  }
  const at::Tensor tu = torch::tensor(u, torch::kLong).to(device),
                   ti = torch::tensor(i, torch::kLong).to(device);
  const at::Tensor tr = torch::tensor(r, torch::kDouble).to(device);
  DampedBiases out;
  out.mu = r.empty() ? 0.0 : tr.mean().item<double>();
  const auto dopts = torch::TensorOptions().dtype(torch::kDouble).device(device);
  const at::Tensor ones = torch::ones_like(tr);
  out.item = torch::zeros({n2}, dopts).index_add_(0, ti, tr - out.mu) /
             (torch::zeros({n2}, dopts).index_add_(0, ti, ones) + 25.0);
  out.user = torch::zeros({n1}, dopts).index_add_(0, tu, tr - out.mu - out.item.index_select(0, ti)) /
             (torch::zeros({n1}, dopts).index_add_(0, tu, ones) + 10.0);
  return out;
}

}  // namespace symgnn::models
