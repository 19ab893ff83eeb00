#include "models/sylvester/completion_model.h"

#include <torch/torch.h>

namespace symgnn::models::sylvester {

CompletionModel::CompletionModel(const at::Tensor& scores) {
  TORCH_CHECK(scores.dim() == 2, "CompletionModel: scores must be n1 x n2");
  scores_ = register_buffer("scores", scores.to(torch::kFloat));
}

at::Tensor CompletionModel::forward(const at::Tensor& users, const at::Tensor& items) {
  return scores_.index({users, items});
}

std::shared_ptr<RatingModel> make_inference_model(const RunConfig& cfg, const ModelContext& ctx) {
  if (cfg.model == "sylvester")
    return std::make_shared<CompletionModel>(
        torch::zeros({ctx.n1, ctx.n2}, torch::TensorOptions().device(ctx.train_values.device())));
  return make_model(cfg, ctx);
}

}  // namespace symgnn::models::sylvester
