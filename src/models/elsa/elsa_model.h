/// @file
/// The item-based ranker (symgnn/model_kinds.h, kind `elsa`): a low-rank linear
/// autoencoder of the binary interactions in ELSA's form (Vančura et al., RecSys 2022),
/// which reads the paper's prior channel on a binary H as an autoencoder: a user is the sum
/// of their rated items' rows of one item matrix, and items are scored against that sum.
///
///   A' = (1 - beta) A + beta At2 A         (elsa.graph_beta: one step over the item graph)
///   A_hat = A' with unit rows               (n2 x d)
///   S_u = x_u A_hat A_hat^T - x_u           (x_u the user's binary row; the subtraction
///                                            zeroes each item's own score, as EASE's
///                                            diag B = 0 does: diag(A_hat A_hat^T) = 1)
///
/// Under data.feedback = counts x_u holds log(1 + count) at each used item (data/feedback.h):
/// a user's sum weighs their items by it, in training (the loss's |x_u|^2 the sum of the
/// squared weights) and in scoring, and explanations split the score into w_ui a_i . a_j.
///
/// With the deep path (elsa.deep_hidden = H > 0), a nonlinear encoder of the same input
/// beside it, trained jointly:
///
///   h_u = relu(z_u W + b),  z_u = x_u A_hat / sqrt(|x_u|)      (W: d x H)
///   S_u = x_u A_hat A_hat^T + h_u D^T - x_u                    (D: n2 x H, free rows)
///
/// (h_u's units dropped with probability elsa.deep_dropout in training). The default tries
/// H = 256 beside none (elsa.deep_hidden = 0,256) and keeps it where it validates better:
/// on ML-100K in 3 seeds of 5, on Douban and Flixster never (docs/experiments.md).
///
/// trained by Adam on the normalised MSE (models/objectives/normalised_mse.cpp, a row of
/// SYMGNN_RANKING_LOSSES): mean over users of || S_u/|S_u| - x_u/|x_u| ||^2, in batches of
/// elsa.batch_users users, x_u's entries dropped with probability elsa.dropout at the input.
/// The loss is computed from the users' sums x_u A_hat and the d x d Gram matrix
/// A_hat^T A_hat (normalised_mse_autoencoder_loss), never from S: a step costs the batch's
/// ratings x d plus n2 x d^2, and holds no batch x n2 scores; on a wide catalogue the batch
/// grows so that an epoch has few steps (elsa_batch_users).
/// A user is scored from their ratings alone (inductive: no user parameter), in memory
/// n2 x d plus the ratings, time linear in the ratings per block of users.
///
/// fit() trains each candidate width of elsa.dims on ds.train (a width after the first only
/// while users x items x d stays below 2^35 multiply-adds an epoch), measuring NDCG@10 on
/// ds.validation (models/ranking/ranking_probe.h) every elsa.eval_every epochs (every epoch
/// where an epoch is elsa.long_epoch_steps optimiser steps or more), keeps the
/// best (d, H, epochs) over the pairs of elsa.dims and elsa.deep_hidden (a deep path only
/// where it validates better by elsa.min_gain), and trains again on training + validation with them for the
/// final state. Ratings are predicted by the damped biases (damped_biases.h), as the other ranking kinds do.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "models/closed_form/damped_biases.h"
#include "models/score_terms.h"

namespace symgnn::models {

/// Users per optimiser step at width d: elsa.batch_users (`batch_users`), or more on a wide
/// catalogue, where each step's n2 x d^2 Gram matrix would dominate (elsa_model.cpp).
int64_t elsa_batch_users(int64_t users, int64_t items, int64_t d, int64_t batch_users);

class ElsaModel : public DampedBiasModel, public ExplainsScores {
 public:
  ExplainsScores* explains_scores() override { return this; }
  ElsaModel(const ElsaConfig& cfg, const ModelContext& ctx, int64_t seed);
  std::string name() const override { return "elsa"; }

  at::Tensor score_items(const at::Tensor& users, int64_t n2) override;
  /// Users: x_u A_hat; items: their rows of A_hat (cosine neighbours in the learned space);
  /// with the deep path, [x_u A_hat, h_u] and [A_hat, D].
  at::Tensor node_representations(int side) override;
  /// [z_u, h_u] against [A_hat, D]: node_representations() of both sides.
  ScoreFactors score_factors() override;
  /// The users of the lists scored as score_items() scores a user with those rated items.
  at::Tensor score_rated_items(const std::vector<std::vector<int64_t>>& rated) override;
  /// z_u . a_j split by the rated items (a_i . a_j each), and the deep path's h_u . d_j as
  /// one part (it is not linear in the items), from the profile score_items() reads.
  ScoreTerms score_terms(int64_t user, int64_t item, const Dataset& ds) override;
  ClosedFormFit fit(const Dataset& ds, const at::Device& device,
                    const std::function<void(const std::string&)>& log) override;
  /// The width and epoch count a saved fit chose (its figures elsa.d and elsa.epochs) as
  /// the only ones a new fit tries (blend --metric ndcg@10 refits on the training ratings).
  std::string pin_chosen_setting(RunConfig& cfg, const nlohmann::json& figures,
                                 const std::string& dir) const override;
  /// New users (--new-ratings, infer/new_ratings.h) are scored from their ratings in `ctx`
  /// like any other: their rows join the profiles, with no retraining. New items have zero
  /// rows of A: scored 0, and adding nothing to a user's sum.
  void nodes_added(const ModelContext& ctx, int64_t trained_users, int64_t trained_items) override;

