// The combination of a trained model with the bias baseline (combined_model.h).
#include "models/baseline/combined_model.h"

#include <torch/types.h>
#include <torch/utils.h>

#include "symgnn/model_kinds.h"

namespace symgnn::models {

CombinedModel::CombinedModel(const BaselineConfig& cfg, const ModelContext& ctx,
                             std::shared_ptr<RatingModel> inner)
    : sweeps_(cfg.sweeps) {
  inner_ = register_module("inner", std::move(inner));
  baseline_ = register_module("baseline", std::make_shared<BaselineModel>(cfg, ctx));
  const at::Device device = ctx.train_values.defined() ? ctx.train_values.device() : at::Device(at::kCPU);
  const auto opts = torch::TensorOptions().dtype(torch::kFloat).device(device);
  weights_ = register_buffer("combination", torch::tensor({0.0f, 1.0f, 0.0f}, opts));
  shrinkage_ = register_buffer("shrinkage", torch::zeros({2}, opts));
}

at::Tensor CombinedModel::forward(const at::Tensor& users, const at::Tensor& items) {
  // At the identity (during training) this is the model's own prediction, bit for bit:
  // 0 + 1 * f + 0 * (finite biases).
  return weights_[0] + weights_[1] * inner_->forward(users, items) +
         weights_[2] * baseline_->forward(users, items);
}

at::Tensor CombinedModel::rating_items(const at::Tensor& users, int64_t n2) {
  const at::Tensor f = inner_->rating_items(users, n2);
  return weights_[0] + weights_[1] * f + weights_[2] * baseline_->rating_items(users, n2);
}

at::Tensor CombinedModel::score_items(const at::Tensor& users, int64_t n2) {
  return inner_->ranks_by_rating() ? rating_items(users, n2) : inner_->score_items(users, n2);
}

ScoreFactors CombinedModel::score_factors() {
  if (!inner_->ranks_by_rating()) return inner_->score_factors();
  const at::Tensor w = weights_.detach().to(at::kCPU, at::kDouble);
  ScoreFactors f = weighted_sum(inner_->score_factors(), w[1].item<double>(), baseline_->score_factors(),
                                w[2].item<double>(), w[0].item<double>());
  if (f.items.defined())
    f.meaning += "; combined with the bias baseline as " + std::to_string(w[0].item<double>()) + " + " +
                 std::to_string(w[1].item<double>()) + " x model + " + std::to_string(w[2].item<double>()) +
                 " x baseline (train.auto)";
  return f;
}

void CombinedModel::set_combination(const Combination& w, const Biases& biases, const Shrinkage& shrinkage) {
  torch::NoGradGuard no_grad;
  weights_.copy_(torch::tensor({static_cast<float>(w.c), static_cast<float>(w.a), static_cast<float>(w.b)}));
  shrinkage_.copy_(torch::tensor({static_cast<float>(shrinkage.user), static_cast<float>(shrinkage.item)}));
  baseline_->set(biases);
}

void CombinedModel::nodes_added(const ModelContext& ctx, int64_t trained_users, int64_t trained_items) {
  inner_->nodes_added(ctx, trained_users, trained_items);
  const at::Tensor s = shrinkage_.to(at::kCPU).to(at::kDouble).contiguous();
  baseline_->extend(ctx, trained_users, trained_items, {s.data_ptr<double>()[0], s.data_ptr<double>()[1]},
                    sweeps_);
}

bool CombinedModel::take_graph_edit(RatingModel& before) {
  auto* b = dynamic_cast<CombinedModel*>(&before);
  return b && inner_->take_graph_edit(*b->inner_);
}

at::Tensor CombinedModel::fold_user(const UserFold& fold) {
  const at::Tensor inner = inner_->fold_user(fold);
  if (!inner.defined()) return {};
  torch::NoGradGuard no_grad;
  const double lambda_user = shrinkage_[0].item<double>();
  const at::Tensor baseline = baseline_->fold_row(fold, lambda_user, sweeps_);
  const at::Tensor ratings = weights_[0] + weights_[1] * inner[1] + weights_[2] * baseline;
  const at::Tensor scores = inner_->ranks_by_rating() ? ratings : inner[0];
  return torch::stack({scores, ratings});
}

bool combines_with_baseline(const RunConfig& cfg) {
  return cfg.train.auto_choose == "on" && cfg.train.objective == "rating" &&
         model_kind(cfg.model).fit == FitMethod::trained;
}

}  // namespace symgnn::models
