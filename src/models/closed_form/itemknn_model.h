/// @file
/// ItemKNN (Sarwar et al., WWW 2001; the variant of the ranking literature) as a
/// closed-form model kind (symgnn/model_kinds.h): the cosine similarity of the items'
/// binary interaction columns, each item keeping its itemknn.neighbours most similar ones:
///
///   S_ij = <X_:i, X_:j> / (|X_:i| |X_:j|),  S_jj = 0;  column j keeps its k largest entries
///                                                      (and the ties of the k-th)
///   score(u, :) = X_u S
///
/// Under data.feedback = counts X holds each interaction's weight w_ui = log(1 + count)
/// (data/feedback.h), in the cosine and in the user's row alike, as implicit's ItemItem
/// recommenders read confidence; a user added after the fit is scored from their
/// interactions' weights too (score_rated_items, given items alone, reads them as 1).
///
/// Sparse at every catalogue width: S is found from co-ratings (each user's pairs of rated
/// items, never an n2 x n2 matrix) and kept as lists, the interactions X as each user's
/// list of rated items, and a block of users is scored by adding, for each item they rated,
/// its row of S. Memory is linear in the ratings and in n2 x k; time in sum_u n_u^2 (the
/// co-rated pairs). Ratings are predicted by the damped biases of damped_biases.h.
///
/// fit() measures NDCG@10 on ds.validation (models/ranking/ranking_probe.h) with S and X
/// of the training ratings, then refits on training + validation for the final state.
#pragma once

#include <vector>

#include "models/closed_form/damped_biases.h"
#include "models/score_terms.h"

namespace symgnn::models {

class ItemKnnModel : public DampedBiasModel, public ExplainsScores {
 public:
  ExplainsScores* explains_scores() override { return this; }
  ItemKnnModel(const ItemKnnConfig& cfg, const ModelContext& ctx);
  std::string name() const override { return "itemknn"; }

  at::Tensor score_items(const at::Tensor& users, int64_t n2) override;
  // No node_representations: TrainedModel::similar compares by co-ratings, which is the
  // cosine S of this kind.
  /// X S with S dense (items = its columns) up to kMaxDenseExportItems items; none wider,
  /// where an n2 x n2 matrix would not be the sparse kind's memory any more.
  ScoreFactors score_factors() override;
  /// x S of the lists' users, as score_items() scores a user with those rated items.
  at::Tensor score_rated_items(const std::vector<std::vector<int64_t>>& rated) override;
  static constexpr int64_t kMaxDenseExportItems = 10000;
  /// x_u S split by the rated items: S_ij for each item i the user rated (from the profile
  /// score_items() reads).
  ScoreTerms score_terms(int64_t user, int64_t item, const Dataset& ds) override;
  ClosedFormFit fit(const Dataset& ds, const at::Device& device,
                    const std::function<void(const std::string&)>& log) override;
  /// Ratings given after the fit (new users', or more of a known user's) join the users'
  /// rows of X; S stays as fitted (an added item has no neighbours).
  void nodes_added(const ModelContext& ctx, int64_t trained_users, int64_t trained_items) override;

 private:
  /// X S of `users` users given by their entries (`row` the user's position, `items` the item,
  /// `entry_weights` each entry's weight, undefined: 1).
  at::Tensor scores_of_entries(int64_t users, const at::Tensor& row, const at::Tensor& items,
                               const at::Tensor& entry_weights) const;
  /// S and X of `ratings`, and the biases; `weighted`: X of the ratings' values (counts).
  void fit_on(const std::vector<const RatingList*>& ratings, bool weighted);

  int64_t neighbours_;
  // X by user: user u rated profile_items[profile_ptr[u] .. profile_ptr[u+1]).
  at::Tensor profile_ptr_, profile_items_;  // [n1 + 1], [ratings] int64
  at::Tensor profile_weights_;              // [ratings] float: w_ui (counts); no rows: binary X
  // S by row: item i adds weights[k] to targets[k] for k in [row_ptr[i], row_ptr[i+1]).
  at::Tensor row_ptr_, targets_, weights_;  // [n2 + 1] int64, [kept] int64, [kept] float
};

}  // namespace symgnn::models
