#include "models/closed_form/ease_model.h"

#include <ATen/ATen.h>

#include <cmath>
#include <utility>

#include "symgnn/error.h"
#include "util/strings.h"

namespace symgnn::models {

EaseModel::EaseModel(const EaseConfig& cfg, const ModelContext& ctx) : InteractionModel(ctx) {
  for (const std::string& s : split(cfg.lambdas, ',')) {
    const std::string t = trim(s);
    double v = 0;
    if (!parse_double(t, v) || !(v > 0) || !std::isfinite(v))
      throw ConfigError("ease.lambdas = '" + cfg.lambdas + "': '" + t + "' is not a positive number");
    lambdas_.push_back(v);
  }
  if (lambdas_.empty()) throw ConfigError("ease.lambdas is empty: give at least one positive number");
}

namespace {

/// K = (X X^T + lambda I)^-1 (n1 x n1) and K X: the Woodbury form of P where users are fewer
/// than items, P = (X^T X + lambda I)^-1 = (I - X^T K X) / lambda.
std::pair<at::Tensor, at::Tensor> woodbury_factors(const at::Tensor& x, double lambda) {
  at::Tensor g = at::mm(x, x.t());  // X X^T, n1 x n1
  g.diagonal().add_(lambda);
  const at::Tensor k = at::cholesky_inverse(at::linalg_cholesky(g));
  return {k, at::mm(k, x)};
}

/// diag(P) from K X: (1 - sum_u X_uj (K X)_uj) / lambda.
at::Tensor woodbury_diagonal(const at::Tensor& x, const at::Tensor& kx, double lambda) {
  return (1.0 - (x * kx).sum(0)) / lambda;
}

}  // namespace

bool EaseModel::fewer_users(const at::Tensor& x) {
  return x.size(0) < x.size(1);
}

at::Tensor EaseModel::item_weights(const at::Tensor& x, double lambda) const {
  at::Tensor p;
  if (fewer_users(x)) {
    // n1 < n2: an n1 x n1 inverse and one n2 x n1 x n2 product instead of an n2 x n2 inverse
    // (ml-latest-small: 610 users, 9,742 items), the same P to rounding.
    const auto [k, kx] = woodbury_factors(x, lambda);
    p = at::mm(x.t(), kx).neg_();
    p.diagonal().add_(1.0);
    p.div_(lambda);
  } else {
    at::Tensor g = at::mm(x.t(), x);  // X^T X, n2 x n2
    g.diagonal().add_(lambda);
    // G + lambda I is symmetric positive definite: its inverse through the Cholesky factor
    // takes about half the work of a general (LU) inverse, the same to rounding. Each n2 x n2
    // float64 matrix is let go as soon as the next is made (9,742 items: 760 MB each).
    g = at::linalg_cholesky(g);
    p = at::cholesky_inverse(g);
  }
  // B_ij = -P_ij / P_jj, in P's own storage.
  const at::Tensor diagonal = p.diagonal().clone().unsqueeze(0);
  p.div_(diagonal).neg_();
  p.diagonal().zero_();
  return p;
}

at::Tensor EaseModel::interaction_scores(const at::Tensor& x, double lambda) const {
  if (!fewer_users(x)) return InteractionModel::interaction_scores(x, lambda);
  // X B without B: (X B)_uj = X_uj - (X P)_uj / P_jj (B's diagonal is zero), and
  // X P = (X - X X^T K X) / lambda. The candidates' search costs n1^2 n2 a setting.
  const auto [k, kx] = woodbury_factors(x, lambda);
  const at::Tensor xp = (x - at::mm(at::mm(x, x.t()), kx)) / lambda;
  return x - xp / woodbury_diagonal(x, kx, lambda).unsqueeze(0);
}

/// The `ease` row of symgnn/model_kinds.h (models/registry.cpp).
std::shared_ptr<RatingModel> make_ease_model(const RunConfig& cfg, const ModelContext& ctx) {
  return std::make_shared<EaseModel>(cfg.ease, ctx);
}

}  // namespace symgnn::models
