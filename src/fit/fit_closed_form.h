/// @file
/// symgnn::fit's dispatch for a kind fitted in closed form (symgnn/model_kinds.h, fit =
/// closed_form): one call of RatingModel::fit, one deterministic "run", its figures under
/// the trainer's names (symgnn/metrics.h), the model saved and ranked.
#pragma once

#include <functional>
#include <memory>

#include "fit/fitted.h"
#include "infer/ranker_member.h"
#include "models/baseline/bias_fit.h"
#include "symgnn/config.h"
#include "symgnn/dataset.h"

namespace symgnn::fitting {

/// The ranker beside the model, fitted when called (fit/ranker_fit.h); empty: none.
using RankerSource = std::function<std::shared_ptr<const infer::RankerMember>()>;

/// `ranker` is called once the model is built, so that a kind that refuses the data's size
/// (the dense Sylvester kinds) does so before the ranker's fit and evaluation (seconds to
/// minutes on a large set), not after.
/// `test_lists` false: the test ratings' rating figures only, not the test lists' (ranking
/// every test user over the whole catalogue, the larger part of a candidate ranker's fit on a
/// wide one); add_test_lists adds them to the candidate that is kept. `cv`: the bias
/// baseline's cross-validated shrinkage on ds.train where the run made one
/// (fit/prepared_data.h), which the model's context carries for the figures beside it.
Fitted fit_closed_form(RunConfig& cfg, const Dataset& ds, const models::ChosenShrinkage& cv,
                       const FitOptions& o, const RankerSource& ranker, bool test_lists = true);

/// The test lists' figures (NDCG@10, ...) of a fit made without them, in its metrics, its
/// folder's metrics.json figures and its summary, as fit_closed_form makes them.
void add_test_lists(Fitted& f, const Dataset& ds, const FitOptions& o);

}  // namespace symgnn::fitting
