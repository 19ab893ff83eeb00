// The one entry point to the figures of symgnn/metrics.h: measure(model, split, names).
//
// A model is seen through what the rows need (Measurable): its differences from the held-out
// ratings for the prediction rows (eval/errors.h), its ranking of the split's users at the
// cut-offs asked for the ranking rows (symgnn/ranking.h). The trainer's epochs, the
// closed-form fits and the kinds' choice of their setting, the bias baseline's figures,
// train.auto's combination, `evaluate`'s errors, the new-user report, the ranking blend and
// `blend` call it; tune reads the figures the runs wrote.
//
// Torch-free: a caller on tensors builds the Measurable (train/epoch_metrics.h for
// predictions on the device, models/ranking/ranking_probe.h for rankings).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "eval/errors.h"
#include "symgnn/ranking.h"

namespace symgnn::eval {

/// A model on one split's held-out ratings, as the metrics need it. Either part may be empty:
/// a model without rating predictions gets no prediction row, one that does not rank no
/// ranking row.
struct Measurable {
  using Differences = std::function<std::vector<double>()>;
  using Ranker = std::function<RankingReport(const std::vector<int64_t>& ks)>;
  /// Predicted minus held-out rating, one per held-out rating, the predictions clipped as the
  /// caller judges them (to the rating range; a residual fit unclipped).
  Differences differences;
  /// The ranking of the split's users at the cut-offs `ks` (ascending, distinct), under
  /// evaluate's protocol (symgnn/recommend.h): one RankingAtK per k, in that order.
  Ranker rank;
};

/// The model's figures `names` on `split`. A name is a row of SYMGNN_METRICS, a ranking row
/// with its cut-off ("rmse", "mae", "ndcg@10"); the result is keyed by metric_figure ("val" and
/// "ndcg@10" give "val_ndcg@10"; an empty split gives the bare name). The differences are
/// taken once and the ranking once (at every k asked). A row the model cannot give is left
/// out, and so is every row of a split without held-out ratings (no differences, or no user
/// with a relevant item). std::invalid_argument for a name that is no row of the table.
Figures measure(const Measurable& model, const std::string& split, const std::vector<std::string>& names);

/// "<split>_<row>" of every prediction row over the differences ("val_rmse", "val_mae"):
/// measure() of a model given by its differences; nothing for no differences.
void add_errors(Figures& f, const std::string& split, const std::vector<double>& diff);

/// Sets every figure of `from` into `to` (a figure measured again replaces the one before).
void add_figures(Figures& to, const Figures& from);

/// The names of the prediction rows ("rmse", "mae"): every figure of the predictions.
const std::vector<std::string>& prediction_metrics();
/// The names of the ranking rows at k ("precision@10", ..., "coverage@10").
std::vector<std::string> ranking_metrics(int64_t k = 10);

/// The value of the ranking row `row` ("ndcg") in `report` at k; NaN where the report has no k.
double ranking_value(const RankingReport& report, const std::string& row, int64_t k);

}  // namespace symgnn::eval
