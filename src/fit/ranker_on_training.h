/// @file
/// The ranker beside the model (fit/ranker_fit.h) as the list choices judge it on validation
/// (fit/ranker_graph_choice.h, fit/ranker_quality_choice.h): the kept kind fitted on the
/// training ratings alone at the setting its fit chose, since the kept ranker itself was refit
/// on training + validation.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "symgnn/config.h"
#include "symgnn/dataset.h"

namespace symgnn::models {
class RatingModel;
}

namespace symgnn::fitting {

/// The ranker of kind ranker_cfg.model on ds's training ratings alone, at the setting its fit
/// chose (RatingModel::pin_chosen_setting from `figures`, its metrics.json figures): the state
/// its fit kept of that (models::ClosedFormFit::training_state), or fitted again where empty.
std::shared_ptr<models::RatingModel> ranker_on_training(RunConfig ranker_cfg, const Dataset& ds,
                                                        const nlohmann::json& figures,
                                                        const std::map<std::string, at::Tensor>& state);

/// `ranker`'s scores of `users` over all n2 items, row-major, on the CPU.
std::vector<float> ranker_rows(models::RatingModel& ranker, const std::vector<int64_t>& users, int64_t n2,
                               const std::string& device);

}  // namespace symgnn::fitting
