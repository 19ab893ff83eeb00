/// @file
/// What the dense closed-form ranking kinds (EASE, the binary Sylvester kind;
/// symgnn/model_kinds.h) share. Items are scored for a user from the binary training
/// interactions X (n1 x n2, 1 where the user rated the item) through an item-item matrix W
/// of the kind:
///
///   score(u, :) = X_u W                                  (n2 scores; W is n2 x n2)
///
/// and ratings are predicted by the damped biases of damped_biases.h, since neither kind
/// models rating values.
///
/// fit() scores each candidate setting of the kind (EASE's lambda) by NDCG@10 on
/// ds.validation (models/ranking/ranking_probe.h: relevant = ratings >= evaluate's
/// threshold, candidates = items not rated in training), keeps the best, and refits on
/// training + validation. The fitted state is the dense n1 x n2 score matrix and the biases
/// (what save_model writes), and for a kind that scores X W (keeps_item_weights: EASE) W
/// itself, so that a user added after the fit (new ratings) is scored x W from their ratings
/// alone. The kinds need n1 x n2 and n2 x n2 matrices in memory: the constructor refuses
/// sizes that do not fit. (ItemKNN is sparse: itemknn_model.h.)
#pragma once

#include <string>
#include <vector>

#include "models/closed_form/damped_biases.h"
#include "models/score_terms.h"

namespace symgnn::models {

class InteractionModel : public DampedBiasModel, public ExplainsScores {
 public:
  ExplainsScores* explains_scores() override { return this; }
  /// x W: a user's row is the sum of their rated items' rows of W.
  bool scores_linear_in_rated_items() const override { return true; }
  /// Unfitted (every score 0, biases 0) on the context's users and items.
  explicit InteractionModel(const ModelContext& ctx);

  at::Tensor score_items(const at::Tensor& users, int64_t n2) override;
  /// Users: their rows of scores X W; items: their columns (who the kind would recommend
  /// the item to), so that two items are near when the same users score them alike.
  at::Tensor node_representations(int side) override { return side == 0 ? scores_ : scores_.t(); }
  /// X W: users are their interaction rows, items the columns of W (where the fit kept W).
  ScoreFactors score_factors() override;
  /// x W of the lists' users (the sum of W's rows at their items), where the fit kept W.
  at::Tensor score_rated_items(const std::vector<std::vector<int64_t>>& rated) override;
  /// x_u W split by the rated items: W_ij for each item i the user rated (where the fit kept
  /// W; ConfigError otherwise).
  ScoreTerms score_terms(int64_t user, int64_t item, const Dataset& ds) override;
  ClosedFormFit fit(const Dataset& ds, const at::Device& device,
                    const std::function<void(const std::string&)>& log) override;
  /// Ratings given after the fit (new users', or more of a known user's): each such user's
  /// row gains x_added W (the kinds that keep W). ConfigError where the state has no W (a
  /// directory written before it was kept).
  void nodes_added(const ModelContext& ctx, int64_t trained_users, int64_t trained_items) override;
  /// The figure setting_name() of a saved fit as the only candidate of settings_key().
  std::string pin_chosen_setting(RunConfig& cfg, const nlohmann::json& figures,
                                 const std::string& dir) const override;

 protected:
  /// The candidate settings fit() chooses among (one: nothing to choose).
  virtual std::vector<double> settings() const = 0;
  /// The setting's name, e.g. "ease.lambda" (the figure fit() reports it under).
  virtual std::string setting_name() const = 0;
  /// The config key of the candidates, e.g. "ease.lambdas".
  virtual std::string settings_key() const = 0;
  /// W (n2 x n2, float64) from the dense binary interactions X (n1 x n2, float64): what the
  /// item-item kinds (EASE, ItemKNN) define; a kind scoring otherwise overrides
  /// interaction_scores instead (the default here throws).
  virtual at::Tensor item_weights(const at::Tensor& x, double setting) const;
  /// The scores (n1 x n2, float64) of the interactions X with the setting: X W by default.
  virtual at::Tensor interaction_scores(const at::Tensor& x, double setting) const;
  /// Whether the fit keeps W (item_weights) beside the scores, to score added users: a kind
  /// scoring X W says so; one that overrides interaction_scores does not.
  virtual bool keeps_item_weights() const { return false; }
  /// Called by fit() before any scoring with the data fitted on (graphs resolved): a kind
  /// that needs more than X (the graphs) takes it here.
  virtual void prepare(const Dataset& ds, const at::Device& device);
  /// The setting of the final fit (EASE's lambda, Eq. 1's a); ConfigError where the saved
  /// state lacks it (a directory written before it was kept).
  double fitted_setting() const;

 private:
  /// Scores and biases from `ratings` with the setting; W too where the kind keeps it and
  /// `keep_weights` (the final fit; a candidate's is scored on validation alone).
  void fit_on(const std::vector<const RatingList*>& ratings, double setting, bool keep_weights);
  at::Tensor scores_;  // [n1, n2] float: X W of the final fit
  // [trained n2, n2] float: W of the final fit where keeps_item_weights(), else no rows.
  // Registered with no rows: a directory written before W was kept loads without it.
  at::Tensor item_weights_;
  // [1] float64: the setting of the last fit_on, the final fit's; no rows before a fit (and
  // in a directory written before it was kept).
  at::Tensor setting_;
  // [1] where the fit read data.feedback = counts (X of log(1 + count) weights), no rows where
  // it read binary interactions (and in a directory written before it was kept): how
  // nodes_added reads the interactions of users added after the fit.
  at::Tensor counts_;
  /// Whether X holds data.feedback = counts' weights (counts_, set by fit from the data).
  bool reads_counts() const { return counts_.numel() > 0; }
};

}  // namespace symgnn::models
