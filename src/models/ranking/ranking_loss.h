/// @file
/// The ranking objectives (train.objective = ranking | joint) on node representations:
/// the score of user u for item i is s(u, i) = <U1_u, U2_i>, and every training
/// interaction (u, i) (ratings >= train.positive_min) is a positive. Means over the P
/// positives of the step:
///
///   softmax          -log( exp s(u,i) / sum_j exp s(u,j) )          over every item j
///   sampled_softmax  the same over {i} and N items drawn uniformly per step (shared)
///   bpr              -log sigmoid( s(u,i) - s(u,j) ), N items j drawn per positive
///
/// The full softmax never builds the users x items matrix: users go in blocks of
/// train.ranking_block / n2 rows, each block's backward runs at once into detached copies of
/// U1 and U2, and their accumulated gradients go back through the model in one pass (the
/// stand-in returned). The sampled losses chunk their P x N scores the same way.
#pragma once

#include <ATen/core/Tensor.h>

#include <string>

#include "symgnn/config.h"

namespace symgnn::models {

/// What a trained kind minimises (train.objective and its keys, symgnn/config.h).
struct Objective {
  std::string objective = "rating";  // rating | ranking | joint
  std::string loss = "softmax";      // softmax | sampled_softmax | bpr
  double weight = 1.0;               // joint: weight of the ranking loss
  int64_t negatives = 100;
  double positive_min = 0.0;
  int64_t block = int64_t{1} << 22;  // user x item scores held at once

  explicit Objective(const TrainConfig& t = TrainConfig());
  bool ranks() const { return objective != "rating"; }
  bool rates() const { return objective != "ranking"; }
};

/// The ranking loss of the positives among the pairs (users[k], items[k]) with ratings
/// `target[k]` (those >= o.positive_min), under s(u, i) = <u1_u, u2_i>: a tensor whose value
/// is the mean loss and whose gradients reach u1 and u2 (and the model behind them) on
/// backward(). Needs grad mode. Zero when no pair is positive.
at::Tensor ranking_loss(const at::Tensor& u1, const at::Tensor& u2, const at::Tensor& users,
                        const at::Tensor& items, const at::Tensor& target, const Objective& o);

}  // namespace symgnn::models
