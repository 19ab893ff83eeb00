#include "models/closed_form/ease_model.h"

#include <ATen/ATen.h>

#include <cmath>

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

at::Tensor EaseModel::item_weights(const at::Tensor& x, double lambda) const {
  at::Tensor g = at::mm(x.t(), x);  // X^T X, n2 x n2
  g.diagonal().add_(lambda);
  // G + lambda I is symmetric positive definite: its inverse through the Cholesky factor
  // takes about half the work of a general (LU) inverse, the same to rounding.
  const at::Tensor p = at::cholesky_inverse(at::linalg_cholesky(g));
  at::Tensor b = -p / p.diagonal().unsqueeze(0);  // B_ij = -P_ij / P_jj
  b.diagonal().zero_();
  return b;
}

/// The `ease` row of symgnn/model_kinds.h (models/registry.cpp).
std::shared_ptr<RatingModel> make_ease_model(const RunConfig& cfg, const ModelContext& ctx) {
  return std::make_shared<EaseModel>(cfg.ease, ctx);
}

}  // namespace symgnn::models
