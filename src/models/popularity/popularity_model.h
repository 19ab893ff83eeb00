/// @file
/// The popularity baseline as a closed-form model kind (symgnn/model_kinds.h): every user
/// gets the items with the most training ratings (ties: the lower item index, as
/// eval::top_k_items breaks them), and a rating is predicted by the item's mean training
/// rating (the global mean for an item nobody rated).
///
///   score(u, j)  = n_j = number of training ratings of item j     (the same for every user)
///   rating(u, j) = sum of item j's ratings / n_j, or mu when n_j = 0
///
/// fit() counts the training ratings for the validation predictions, then training +
/// validation for the final state (the protocol of the Sylv. baseline), so its test figures
/// are those `evaluate` prints for the popularity baseline beside every model
/// (symgnn/recommend.h, evaluate_popularity).
#pragma once

#include "models/score_terms.h"
#include "symgnn/model.h"

namespace symgnn::models {

class PopularityModel : public RatingModel, public ExplainsScores {
 public:
  ExplainsScores* explains_scores() override { return this; }
  /// Unfitted (no item rated) on the context's items; mu is the context's global mean.
  explicit PopularityModel(const ModelContext& ctx);
  at::Tensor forward(const at::Tensor& users, const at::Tensor& items) override;
  at::Tensor score_items(const at::Tensor& users, int64_t n2) override;
  bool ranks_by_rating() const override { return false; }
  /// The counts as item biases, no factors.
  ScoreFactors score_factors() override;
  ClosedFormFit fit(const Dataset& ds, const at::Device& device,
                    const std::function<void(const std::string&)>& log) override;
  std::string name() const override { return "popularity"; }
  /// The count split by rater: 1 for each rating of the item.
  ScoreTerms score_terms(int64_t user, int64_t item, const Dataset& ds) override;
  /// New users need nothing (every user's row is the same); new items keep the count of the
  /// fit, none, and are predicted by mu. Ratings given later change no count: the lists
  /// are the fitted popularity's, the user's own rated items left out as always.
  void nodes_added(const ModelContext& ctx, int64_t trained_users, int64_t trained_items) override;

  /// Counts and mean ratings of the items from `ratings` (the final state of fit()).
  /// `weighted` (data.feedback = counts, data/feedback.h): each interaction adds its weight
  /// log(1 + count) instead of 1.
  void count(const std::vector<const RatingList*>& ratings, bool weighted);

 private:
  at::Tensor counts_;     // [n2] float: training ratings per item
  at::Tensor item_mean_;  // [n2] float: their mean, mu where none
  at::Tensor mu_;         // [] float: the global mean (a buffer, so a saved model keeps it)
};

}  // namespace symgnn::models
