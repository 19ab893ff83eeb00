#include "models/lowrank_model.h"

#include <torch/torch.h>

#include <vector>

namespace symgnn::models {

LowRankModel::LowRankModel(const LowRankConfig& cfg, const ModelContext& ctx) : cfg_(cfg) {
  TORCH_CHECK(cfg.variant == "full" || cfg.variant == "G" || cfg.variant == "A", "LowRankModel: unknown variant '",
              cfg.variant, "'");
  TORCH_CHECK(cfg.fusion == "sum" || cfg.fusion == "learned", "LowRankModel: unknown fusion '", cfg.fusion, "'");
  side1_ = make_side("1", ctx.n1, ctx.f1, ctx.at1, ctx.h);
  side2_ = make_side("2", ctx.n2, ctx.f2, ctx.at2, ctx.ht);
  if (cfg.biases) {
    b1_ = register_parameter("b1", torch::zeros({ctx.n1}));
    b2_ = register_parameter("b2", torch::zeros({ctx.n2}));
    mean_ = ctx.global_mean;
    std_ = ctx.rating_std > 0 ? ctx.rating_std : 1.0;
  }
  if (ctx.train_values.defined()) to(ctx.train_values.device());
}

LowRankModel::Side LowRankModel::make_side(const std::string& suffix, int64_t n, const at::Tensor& features,
                                           const graph::SparseMatrix& at, const std::vector<graph::SparseMatrix>& h) {
  const int64_t d = cfg_.hidden;
  const bool graph_modules = cfg_.variant != "A", attention = cfg_.variant != "G";
  Side side;
  // Side features are fixed inputs: keep them on the context's device, cast to float.
  const at::Tensor f = features.defined() ? features.to(torch::kFloat) : features;
  side.mlp = register_module("mlp" + suffix, FeatureMlp(n, d, f, cfg_.activation));
  int64_t parts = 1;
  if (graph_modules && cfg_.layers > 0) {
    side.cge = register_module("cge" + suffix, CGE(at, d, cfg_.layers, cfg_.activation));
    ++parts;
  }
  if (attention) {
    side.within = register_module("within" + suffix, WithinAttention(d, cfg_.attention_block, cfg_.activation));
    ++parts;
  }
  if (graph_modules && !h.empty()) {
    side.prior =
        register_module("prior" + suffix, PriorAggregation(h, d, cfg_.prior_norm, cfg_.prior_dropout, cfg_.activation));
    ++parts;
  }
  if (attention) {
    side.cross = register_module("cross" + suffix, CrossAttention(d, cfg_.attention_block, cfg_.activation));
    ++parts;
  }
  if (cfg_.fusion == "learned") side.fusion = register_module("fusion" + suffix, torch::nn::Linear(parts * d, d));
  return side;
}

at::Tensor LowRankModel::fuse(Side& side, const at::Tensor& uh, const at::Tensor& uh_other) {
  std::vector<at::Tensor> parts{uh};
  if (side.cge) parts.push_back(side.cge->forward(uh));
  if (side.within) parts.push_back(side.within->forward(uh));
  if (side.prior) parts.push_back(side.prior->forward(uh_other));
  if (side.cross) parts.push_back(side.cross->forward(uh, uh_other));
  if (side.fusion) return side.fusion->forward(torch::cat(parts, 1));  // n x (parts d) -> n x d
  at::Tensor u = parts[0];
  for (size_t i = 1; i < parts.size(); ++i) u = u + parts[i];
  return u;
}

std::pair<at::Tensor, at::Tensor> LowRankModel::embeddings() {
  const double p = cfg_.dropout;
  const at::Tensor uh1 = torch::dropout(side1_.mlp->forward(), p, is_training());
  const at::Tensor uh2 = torch::dropout(side2_.mlp->forward(), p, is_training());
  return {fuse(side1_, uh1, uh2), fuse(side2_, uh2, uh1)};
}

at::Tensor LowRankModel::score(const at::Tensor& u1, const at::Tensor& u2, const at::Tensor& users,
                               const at::Tensor& items) {
  at::Tensor r = (u1.index_select(0, users) * u2.index_select(0, items)).sum(1);  // [K]
  if (!cfg_.biases) return r;
  r = r + b1_.index_select(0, users) + b2_.index_select(0, items);
  return r * std_ + mean_;
}

at::Tensor LowRankModel::forward(const at::Tensor& users, const at::Tensor& items) {
  TORCH_CHECK(users.dim() == 1 && users.sizes() == items.sizes(), "LowRankModel: users and items must be [K]");
  const auto [u1, u2] = embeddings();
  return score(u1, u2, users, items);
}

}  // namespace symgnn::models
