/// @file
/// The Sylv. baseline (completion.h) as a closed-form model kind (symgnn/model_kinds.h), so
/// that its model directory works like the learned models' with `predict`, `recommend`,
/// `evaluate` and `blend` (symgnn/trained_model.h).
///
/// fit() chooses a (sylvester.alphas) and the shrinkage lambda on validation and keeps the
/// final fit's unclipped predictions, mu + Xr / (Xm + lambda (1 - a)) for every (user,
/// item), as the buffer "scores" (n1 x n2): Eq. 1's solution is dense, so the saved model
/// is as large as X. Nothing in it is trained.
#pragma once

#include "models/score_terms.h"
#include "symgnn/model.h"

namespace symgnn::models::sylvester {

class CompletionModel : public RatingModel, public ExplainsScores {
 public:
  ExplainsScores* explains_scores() override { return this; }
  /// Unfitted, scores all zero, of the context's size on its device (fit() or a saved state
  /// fills them).
  CompletionModel(const SylvesterConfig& cfg, const ModelContext& ctx);
  at::Tensor forward(const at::Tensor& users, const at::Tensor& items) override;
  ClosedFormFit fit(const Dataset& ds, const at::Device& device,
                    const std::function<void(const std::string&)>& log) override;
  std::string name() const override { return "sylvester"; }
  /// The unclipped prediction split: mu, and for each rating (v, i) of H its weighted
  /// deviation G_vi (r_vi - mu) / (sum G + lambda (1-a)) (path_weights.h), at the final fit's
  /// a, lambda and mu.
  ScoreTerms score_terms(int64_t user, int64_t item, const Dataset& ds) override;
  /// Refused: the (a, lambda) pair is chosen jointly on the validation RMSE, and a refit at
  /// it on the training ratings alone is not rebuilt (symgnn blend --metric ndcg@10).
  std::string pin_chosen_setting(RunConfig& cfg, const nlohmann::json& figures,
                                 const std::string& dir) const override;

 private:
  SylvesterConfig cfg_;
  at::Tensor scores_;
  // [4] float64 after a fit: a, lambda, mu and 1 where H held the validation ratings too
  // (the refit); no rows in a directory written before it was kept.
  at::Tensor chosen_;
};

}  // namespace symgnn::models::sylvester
