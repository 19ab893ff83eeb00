// The bias offset under a learned model (offset_model.h).
#include "models/baseline/offset_model.h"

#include <ATen/ATen.h>
#include <torch/types.h>

#include <cmath>
#include <stdexcept>

#include "models/baseline/bias_fit.h"
#include "symgnn/model_kinds.h"

namespace symgnn::models {

bool learns_over_bias_offset(const RunConfig& cfg) {
  const ModelKind& kind = model_kind(cfg.model);
  return (kind_reads_section(kind, "lowrank") && cfg.lowrank.offset == "baseline") ||
         (kind_reads_section(kind, "base") && cfg.base.offset == "baseline");
}

std::shared_ptr<const ShrinkageChoice> offset_shrinkage_choice(const RatingList& ratings, int64_t n1,
                                                               int64_t n2, const RunConfig& cfg) {
  if (!learns_over_bias_offset(cfg) || ratings.size() < static_cast<size_t>(cfg.baseline.folds))
    return nullptr;
  const BaselineConfig& b = cfg.baseline;
  return std::make_shared<const ShrinkageChoice>(
      choose_shrinkage_cv(ratings, n1, n2, shrinkage_grid(b), b.folds, static_cast<uint64_t>(b.seed)));
}

void give_offset_shrinkage(ModelContext& ctx, const RunConfig& cfg) {
  if (ctx.bias_shrinkage || !learns_over_bias_offset(cfg)) return;
  ctx.bias_shrinkage = offset_shrinkage_choice(context_ratings(ctx), ctx.n1, ctx.n2, cfg);
}

OffsetModel::OffsetModel(const BaselineConfig& cfg, const ModelContext& ctx, const Inner& make_inner)
    : shrinkage_(), sweeps_(cfg.sweeps) {
  const RatingList r = context_ratings(ctx);
  // Too few ratings to fold: infinite shrinkage, the plain mean with no bias.
  const bool folds = r.size() >= static_cast<size_t>(cfg.folds);
  if (folds && !ctx.bias_shrinkage)
    throw std::logic_error(
        "OffsetModel: the context carries no bias shrinkage (models::give_offset_shrinkage)");
  shrinkage_ = folds ? ctx.bias_shrinkage->best : Shrinkage{1e30, 1e30};
  const Biases b = fit_biases(r, ctx.n1, ctx.n2, shrinkage_, folds ? cfg.sweeps : 1);
  // The wrapped model's context: the residuals' scale, and no rating levels (a residual is
  // no class; the low-rank decoder = auto then picks the dot product).
  ModelContext inner = ctx;
  inner.levels.clear();
  double sum = 0, sq = 0;
  for (size_t e = 0; e < r.size(); ++e) {
    const double d = r.value[e] - b.predict(r.user[e], r.item[e]);
    sum += d;
    sq += d * d;
  }
  if (!r.empty()) {
    const double n = static_cast<double>(r.size()), mean = sum / n;
    const double sd = std::sqrt(std::max(0.0, sq / n - mean * mean));
    inner.global_mean = static_cast<float>(mean);
    inner.rating_std = sd > 0 ? static_cast<float>(sd) : 1.0f;
  }
  inner_ = register_module("inner", make_inner(inner));
  offset_ = register_module("offset", std::make_shared<BaselineModel>(cfg, ctx));
  offset_->set(b);
}

at::Tensor OffsetModel::offset(const at::Tensor& users, const at::Tensor& items) const {
  return offset_->forward(users, items);
}

bool OffsetModel::take_graph_edit(RatingModel& before) {
  RatingModel* b = before.wrapped();
  return b && inner_->take_graph_edit(*b);
}

void OffsetModel::nodes_added(const ModelContext& ctx, int64_t trained_users, int64_t trained_items) {
  inner_->nodes_added(ctx, trained_users, trained_items);
  offset_->extend(ctx, trained_users, trained_items, shrinkage_, sweeps_);
}

at::Tensor OffsetModel::fold_user(const UserFold& fold) {
  // The wrapped model reads the user's ratings as they are (its context holds the raw
  // ratings, on the residuals' scale), so the grown model's rows are its fold plus the offset.
  const at::Tensor inner = inner_->fold_user(fold);
  if (!inner.defined()) return {};
  torch::NoGradGuard no_grad;
  const at::Tensor ratings =
      inner[1] + offset_->fold_row(fold, shrinkage_.user, sweeps_).to(inner.device(), inner.scalar_type());
  return torch::stack({inner_->ranks_by_rating() ? ratings : inner[0], ratings});
}

at::Tensor OffsetModel::forward(const at::Tensor& users, const at::Tensor& items) {
  return inner_->forward(users, items) + offset(users, items);
}

at::Tensor OffsetModel::training_loss(const at::Tensor& users, const at::Tensor& items,
                                      const at::Tensor& target, at::Tensor* pred) {
  // The wrapped model's mean squared error on the residuals is the MSE of the sum.
  const at::Tensor off = offset(users, items);
  at::Tensor loss = inner_->training_loss(users, items, target - off, pred);
  if (pred && pred->defined()) *pred = *pred + off;
  return loss;
}

at::Tensor OffsetModel::rating_items(const at::Tensor& users, int64_t n2) {
  return inner_->rating_items(users, n2) + offset_->rating_items(users, n2);
}

ScoreFactors OffsetModel::score_factors() {
  if (!inner_->ranks_by_rating()) return inner_->score_factors();
  ScoreFactors f = weighted_sum(inner_->score_factors(), 1.0, offset_->score_factors(), 1.0, 0.0);
  if (f.items.defined()) f.meaning += "; plus the bias offset mu + b_u + b_i";
  return f;
}

at::Tensor OffsetModel::score_items(const at::Tensor& users, int64_t n2) {
  return inner_->ranks_by_rating() ? rating_items(users, n2) : inner_->score_items(users, n2);
}

}  // namespace symgnn::models
