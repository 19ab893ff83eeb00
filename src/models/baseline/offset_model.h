/// @file
/// The bias offset of the learned models (lowrank.offset = baseline, base.offset = baseline):
///
///   rating(u, i) = mu + b_u + b_i + f(u, i)
///
/// where mu + b_u + b_i is the bias baseline (bias_fit.h) fitted once to the model's training
/// ratings before training, its shrinkage pair chosen by cross-validation on them (the
/// baseline section), and fixed; f is the wrapped model (the low-rank or base SyMGNN), which
/// then learns the residuals r_ui - mu - b_u - b_i. On data where the biases carry most of
/// what can be predicted (Yahoo Music: 1.6 training ratings per user and item) the shrunk
/// offset is a better start than biases learned with the network (docs/experiments.md).
///
/// The wrapped model sees a context whose rating scale is the residuals' (mean, standard
/// deviation) and which has no rating levels, so its decoder is the dot product. Its
/// parameters are "inner.*"; the offset is a BaselineModel (baseline_model.h) whose buffers are
/// "offset.global_mean" [], "offset.user_bias" [n1] and "offset.item_bias" [n2] (the biases
/// zero for users and items without training ratings). Nodes added by --new-ratings get the
/// biases of their own ratings (nodes_added), the trained ones fixed.
///
/// The shrinkage pair is chosen once per set of training ratings, not by each member: the
/// context carries it (ModelContext::bias_shrinkage, give_offset_shrinkage), from fit's
/// prepared data for the training ratings, from the trainer for all of them under
/// train.protocol = retrain, from the load of a model directory for its own.
#pragma once

#include <functional>
#include <memory>

#include "models/baseline/baseline_model.h"
#include "symgnn/model.h"

namespace symgnn::models {

class OffsetModel : public RatingModel {
 public:
  using Inner = std::function<std::shared_ptr<RatingModel>(const ModelContext&)>;

  /// Fits the offset to ctx's training ratings under `cfg` and ctx.bias_shrinkage (infinite
  /// shrinkage, the plain mean, where they are too few to fold; std::logic_error where ctx
  /// lacks the choice: give_offset_shrinkage), then builds the wrapped model with make_inner on
  /// the residuals' context.
  OffsetModel(const BaselineConfig& cfg, const ModelContext& ctx, const Inner& make_inner);

  at::Tensor forward(const at::Tensor& users, const at::Tensor& items) override;
  at::Tensor training_loss(const at::Tensor& users, const at::Tensor& items, const at::Tensor& target,
                           at::Tensor* pred) override;
  at::Tensor regularization() override { return inner_->regularization(); }
  std::string name() const override { return inner_->name() + "+offset"; }
  /// The inner model's (the offset reads no graph).
  bool take_graph_edit(RatingModel& before) override;
  RatingModel* wrapped() override { return inner_.get(); }
  at::Tensor rating_items(const at::Tensor& users, int64_t n2) override;
  at::Tensor score_items(const at::Tensor& users, int64_t n2) override;
  bool ranks_by_rating() const override { return inner_->ranks_by_rating(); }
  at::Tensor node_representations(int side) override { return inner_->node_representations(side); }
  /// The model's factors where it ranks by its own scores, else model + offset.
  ScoreFactors score_factors() override;

  /// mu + b_u + b_i of the pairs, [K].
  at::Tensor offset(const at::Tensor& users, const at::Tensor& items) const;

  /// Gives the added nodes the biases of their ratings in ctx (bias_fit.h extend_biases),
  /// under the shrinkage pair this offset chose on ctx's ratings; the trained biases stay.
  void nodes_added(const ModelContext& ctx, int64_t trained_users, int64_t trained_items) override;

  /// The wrapped model's fold plus the offset of the grown model (BaselineModel::fold_row): a
  /// new user's b_u is that of their ratings under the user shrinkage, as nodes_added gives it;
  /// a trained user's stays. Undefined where the wrapped model does not fold.
  at::Tensor fold_user(const UserFold& fold) override;
  bool folds_users() const override { return inner_->folds_users(); }
  void prepare_folds() override { inner_->prepare_folds(); }

  /// The shrinkage pair chosen for ctx's ratings when this offset was built.
  Shrinkage shrinkage() const { return shrinkage_; }

 private:
  std::shared_ptr<RatingModel> inner_;
  std::shared_ptr<BaselineModel> offset_;  // its buffers hold mu, b_u, b_i
  Shrinkage shrinkage_;
  int64_t sweeps_ = 0;
};

/// Whether cfg's model learns over the bias offset: `offset = baseline` in the section of
/// the kind's hyperparameters (lowrank.offset, base.offset).
bool learns_over_bias_offset(const RunConfig& cfg);

/// Gives ctx the bias shrinkage its offset reads, where cfg's model learns over the offset,
/// its training ratings make the baseline's folds, and it has none yet: chosen on ctx's
/// training ratings. Callers that made the choice on the same ratings set
/// ctx.bias_shrinkage first.
void give_offset_shrinkage(ModelContext& ctx, const RunConfig& cfg);

/// The choice give_offset_shrinkage makes, on `ratings` of n1 users and n2 items: null where
/// cfg's model has no offset or the ratings are too few to fold.
std::shared_ptr<const ShrinkageChoice> offset_shrinkage_choice(const RatingList& ratings, int64_t n1,
                                                               int64_t n2, const RunConfig& cfg);

}  // namespace symgnn::models
