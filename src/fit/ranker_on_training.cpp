// The kept ranker on the training ratings alone (ranker_on_training.h).
#include "fit/ranker_on_training.h"

#include <torch/types.h>

#include "symgnn/model.h"
#include "train/checkpoint.h"

namespace symgnn::fitting {

std::shared_ptr<models::RatingModel> ranker_on_training(RunConfig rcfg, const Dataset& ds,
                                                        const nlohmann::json& figures,
                                                        const std::map<std::string, at::Tensor>& state) {
  const at::Device device(rcfg.train.device);
  const models::ModelContext ctx = models::make_context(ds).to(device);
  auto model = models::make_model(rcfg, ctx);
  if (!model->pin_chosen_setting(rcfg, figures, "ranker").empty()) model = models::make_model(rcfg, ctx);
  model->to(device);
  if (!state.empty()) {
    train::set_module_state(*model, state);
    return model;
  }
  Dataset training_only = ds;
  training_only.validation = RatingList{};
  training_only.test = RatingList{};
  model->fit(training_only, device, nullptr);
  return model;
}

std::vector<float> ranker_rows(models::RatingModel& ranker, const std::vector<int64_t>& users, int64_t n2,
                               const std::string& device) {
  torch::NoGradGuard no_grad;
  const at::Tensor rows = ranker.score_items(torch::tensor(users, torch::kInt64).to(at::Device(device)), n2)
                              .to(torch::kCPU, torch::kFloat)
                              .contiguous();
  return std::vector<float>(rows.data_ptr<float>(), rows.data_ptr<float>() + rows.numel());
}

}  // namespace symgnn::fitting
