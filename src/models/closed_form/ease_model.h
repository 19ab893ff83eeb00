/// @file
/// EASE (Steck, WWW 2019) as a closed-form model kind (symgnn/model_kinds.h): the item-item
/// ridge regression of the binary interactions X (n1 x n2) on themselves, its diagonal held
/// at zero so that no item predicts itself:
///
///   B = argmin |X - X B|_F^2 + lambda |B|_F^2  s.t. diag(B) = 0
///     = I - P diag(1 / diag(P)),  P = (X^T X + lambda I)^-1   (B_jj = 0: B_ij = -P_ij / P_jj)
///   score(u, :) = X_u B
///
/// B is kept beside the scores, so a user added after the fit is scored x B from their
/// ratings alone (inductive, interaction_model.h).
///
/// lambda is chosen among ease.lambdas on validation NDCG@10, then B is refit on training +
/// validation (models/closed_form/interaction_model.h). One n2 x n2 inverse (LAPACK through
/// LibTorch) per candidate; where users are fewer than items, one n1 x n1 inverse through
/// Woodbury's identity, P = (I - X^T (X X^T + lambda I)^-1 X) / lambda, and the candidates
/// are scored without forming B.
#pragma once

#include "models/closed_form/interaction_model.h"

namespace symgnn::models {

class EaseModel : public InteractionModel {
 public:
  EaseModel(const EaseConfig& cfg, const ModelContext& ctx);
  std::string name() const override { return "ease"; }

 protected:
  std::vector<double> settings() const override { return lambdas_; }
  std::string setting_name() const override { return "ease.lambda"; }
  std::string settings_key() const override { return "ease.lambdas"; }
  at::Tensor item_weights(const at::Tensor& x, double lambda) const override;
  /// X B; where users are fewer than items, through P's Woodbury form without forming B.
  at::Tensor interaction_scores(const at::Tensor& x, double lambda) const override;
  bool keeps_item_weights() const override { return true; }  // new users are x B

 private:
  /// Whether X has fewer rows (users) than columns (items): P is then taken through
  /// (X X^T + lambda I)^-1, n1 x n1, instead of (X^T X + lambda I)^-1, n2 x n2.
  static bool fewer_users(const at::Tensor& x);
  std::vector<double> lambdas_;
};

}  // namespace symgnn::models
