// What symgnn::fit does with interactions (data.feedback = implicit or counts,
// data/feedback.h): the kinds that rank learn from them; a kind that fits rating values
// (the bias baseline, the Sylvester solver, a network on objective rating) has nothing to
// fit there, so the run fits popularity in its place and train.ranker = auto chooses the
// lists among the rankers on validation NDCG@10 (fit/ranker.h), as it does beside a rating
// model.
#pragma once

#include <string>

#include "symgnn/config.h"

namespace symgnn::fitting {

/// Under interactions (data::resolved_feedback), cfg.data.feedback set to them and a kind
/// fitting rating values replaced by popularity. Returns the summary's line on it ("" for
/// ratings, which leave cfg as it is).
std::string settle_feedback(RunConfig& cfg);

/// Whether cfg's model is the stand-in settle_feedback makes (or a user's popularity) under
/// interactions: train.ranker = auto then chooses its lists.
bool ranks_interactions_by_ranker(const RunConfig& cfg);

}  // namespace symgnn::fitting
