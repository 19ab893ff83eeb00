/// @file
/// The ranking losses of SYMGNN_RANKING_LOSSES (symgnn/objectives.h), one file each in this
/// folder, and the helpers they share. Each is a mean over the positives `p` (see
/// objective.h) of the step, over the scores `v`, with its backward run in blocks into
/// v.leaves() and the result v.carried_back(...) (score_view.h).
#pragma once

#include <ATen/core/Tensor.h>

#include <functional>

#include "models/objectives/objective.h"
#include "models/objectives/score_view.h"

namespace symgnn::models {

#define SYMGNN_DECLARE_RANKING_LOSS(name, doc) \
  at::Tensor name##_loss(const ScoreView& v, const Positives& p, const Objective& o);
SYMGNN_RANKING_LOSSES(SYMGNN_DECLARE_RANKING_LOSS)
#undef SYMGNN_DECLARE_RANKING_LOSS

/// Runs `part(start, len)` over [0, n) in chunks of `chunk`, each part's backward at once
/// (the parts read detached leaves, so each frees its own graph); the sum of the parts' values.
double backward_in_chunks(int64_t n, int64_t chunk, const std::function<at::Tensor(int64_t, int64_t)>& part);

}  // namespace symgnn::models
