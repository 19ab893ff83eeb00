/// @file
/// symgnn::fit's dispatch for a kind the trainer learns (symgnn/model_kinds.h, fit =
/// trained): the seeds' runs (train/trainer.h), train.auto's combination with the bias
/// baseline set into the saved models, the sweep's figures and lines, the comparison
/// without graphs on the synthetic default.
#pragma once

#include <memory>

#include "fit/fitted.h"
#include "infer/ranker_member.h"
#include "models/baseline/bias_fit.h"
#include "symgnn/config.h"
#include "symgnn/dataset.h"
#include "train/trainer.h"

namespace symgnn::fitting {

/// Trains cfg's runs on ds. On ranks other than 0 of a group, trains its share and returns
/// an empty result; on rank 0, the saved models in memory (run 0's the result) ranking with
/// `ranker` where there is one. `cv`: the bias baseline's cross-validated shrinkage on
/// ds.train where the run made one (fit/prepared_data.h): the guard's, the offset's, and the
/// saved models' contexts carry it.
Fitted fit_trained(RunConfig& cfg, const Dataset& ds, const models::ChosenShrinkage& cv, const FitOptions& o,
                   train::TrainerOptions& topts, bool rank0,
                   const std::shared_ptr<const infer::RankerMember>& ranker);

}  // namespace symgnn::fitting
