#include "models/base_model.h"

#include <torch/types.h>
#include <torch/utils.h>

#include <tuple>

#include "models/baseline/offset_model.h"
#include "models/layers/activation.h"
#include "models/objectives/score_view.h"

namespace symgnn::models {
namespace {

/// The prior encoder's settings from the base model's keys (the encoder is shared with
/// the low-rank model, whose section holds the same keys).
LowRankConfig encoder_config(const BaseConfig& cfg) {
  LowRankConfig e;
  e.hidden = cfg.hidden;
  e.prior = "encoder";
  e.prior_width = cfg.prior_width;
  e.prior_node_dropout = cfg.prior_node_dropout;
  e.prior_dense_dropout = cfg.prior_dense_dropout;
  e.encoder_kernels = cfg.encoder_kernels;
  e.prior_side_width = cfg.prior_side_width;
  return e;
}

}  // namespace

BaseModel::BaseModel(const BaseConfig& cfg, const ModelContext& ctx, const Objective& objective)
    : cfg_(cfg), n1_(ctx.n1), n2_(ctx.n2), rates_(objective.rates()), ranks_(objective.ranks()) {
  TORCH_CHECK(cfg.variant == "full" || cfg.variant == "G" || cfg.variant == "A",
              "BaseModel: unknown variant '", cfg.variant, "'");
  const int64_t d = cfg.hidden;
  const bool graph_channels = cfg.variant != "A", attention = cfg.variant != "G";
  TORCH_CHECK(cfg.prior == "paper" || cfg.prior == "encoder", "BaseModel: unknown prior '", cfg.prior, "'");
  if (cfg.prior == "encoder") {
    // U1, U2 from the ratings (per-class aggregation, models/layers/prior_encoder.h)
    // instead of free id embeddings: every channel then starts from what a node rated.
    TORCH_CHECK(!ctx.h.empty(), "BaseModel: prior = encoder needs the training ratings' class priors");
    encoder_ = register_module("encoder", PriorEncoder(encoder_config(cfg), ctx.h, ctx.ht, ctx.f1, ctx.f2));
  } else {
    auto feats = [](const at::Tensor& f) { return f.defined() ? f.to(torch::kFloat) : f; };
    mlp1_ = register_module("mlp1", FeatureMlp(ctx.n1, d, feats(ctx.f1)));
    mlp2_ = register_module("mlp2", FeatureMlp(ctx.n2, d, feats(ctx.f2)));
  }
  if (graph_channels) {
    cge_ = register_module("cge", CgeChannel(ctx.at1, ctx.at2, d, cfg.hops));
    ++channels_;
  }
  if (attention) {
    within_ = register_module("within", WithinChannel(d, cfg.attention_block));
    ++channels_;
  }
  if (graph_channels && !ctx.h.empty()) {
    prior_ = register_module("prior", PriorChannel(ctx.h, d, cfg.prior_dropout));
    ++channels_;
  }
  if (attention) {
    cross_ = register_module("cross", CrossChannel(cfg.attention_block));
    ++channels_;
  }
  w_fuse_ =
      register_parameter("w_fuse", torch::full({ctx.n1, channels_, 1}, 1.0 / static_cast<double>(channels_)));
  if (cfg.biases || !rates_) {  // objective = ranking: the ratings' head of biases
    b1_ = register_parameter("b1", torch::zeros({ctx.n1}));
    b2_ = register_parameter("b2", torch::zeros({ctx.n2}));
    mean_ = ctx.global_mean;
    std_ = ctx.rating_std > 0 ? ctx.rating_std : 1.0;
  }
  // objective = joint: the ranking scores are exp(t) X, t learned (as the low-rank model's).
  if (rates_ && ranks_) rank_log_scale_ = register_parameter("rank_log_scale", torch::zeros({}));
  if (ctx.train_values.defined()) to(ctx.train_values.device());
}

std::vector<ChannelFactors> BaseModel::factors(std::vector<int64_t>& column) {
  const double p = cfg_.dropout;
  at::Tensor u1, u2;
  if (encoder_) {
    std::tie(u1, u2) = encoder_->forward();
  } else {
    u1 = mlp1_->forward();
    u2 = mlp2_->forward();
  }
  u1 = torch::dropout(u1, p, is_training());  // n1 x d
  u2 = torch::dropout(u2, p, is_training());  // n2 x d
  std::vector<ChannelFactors> out;
  column.clear();
  int64_t c = 0;
  auto add = [&](const ChannelFactors& f) {
    out.push_back(f);
    column.push_back(c);
  };
  if (cge_) {
    for (const auto& f : cge_->factors(u1, u2)) add(f);
    ++c;
  }
  if (within_) {
    add(within_->factors(u1, u2));
    ++c;
  }
  if (prior_) {
    add(prior_->factors(u1, u2));
    ++c;
  }
  if (cross_) {
    add(cross_->factors(u1, u2));
    ++c;
  }
  return out;
}

at::Tensor BaseModel::association() {
  std::vector<int64_t> column;
  const std::vector<ChannelFactors> parts = factors(column);
  std::vector<at::Tensor> left, right;
  for (const auto& f : parts) {
    left.push_back(f.left);
    right.push_back(f.right);
  }
  const at::Tensor l = torch::stack(left, 0);                                   // C x n1 x d
  const at::Tensor r = torch::stack(right, 0);                                  // C x n2 x d
  const at::Tensor xcal = activate(l.bmm(r.transpose(1, 2)), cfg_.activation);  // C x n1 x n2
  const at::Tensor idx = torch::tensor(column, torch::kLong).to(w_fuse_.device());
  const at::Tensor w = w_fuse_.index_select(1, idx);  // n1 x C x 1
  return xcal.permute({1, 2, 0}).bmm(w).squeeze(2);   // (n1 x n2 x C) bmm (n1 x C x 1) -> n1 x n2
}

at::Tensor BaseModel::forward(const at::Tensor& users, const at::Tensor& items) {
  TORCH_CHECK(users.dim() == 1 && users.sizes() == items.sizes(), "BaseModel: users and items must be [K]");
  // objective = ranking: ratings from the head of biases; X only for the ranking loss.
  const auto bias_head = [&] {
    return (b1_.index_select(0, users) + b2_.index_select(0, items)) * std_ + mean_;
  };
  if (!rates_ && !is_training()) return bias_head();
  const at::Tensor x = association();  // n1 x n2
  if (is_training() && ranks_) last_x_ = x;
  if (!rates_) return bias_head();
  at::Tensor r = x.reshape({-1}).index_select(0, users * n2_ + items);  // [K]
  if (!cfg_.biases) return r;
  r = r + b1_.index_select(0, users) + b2_.index_select(0, items);
  return r * std_ + mean_;
}

ScoreView BaseModel::ranking_scores() {
  if (!last_x_.defined()) return {};
  return ScoreView::matrix(rank_log_scale_.defined() ? last_x_ * rank_log_scale_.exp() : last_x_);
}

at::Tensor BaseModel::score_items(const at::Tensor& users, int64_t n2) {
  if (!ranks_) return rating_items(users, n2);
  torch::NoGradGuard no_grad;
  if (is_training()) return association().index_select(0, users);
  if (!scored_x_.defined()) scored_x_ = association();  // kept until the mode changes
  return scored_x_.index_select(0, users);
}

void BaseModel::train(bool on) {
  scored_x_ = last_x_ = at::Tensor();
  RatingModel::train(on);
}

/// The `base` row of symgnn/model_kinds.h (models/registry.cpp).
std::shared_ptr<RatingModel> make_base_model(const RunConfig& cfg, const ModelContext& ctx) {
  const auto make = [&](const ModelContext& c) -> std::shared_ptr<RatingModel> {
    return std::make_shared<BaseModel>(cfg.base, c, Objective(cfg.train));
  };
  if (cfg.base.offset == "baseline") return std::make_shared<OffsetModel>(cfg.baseline, ctx, make);
  return make(ctx);
}

}  // namespace symgnn::models
