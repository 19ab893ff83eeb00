/// @file
/// The final combination of a trained rating model with the bias baseline (train.auto = on;
/// the weights are chosen in fit/baseline_guard.h):
///
///   rating(u, i) = c + a * f(u, i) + b * (mu + b_u + b_i) + w_U * n_U(u, i) + w_I * n_I(u, i)
///                  + w_K * n_K(u, i)
///
/// f is the wrapped model (low-rank or base SyMGNN), mu + b_u + b_i the bias baseline
/// (bias_fit.h), n_U, n_I and n_K the neighbour members (neighbour_residuals.h: the shrunk
/// mean residual of the user's graph neighbours on the item, of the user on the item's graph
/// neighbours, of the user on the item's most similar items), computed from the context's training ratings
/// and graphs under the combination's biases. baseline.combination = members (the default) keeps c = 0 and b
/// = 1 - a, so that with no member kept the model is the baseline exactly. The model is built as the identity
/// (c = 0, a = 1, b = 0, biases zero), so training is the wrapped model's own: its loss, its regulariser, its
/// name. After training, symgnn::fit fits (c, a, b) to the validation ratings and sets them with the
/// baseline's biases (set_combination); they are buffers, saved in model.pt and loaded with it: "combination"
/// [3] = (c, a, b), "shrinkage" [2] = the baseline's (lambda_u, lambda_i), "baseline.global_mean",
/// "baseline.user_bias" [n1], "baseline.item_bias" [n2], "neighbour_members" [4] = (w_U, lambda_U, w_I,
/// lambda_I), or [6] with (w_K, lambda_K) where the k-NN member is kept, or [8] with the user and the
/// item graph's link directions (LinkDirection as a number) where one reads a directed graph's links
/// one way (the context's links1 and links2), whose neighbourhoods
/// (baseline.knn_neighbours of each item, found from the model's ratings when the combination is set) are
/// "knn_pairs" [kept, 2] and "knn_similarity" [kept]: ratings added later join the residuals, not the
/// neighbourhoods (registered empty: no member, as in directories written before it; a user folded in gets
/// the members as the grown model computes them, and a model with members takes graph edits by rebuilding).
/// The wrapped model's parameters are "inner.*". Nodes added by --new-ratings get the biases of their own
/// ratings (nodes_added), as the offset model's do.
#pragma once

#include <memory>
#include <mutex>

#include "models/baseline/baseline_model.h"
#include "models/baseline/neighbour_residuals.h"
#include "models/score_terms.h"
#include "symgnn/model.h"

namespace symgnn::models {

/// The weights of the combination c + a * model + b * baseline.
struct Combination {
  double c = 0;
  double a = 1;
  double b = 0;
  NeighbourWeights neighbours;  // none by default
};

class CombinedModel : public RatingModel, public ExplainsScores {
 public:
  ExplainsScores* explains_scores() override { return this; }
  CombinedModel(const BaselineConfig& cfg, const ModelContext& ctx, std::shared_ptr<RatingModel> inner);

  at::Tensor forward(const at::Tensor& users, const at::Tensor& items) override;
  at::Tensor training_loss(const at::Tensor& users, const at::Tensor& items, const at::Tensor& target,
                           at::Tensor* pred) override {
    return inner_->training_loss(users, items, target, pred);
  }
  at::Tensor regularization() override { return inner_->regularization(); }
  std::string name() const override { return inner_->name(); }
  at::Tensor rating_items(const at::Tensor& users, int64_t n2) override;
  at::Tensor score_items(const at::Tensor& users, int64_t n2) override;
  bool ranks_by_rating() const override { return inner_->ranks_by_rating(); }
  at::Tensor node_representations(int side) override { return inner_->node_representations(side); }
  /// The model's factors where it ranks by its own scores, else c + a * model + b * baseline.
  ScoreFactors score_factors() override;
  void nodes_added(const ModelContext& ctx, int64_t trained_users, int64_t trained_items) override;
  /// The wrapped model's fold-in combined as rating_items combines: a new user's baseline
  /// bias is that of their ratings (BaselineModel::fold_row), as nodes_added fits it.
  at::Tensor fold_user(const UserFold& fold) override;
  bool folds_users() const override { return inner_->folds_users(); }
  void prepare_folds() override { inner_->prepare_folds(); }
  /// The inner model's (the bias baseline reads no graph).
  bool take_graph_edit(RatingModel& before) override;
  RatingModel* wrapped() override { return inner_.get(); }

  /// The rating split exactly (combined_terms.cpp): the bias baseline, the network's
  /// correction, and each neighbour member's ratings, one part each (a linked user's rating
  /// of the item, the user's rating of a linked or similar item).
  ScoreTerms score_terms(int64_t user, int64_t item, const Dataset& ds) override;
  bool splits_scores() const override { return neighbours().any(); }

  /// Holds the weights and the baseline's biases (fitted under `shrinkage`).
  void set_combination(const Combination& w, const Biases& biases, const Shrinkage& shrinkage) override;
  /// Holds the neighbour members' weights (w.any() false: none).
  void set_neighbours(const NeighbourWeights& w);
  NeighbourWeights neighbours() const;

 private:
  std::shared_ptr<RatingModel> inner_;
  std::shared_ptr<BaselineModel> baseline_;
  at::Tensor weights_;            // [3] float: c, a, b
  at::Tensor shrinkage_;          // [2] float: lambda_u, lambda_i
  at::Tensor neighbour_members_;  // [4], [6], [8] float or empty: w_U, lambda_U, w_I, lambda_I, w_K,
                                  // lambda_K, the user and the item links' directions
  at::Tensor knn_pairs_;          // [kept, 2] long: (item, neighbour), in row order
  at::Tensor knn_similarity_;     // [kept] float: s of each pair
  int64_t sweeps_ = 0;
  int64_t knn_neighbours_ = 0;
  SparseRows similar_items_held() const;
  void hold_similar_items(const SparseRows& s);
  // What the neighbour members read: the context's training ratings and graphs, held as the
  // context's own tensors (no copy) and indexed on first use, with the biases held at that
  // time; a model whose members are all 0 never builds it (set_combination and nodes_added
  // reset it).
  struct NeighbourIndex {
    NeighbourResiduals residuals;
    Biases biases;
  };
  ModelContext ctx_;  // train_* and at1, at2 only
  std::mutex index_mutex_;
  std::shared_ptr<const NeighbourIndex> index_;
  void reset_context(const ModelContext& ctx);
  std::shared_ptr<const NeighbourIndex> index();
  /// w_U n_U + w_I n_I of the pairs ([K] float on `like`'s device).
  at::Tensor neighbour_terms(const at::Tensor& users, const at::Tensor& items, const at::Tensor& like);
  /// The same for the user of a fold-in ([n2], or the asked items), as the grown model has it.
  at::Tensor fold_neighbours(const UserFold& fold, const NeighbourWeights& w, double lambda_user,
                             const at::Tensor& like);
  /// The same of every item for each of `users` ([B, n2]).
  at::Tensor neighbour_rows(const at::Tensor& users, int64_t n2, const at::Tensor& like);
};

/// Whether make_model wraps cfg's model in a CombinedModel: train.auto = on, a trained kind
/// on objective rating (a ranking objective's scores are no ratings to combine).
bool combines_with_baseline(const RunConfig& cfg);

}  // namespace symgnn::models
