#include "models/closed_form/damped_biases.h"

#include <torch/types.h>
#include <torch/utils.h>

namespace symgnn::models {

DampedBiasModel::DampedBiasModel(const ModelContext& ctx) : n1_(ctx.n1), n2_(ctx.n2) {
  const at::Device device = ctx.train_values.defined() ? ctx.train_values.device() : at::Device(at::kCPU);
  const auto opts = torch::TensorOptions().dtype(torch::kFloat).device(device);
  b1_ = register_buffer("b1", torch::zeros({n1_}, opts));
  b2_ = register_buffer("b2", torch::zeros({n2_}, opts));
  mu_ = register_buffer("global_mean", torch::full({}, ctx.global_mean, opts));
}

at::Tensor DampedBiasModel::forward(const at::Tensor& users, const at::Tensor& items) {
  return mu_ + b1_.index_select(0, users) + b2_.index_select(0, items);
}

at::Tensor DampedBiasModel::rating_items(const at::Tensor& users, int64_t n2) {
  TORCH_CHECK(n2 == n2_, name(), ": built for ", n2_, " items, asked for ", n2);
  return mu_ + b1_.index_select(0, users).unsqueeze(1) + b2_.unsqueeze(0);
}

void DampedBiasModel::fit_biases(const std::vector<const RatingList*>& ratings) {
  torch::NoGradGuard no_grad;
  const at::Device device = b1_.device();
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
  const double mu = r.empty() ? 0.0 : tr.mean().item<double>();
  const auto dopts = torch::TensorOptions().dtype(torch::kDouble).device(device);
  const at::Tensor ones = torch::ones_like(tr);
  const at::Tensor bi = torch::zeros({n2_}, dopts).index_add_(0, ti, tr - mu) /
                        (torch::zeros({n2_}, dopts).index_add_(0, ti, ones) + 25.0);
  const at::Tensor bu = torch::zeros({n1_}, dopts).index_add_(0, tu, tr - mu - bi.index_select(0, ti)) /
                        (torch::zeros({n1_}, dopts).index_add_(0, tu, ones) + 10.0);
  mu_.fill_(mu);
  b1_.copy_(bu);
  b2_.copy_(bi);
}

}  // namespace symgnn::models
