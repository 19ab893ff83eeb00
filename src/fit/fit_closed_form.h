/// @file
/// symgnn::fit's dispatch for a kind fitted in closed form (symgnn/model_kinds.h, fit =
/// closed_form): one call of RatingModel::fit, one deterministic "run", its figures under
/// the trainer's names (symgnn/metrics.h), the model saved and ranked.
#pragma once

#include <memory>

#include "fit/fitted.h"
#include "symgnn/config.h"
#include "symgnn/dataset.h"

namespace symgnn::fitting {

Fitted fit_closed_form(RunConfig& cfg, const Dataset& ds, const FitOptions& o,
                       const std::shared_ptr<const TrainedModel>& ranker);

}  // namespace symgnn::fitting
