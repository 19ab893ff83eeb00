// RatingModel's defaults: masked MSE as the training objective, i.e. the squared error on
// the observed training ratings only (unobserved entries never enter the loss); whole-
// catalogue scores through forward(); no closed-form fit.
#include <torch/types.h>
#include <torch/utils.h>

#include "models/closed_form_predictions.h"
#include "models/objectives/score_view.h"
#include "symgnn/error.h"
#include "symgnn/model.h"

namespace symgnn::models {

at::Tensor RatingModel::training_loss(const at::Tensor& users, const at::Tensor& items,
                                      const at::Tensor& target, at::Tensor* pred) {
  at::Tensor p = forward(users, items);
  if (pred) *pred = p;
  return torch::mse_loss(p, target);
}

ScoreView RatingModel::ranking_scores() {
  return {};
}

std::string RatingModel::pin_chosen_setting(RunConfig&, const nlohmann::json&, const std::string&) const {
  return "";
}

void RatingModel::set_combination(const Combination&, const Biases&, const Shrinkage&) {
  throw ConfigError("model " + name() +
                    ": holds no combination with the bias baseline (train.auto builds the combination kind, "
                    "models/baseline/combined_model.h)");
}

ClosedFormFit RatingModel::fit(const Dataset&, const at::Device&,
                               const std::function<void(const std::string&)>&) {
  throw ConfigError("model " + name() + ": learns by training (train/trainer.h), not in closed form");
}

at::Tensor RatingModel::rating_items(const at::Tensor& users, int64_t n2) {
  const int64_t b = users.numel();
  // Every (user, item) pair of the block: users repeated n2 times, items tiled.
  const at::Tensor u = users.repeat_interleave(n2);
  const at::Tensor i = torch::arange(n2, users.options()).repeat({b});
  return forward(u, i).reshape({b, n2});
}

std::vector<double> clipped_predictions(RatingModel& model, const RatingList& list, double lo, double hi,
                                        const at::Device& device) {
  torch::NoGradGuard no_grad;
  const at::Tensor p = model
                           .forward(torch::tensor(list.user, torch::kLong).to(device),
                                    torch::tensor(list.item, torch::kLong).to(device))
                           .clamp(lo, hi)
                           .to(torch::kCPU, torch::kDouble)
                           .contiguous();
  return std::vector<double>(p.data_ptr<double>(), p.data_ptr<double>() + p.numel());
}

}  // namespace symgnn::models
