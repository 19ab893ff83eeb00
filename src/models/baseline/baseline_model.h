/// @file
/// The bias baseline (bias_fit.h) as a closed-form model kind (symgnn/model_kinds.h), in the
/// pipeline of every kind: model directory, predict, recommend, evaluate, blend, serve, Python.
///
///   rating(u, i) = mu + b_u + b_i     (clipped to the rating range by the callers)
///
/// fit() chooses the shrinkage pair (lambda_u, lambda_i) from the baseline section's grid by
/// cross-validation on ds.train (baseline.select = cv) or on ds.validation (= validation),
/// predicts the validation ratings from the biases of ds.train, and refits on training +
/// validation for the final state and the test predictions (the protocol of the Sylv.
/// baseline). A user or item without training ratings gets b = 0. This is the predictor
/// users compare against (Surprise's BaselineOnly), printed beside the rating figures of
/// train and evaluate (baseline_figures.h).
#pragma once

#include "models/baseline/bias_fit.h"
#include "symgnn/model.h"

namespace symgnn::models {

class BaselineModel : public RatingModel {
 public:
  /// Unfitted (mu = the context's global mean, every bias 0) of the context's size.
  BaselineModel(const BaselineConfig& cfg, const ModelContext& ctx);
  at::Tensor forward(const at::Tensor& users, const at::Tensor& items) override;
  at::Tensor rating_items(const at::Tensor& users, int64_t n2) override;
  /// mu + b_u + b_i: biases and the offset, no factors (d = 0).
  ScoreFactors score_factors() override;
  ClosedFormFit fit(const Dataset& ds, const at::Device& device,
                    const std::function<void(const std::string&)>& log) override;
  std::string name() const override { return "baseline"; }

  /// Holds the biases `b` (the fitted state; the offset of offset_model.h sets its own).
  void set(const Biases& b);
  /// The biases held (mu and the per-node biases; sweeps 0).
  Biases biases() const;
  /// After a trained state was loaded into a model built for more nodes (RatingModel::
  /// nodes_added): the nodes from `trained_users` / `trained_items` on get the biases of their
  /// ratings in ctx under shrinkage `s` (bias_fit.h extend_biases); the trained ones stay.
  void extend(const ModelContext& ctx, int64_t trained_users, int64_t trained_items, Shrinkage s,
              int64_t sweeps);
  /// mu + b_u + b_i of every item [n2] (the asked ones, where fold.asked names them) for the user of a
  /// fold-in (RatingModel::fold_user): a trained user's bias as fitted, a new user's that of their ratings
  /// under the user shrinkage `lambda_user`, as extend() fits it (the items' biases stay).
  at::Tensor fold_row(const UserFold& fold, double lambda_user, int64_t sweeps);
  /// The user bias of fold_row (as held: float precision).
  float fold_user_bias(const UserFold& fold, double lambda_user, int64_t sweeps) const;

 private:
  BaselineConfig cfg_;
  at::Tensor mu_;         // [] float
  at::Tensor user_bias_;  // [n1] float
  at::Tensor item_bias_;  // [n2] float
};

/// a * `f` + b * `g` + c as factors (the combination's and the offset's sums of a model's
/// and a baseline's predictions): f's factors scaled by a beside g's scaled by b, their
/// biases summed. Undefined (no product) when either is.
ScoreFactors weighted_sum(const ScoreFactors& f, double a, const ScoreFactors& g, double b, double c);

/// The context's training ratings as a RatingList (on the CPU): what the biases of the
/// offset (offset_model.h) and of the combination (combined_model.h) are fitted to.
RatingList context_ratings(const ModelContext& ctx);

}  // namespace symgnn::models