  /// What one training reached: the epoch whose encoder scored best on the probe (the last
  /// epoch without one), its NDCG@10 (-1 without a probe), the curve (epoch, NDCG@10) of the
  /// measured epochs, and the model's state at that epoch (with a probe; by name as
  /// ClosedFormFit::training_state): what a training of that many epochs alone reaches, the
  /// same seed drawing the same numbers.
  struct Trained {
    int64_t epoch = 0;
    double ndcg = -1;
    std::vector<std::pair<int64_t, double>> curve;
    std::map<std::string, at::Tensor> state;
  };

 private:
  /// Trains width `d` on `ratings` (the profiles X and the biases set from them) for at
  /// most `epochs` epochs; with `probe` given, measures it (given the epoch) every elsa.eval_every epochs
  /// (every epoch where an epoch has elsa.long_epoch_steps steps or more) and
  /// stops after elsa.patience measurements without one better by elsa.min_gain, or once the
  /// epochs since the best reach elsa.fall_patience times its epoch count.
  /// `weighted`: the profiles weigh each item by its rating value (data.feedback = counts).
  Trained train(const std::vector<const RatingList*>& ratings, int64_t d, int64_t hidden, int64_t epochs,
                const std::function<double(int64_t)>& probe, const at::Device& device, bool weighted);
  /// Sets the saved state of a trained encoder: A_hat^T, and the deep path's W, b and D^T
  /// where `w` is defined.
  void keep(const at::Tensor& encoder, const at::Tensor& w, const at::Tensor& b, const at::Tensor& d);
  /// h of the users `row_sums` (x_u A_hat, [B, d]) with `count` rated items each: the deep
  /// path's hidden layer, given its W ([d, H]) and b ([H]).
  static at::Tensor deep_hidden(const at::Tensor& row_sums, const at::Tensor& count, const at::Tensor& w,
                                const at::Tensor& b);
  /// h of users from their sums `z` = x_u A_hat and `count` = |x_u|^2 (their rated items, or
  /// the sum of their squared weights under counts), by the saved deep path (deep_w_, deep_b_).
  at::Tensor saved_hidden(const at::Tensor& z, const at::Tensor& count) const;
  /// The scores of `count` users given by their entries (`row` the user's position,
  /// `items` the item, `weight` its weight or undefined for 1) with item matrix `encoder`
  /// (what scores_of does for saved users).
  at::Tensor scores_of_entries(int64_t count, const at::Tensor& row, const at::Tensor& items,
                               const at::Tensor& encoder, const at::Tensor& weight) const;
  /// A_hat of the parameters A: the rows of (1 - elsa.graph_beta) A + elsa.graph_beta At2 A
  /// (A itself without an item graph), each scaled to unit length.
  at::Tensor normalised(const at::Tensor& a) const;
  /// The rated entries of some users: each entry's user as a position among them, its item,
  /// and its weight (undefined where the profiles are binary).
  struct Entries {
    at::Tensor row, items, weight;
  };
  /// The rated entries of `users` (int64, on the profiles' device).
  Entries entries_of(const at::Tensor& users) const;
  /// x_b A_hat A_hat^T - x_b: the scores S of the users `users` (int64), `encoder` = A_hat.
  at::Tensor scores_of(const at::Tensor& users, const at::Tensor& encoder) const;
  void set_profiles(const std::vector<const RatingList*>& ratings, bool weighted);

  ElsaConfig cfg_;
  std::vector<int64_t> dims_, deep_;
  int64_t seed_;
  graph::SparseMatrix item_graph_;  // At2 of the context (used where elsa.graph_beta > 0)
  // X by user: user u rated profile_items[profile_ptr[u] .. profile_ptr[u+1]).
  at::Tensor profile_ptr_, profile_items_;  // [n1 + 1], [ratings] int64
  at::Tensor profile_weights_;              // [ratings] float log(1 + count); no rows: binary
  at::Tensor encoder_t_;                    // [d, n2] float: A_hat^T of the final fit
  // The deep path (empty without): W flattened ([d * H]: a buffer's length follows from the
  // fit, train/checkpoint.h), b ([H]), D^T ([H, n2]).
  at::Tensor deep_w_, deep_b_, deep_items_t_;
};

}  // namespace symgnn::models
