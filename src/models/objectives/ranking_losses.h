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

/// The normalised MSE (normalised_mse.cpp) of an autoencoder's scores S = X' E E^T - X' (the
/// item-based ranker, models/elsa/elsa_model.h: E the n2 x d item rows with unit norm, X' a
/// user's binary input row, X' within X, X the user's binary row of positives), computed
/// without S: from z = X' E and w = X E ([B, d]), gram = E^T E ([d, d]), kept = |X'| and
/// count = |X| ([B]). Equal to normalised_mse_loss of the dense S and X (tests/models/
/// test_objectives.cpp), in time linear in the ratings plus n2 d^2 for the Gram matrix and
/// memory B x d, where the dense form holds B x n2 scores: what lets the ranker train on a
/// catalogue of any width.
at::Tensor normalised_mse_autoencoder_loss(const at::Tensor& z, const at::Tensor& w, const at::Tensor& gram,
                                           const at::Tensor& kept, const at::Tensor& count);

/// The same loss for scores S = p F^T - X' of any user rows p ([B, f]) against item rows F
/// ([n2, f]): the item-based ranker with its deep path (F = [E, D], p = [X'E, h(X'E)]).
/// From p, p_in = X' F and p_target = X F ([B, f]), gram = F^T F ([f, f]), kept and count as
/// above. normalised_mse_autoencoder_loss is the case F = E, p = p_in = z.
at::Tensor normalised_mse_factored_loss(const at::Tensor& p, const at::Tensor& p_in,
                                        const at::Tensor& p_target, const at::Tensor& gram,
                                        const at::Tensor& kept, const at::Tensor& count);

/// Runs `part(start, len)` over [0, n) in chunks of `chunk`, each part's backward at once
/// (the parts read detached leaves, so each frees its own graph); the sum of the parts' values.
double backward_in_chunks(int64_t n, int64_t chunk, const std::function<at::Tensor(int64_t, int64_t)>& part);

}  // namespace symgnn::models
