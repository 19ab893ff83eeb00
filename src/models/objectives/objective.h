/// @file
/// A trained kind's training objective (the tables of symgnn/objectives.h): the kind's own
/// rating loss (RatingModel::training_loss: its decoder, or its head of biases where the
/// objective ranks alone) plus, where train.objective ranks, the weight times the ranking
/// loss train.ranking_loss over the scores the kind exposes (RatingModel::ranking_scores).
/// The kinds hold no objective of their own: they build the heads the objective's row asks
/// for (their rating decoder, or a head of biases where the objective does not rate) and
/// expose their scores; the losses are in this folder, one file each (ranking_losses.h).
///
/// Every training interaction (u, i) with rating >= train.positive_min is a positive; the
/// ranking losses are means over the P positives of the step (normalised_mse: over the
/// users that have one). Under data.feedback = counts each positive weighs its value
/// w = log(1 + count) (data/feedback.h): the means are weighted, sum_p w_p l_p / sum_p w_p,
/// and normalised_mse's target rows hold the weights.
#pragma once

#include <ATen/core/Tensor.h>

#include <string>

#include "models/objectives/score_view.h"
#include "symgnn/config.h"

namespace symgnn::models {

class RatingModel;

/// What a trained kind minimises (train.objective and its keys, symgnn/config.h).
struct Objective {
  std::string objective = "rating";  // a row of SYMGNN_OBJECTIVES
  std::string loss = "softmax";      // a row of SYMGNN_RANKING_LOSSES
  double weight = 1.0;               // joint: weight of the ranking loss
  int64_t negatives = 100;
  double positive_min = 0.0;
  int64_t block = int64_t{1} << 22;  // user x item scores held at once
  bool weighted = false;             // data.feedback = counts: a positive weighs its value

  explicit Objective(const TrainConfig& t = TrainConfig(), bool weighted = false);
  /// Whether the kind's rating decoder trains (objective rating or joint).
  bool rates() const;
  /// Whether a ranking loss trains (objective ranking or joint).
  bool ranks() const;
};

/// The positives of a step: the pairs among (users[k], items[k]) rated >= o.positive_min,
/// with their values as weights where o.weighted.
struct Positives {
  at::Tensor users, items;  // [P] each, int64
  at::Tensor weight;        // [P], the targets' type; undefined: each weighs 1

  /// sum_p w_p (P where unweighted): what the losses' means divide by.
  double total() const;
  /// sum_p w_p l_p over positives [s, s + l.size(0)), given their losses `l`.
  at::Tensor weighted_sum(const at::Tensor& l, int64_t s) const;
};
Positives positives_of(const at::Tensor& users, const at::Tensor& items, const at::Tensor& target,
                       const Objective& o);

/// The ranking loss o.loss of the positives among the pairs (users[k], items[k]) with ratings
/// `target[k]` over the scores `view`: a tensor whose value is the mean loss and whose
/// gradients reach the tensors behind the view (and the model behind them) on backward().
/// Needs grad mode (the losses run backward in blocks). Zero when no pair is positive.
at::Tensor ranking_loss(const ScoreView& view, const at::Tensor& users, const at::Tensor& items,
                        const at::Tensor& target, const Objective& o);

/// One step's training loss of `model` under `o`: model.training_loss(...) (which fills
/// *pred with the predicted ratings of the pairs) plus, where o ranks, the ranking loss
/// weighted by o.weight (1 for objective ranking) over model.ranking_scores().
at::Tensor objective_loss(RatingModel& model, const Objective& o, const at::Tensor& users,
                          const at::Tensor& items, const at::Tensor& target, at::Tensor* pred);

}  // namespace symgnn::models
