#include "models/lowrank_model.h"

#include <torch/nn/init.h>
#include <torch/types.h>
#include <torch/utils.h>

#include <algorithm>
#include <tuple>
#include <vector>

#include "models/baseline/offset_model.h"
#include "models/kernels/dot_mse.h"
#include "models/kernels/pair_bilinear.h"
#include "models/objectives/score_view.h"

namespace symgnn::models {

LowRankModel::LowRankModel(const LowRankConfig& cfg, const ModelContext& ctx, const Objective& objective)
    : cfg_(cfg), obj_(objective) {
  TORCH_CHECK(cfg.variant == "full" || cfg.variant == "G" || cfg.variant == "A",
              "LowRankModel: unknown variant '", cfg.variant, "'");
  TORCH_CHECK(cfg.fusion == "sum" || cfg.fusion == "learned", "LowRankModel: unknown fusion '", cfg.fusion,
              "'");
  TORCH_CHECK(cfg.prior != "auto",
              "LowRankModel: lowrank.prior = auto is resolved on the data's size before a model is built "
              "(fitting::resolve_prior, src/fit/prior_choice.h)");
  TORCH_CHECK(cfg.prior == "paper" || cfg.prior == "encoder", "LowRankModel: unknown prior '", cfg.prior,
              "'");
  TORCH_CHECK(cfg.id_embedding || (cfg.prior == "encoder" && cfg.variant != "A"),
              "LowRankModel: id_embedding = false needs prior = encoder and variant full or G");
  side1_ = make_side("1", ctx.n1, ctx.f1, ctx.at1, ctx.h);
  side2_ = make_side("2", ctx.n2, ctx.f2, ctx.at2, ctx.ht);
  if (cfg.prior == "encoder" && cfg.variant != "A" && !ctx.h.empty())
    encoder_ = register_module("encoder", PriorEncoder(cfg, ctx.h, ctx.ht, ctx.f1, ctx.f2));  // casts itself
  // decoder = auto: rating classes where the ratings are a few levels (stars), the dot
  // product where they are many (a softmax over 71 levels of Yahoo's 1..100 scale has
  // too few examples per class).
  if (cfg_.decoder == "auto")
    cfg_.decoder = !ctx.levels.empty() && ctx.levels.size() <= 10 ? "classes" : "dot";
  // objective = ranking: the representations learn the ranking alone, and ratings come
  // from a head of biases beside them (mean + std (b1_i + b2_j)).
  if (!obj_.rates()) cfg_.decoder = "dot";
  if ((cfg.biases && cfg_.decoder == "dot") || !obj_.rates()) {  // the class decoder has its own offsets
    b1_ = register_parameter("b1", torch::zeros({ctx.n1}));
    b2_ = register_parameter("b2", torch::zeros({ctx.n2}));
    mean_ = ctx.global_mean;
    std_ = ctx.rating_std > 0 ? ctx.rating_std : 1.0;
  }
  // objective = joint: the ranking scores are exp(t) <U1_u, U2_i> with t learned, so that the
  // softmax can sharpen without stretching the rating decoder's dot product.
  if (obj_.ranks() && obj_.rates()) rank_log_scale_ = register_parameter("rank_log_scale", torch::zeros({}));
  if (cfg_.decoder == "classes") {
    TORCH_CHECK(!ctx.levels.empty(), "LowRankModel: decoder = classes needs the rating levels");
    const int64_t k = static_cast<int64_t>(ctx.levels.size()), nb = cfg.class_bases, d = cfg.hidden;
    if (cfg.class_init == "orthogonal") {
      // GC-MC's start: each basis an orthogonal matrix scaled by 1.1, coefficients Glorot.
      auto q = torch::empty({nb, d, d});
      for (int64_t b = 0; b < nb; ++b) torch::nn::init::orthogonal_(q[b], 1.1);
      q_ = register_parameter("q", q);
      a_ = register_parameter("a", torch::nn::init::xavier_uniform_(torch::empty({k, nb})));
    } else {
      // Small random bases: identical bases would make every class score the same.
      q_ = register_parameter("q", torch::randn({nb, d, d}) * (1.0 / d));
      a_ = register_parameter("a", torch::randn({k, nb}) * 0.1);
    }
    levels_ = register_buffer("levels", torch::tensor(ctx.levels, torch::kFloat));
  }
  at1_ = ctx.at1;
  at2_ = ctx.at2;
  if (encoder_) {
    // Registered empty: a directory written before they existed loads without them.
    graph_prior_rows1_ = register_buffer("graph_prior_rows1", torch::empty({0}, torch::kLong));
    graph_prior_rows2_ = register_buffer("graph_prior_rows2", torch::empty({0}, torch::kLong));
  }
  if (ctx.train_values.defined()) to(ctx.train_values.device());
}

LowRankModel::Side LowRankModel::make_side(const std::string& suffix, int64_t n, const at::Tensor& features,
                                           const graph::SparseMatrix& at,
                                           const std::vector<graph::SparseMatrix>& h) {
  const int64_t d = cfg_.hidden;
  const bool graph_modules = cfg_.variant != "A", attention = cfg_.variant != "G";
  Side side;
  // Side features are fixed inputs: keep them on the context's device, cast to float.
  const at::Tensor f = features.defined() ? features.to(torch::kFloat) : features;
  int64_t parts = 0;
  if (cfg_.id_embedding) {
    side.mlp = register_module("mlp" + suffix, FeatureMlp(n, d, f));
    ++parts;
  }
  if (graph_modules && cfg_.layers > 0) {
    side.cge = register_module("cge" + suffix, CGE(at, d, cfg_.layers, cfg_.activation, cfg_.cge_bias));
    ++parts;
  }
  if (attention) {
    side.within =
        register_module("within" + suffix, WithinAttention(d, cfg_.attention_block, cfg_.activation));
    ++parts;
  }
  if (graph_modules && !h.empty() && cfg_.prior == "encoder") {
    ++parts;  // U^(p) comes from the shared encoder_ (both sides at once)
  } else if (graph_modules && !h.empty()) {
    side.prior = register_module(
        "prior" + suffix, PriorAggregation(h, d, cfg_.prior_norm, cfg_.prior_dropout, cfg_.activation));
    ++parts;
  }
  if (attention) {
    side.cross = register_module("cross" + suffix, CrossAttention(d, cfg_.attention_block, cfg_.activation));
    ++parts;
  }
  if (cfg_.fusion == "learned")
    side.fusion = register_module("fusion" + suffix, torch::nn::Linear(parts * d, d));
  return side;
}

at::Tensor LowRankModel::fuse(Side& side, const at::Tensor& uh, const at::Tensor& uh_other,
                              const at::Tensor& up, const at::Tensor& up_other) {
  // Without the id embedding the graph and attention modules act on U^(p) instead of Uh.
  const at::Tensor& base = uh.defined() ? uh : up;
  const at::Tensor& base_other = uh_other.defined() ? uh_other : up_other;
  std::vector<at::Tensor> parts;
  if (uh.defined()) parts.push_back(uh);
  if (side.cge) parts.push_back(side.cge->forward(base));
  if (side.within) parts.push_back(side.within->forward(base));
  if (side.prior) parts.push_back(side.prior->forward(uh_other));
  if (up.defined()) parts.push_back(up);
  if (side.cross) parts.push_back(side.cross->forward(base, base_other));
  if (side.fusion) return side.fusion->forward(torch::cat(parts, 1));  // n x (parts d) -> n x d
  at::Tensor u = parts[0];
  for (size_t i = 1; i < parts.size(); ++i) u = u + parts[i];
  return u;
}

std::pair<at::Tensor, at::Tensor> LowRankModel::embeddings() {
  const double p = cfg_.dropout;
  at::Tensor uh1, uh2, up1, up2;
  if (side1_.mlp) {
    uh1 = torch::dropout(side1_.mlp->forward(), p, is_training());
    uh2 = torch::dropout(side2_.mlp->forward(), p, is_training());
  }
  if (encoder_) std::tie(up1, up2) = priors();
  at::Tensor u1 = fuse(side1_, uh1, uh2, up1, up2), u2 = fuse(side2_, uh2, uh1, up2, up1);
  if (encoder_) u1 = with_graph_prior(0, u1, true), u2 = with_graph_prior(1, u2, true);
  return {u1, u2};
}

at::Tensor LowRankModel::score(const at::Tensor& u1, const at::Tensor& u2, const at::Tensor& users,
                               const at::Tensor& items) {
  // <U1_i, U2_j> per pair; with more pairs than users fused (pair_bilinear.h, one basis).
  at::Tensor r = users.size(0) > u1.size(0)
                     ? pair_bilinear(u1.unsqueeze(1), u2, users, items).squeeze(1)
                     : (u1.index_select(0, users) * u2.index_select(0, items)).sum(1);  // [K]
  return with_biases(r, users, items);
}

at::Tensor LowRankModel::with_biases(const at::Tensor& r, const at::Tensor& users, const at::Tensor& items) {
  if (!b1_.defined()) return r;
  return (r + b1_.index_select(0, users) + b2_.index_select(0, items)) * std_ + mean_;
}

at::Tensor LowRankModel::stacked_bases() const {
  const int64_t nb = q_.size(0), d = q_.size(1);
  return q_.permute({1, 0, 2}).reshape({d, nb * d});
}

at::Tensor LowRankModel::class_logits(const at::Tensor& u1, const at::Tensor& u2, const at::Tensor& users,
                                      const at::Tensor& items) {
  const int64_t nb = q_.size(0), d = q_.size(1);
  const at::Tensor q = stacked_bases();
  at::Tensor s;  // [K', nb]
  if (users.size(0) > u1.size(0)) {
    // More pairs than users (training, full evaluation): U1 Q for the n1 users, then the
    // fused per-pair forms (pair_bilinear.h), n1 / K' of the FLOPs of gathering first.
    s = pair_bilinear(torch::mm(u1, q).view({-1, nb, d}), u2, users, items);
  } else {
    const at::Tensor x1q = torch::mm(u1.index_select(0, users), q).view({-1, nb, d});
    s = (x1q * u2.index_select(0, items).unsqueeze(1)).sum(2);
  }
  return torch::mm(s, a_.t());  // [K', levels]
}

at::Tensor LowRankModel::bias_rating(const at::Tensor& users, const at::Tensor& items) {
  return (b1_.index_select(0, users) + b2_.index_select(0, items)) * std_ + mean_;
}

at::Tensor LowRankModel::score_all_items(const at::Tensor& u1, const at::Tensor& u2,
                                         const at::Tensor& block) {
  if (!obj_.rates()) return (b1_.index_select(0, block).unsqueeze(1) + b2_.unsqueeze(0)) * std_ + mean_;
  return decode_rows(u1.index_select(0, block), b1_.defined() ? b1_.index_select(0, block) : at::Tensor(), u2,
                     at::Tensor());
}

at::Tensor LowRankModel::decode_rows(const at::Tensor& x1, const at::Tensor& b1, const at::Tensor& u2,
                                     const at::Tensor& b2) {
  // One user (a fold-in): matrix-vector products, which read u2 as it lies where a matrix
  // product would first copy it.
  const bool one = x1.size(0) == 1;
  if (!q_.defined()) {
    at::Tensor r = one ? torch::mv(u2, x1[0]).unsqueeze(0) : torch::mm(x1, u2.t());  // [B, n2]
    if (!b1.defined()) return r;
    r = r + b1.unsqueeze(1) + (b2.defined() ? b2 : b2_).unsqueeze(0);
    return r * std_ + mean_;
  }
  // logits[b, j, l] = sum_q a_lq x1_b^T Q_q u2_j, then the expected rating over the levels.
  const int64_t nb = q_.size(0);
  std::vector<at::Tensor> s;
  if (one) {
    for (int64_t q = 0; q < nb; ++q) s.push_back(torch::mv(u2, torch::mv(q_[q].t(), x1[0])));  // [n2]
    // The softmax written out: LibTorch's kernel over a few levels costs six times as much
    // for one user's items (docs/serve.md, "A new user").
    const at::Tensor logits = torch::mm(torch::stack(s, 1), a_.t());  // [n2, levels]
    const at::Tensor e = (logits - std::get<0>(logits.max(1, true))).exp_();
    return torch::mv(e, levels_).div_(e.sum(1)).unsqueeze(0);
  }
  for (int64_t q = 0; q < nb; ++q) s.push_back(torch::mm(torch::mm(x1, q_[q]), u2.t()));  // [B, n2]
  const at::Tensor logits = torch::matmul(torch::stack(s, 2), a_.t());                    // [B, n2, levels]
  return torch::matmul(torch::softmax(logits, 2), levels_);
}

std::pair<at::Tensor, at::Tensor> LowRankModel::scored_embeddings() {
  if (is_training()) return embeddings();
  if (!scored_u1_.defined()) std::tie(scored_u1_, scored_u2_) = embeddings();
  return {scored_u1_, scored_u2_};
}

at::Tensor LowRankModel::node_representations(int side) {
  torch::NoGradGuard no_grad;
  const auto [u1, u2] = scored_embeddings();
  return side == 0 ? u1 : u2;
}

ScoreFactors LowRankModel::score_factors() {
  if (!obj_.ranks()) return {};
  torch::NoGradGuard no_grad;
  const auto [u1, u2] = scored_embeddings();
  ScoreFactors f;
  f.users = u1.to(at::kCPU, at::kFloat).contiguous();
  f.items = u2.to(at::kCPU, at::kFloat).contiguous();
  f.meaning = name() + ": score = <U1_u, U2_i>, the ranking scores of its propagated embeddings";
  return f;
}

at::Tensor LowRankModel::rating_items(const at::Tensor& block, int64_t) {
  torch::NoGradGuard no_grad;
  if (!obj_.rates()) return score_all_items(at::Tensor(), at::Tensor(), block);
  const auto [u1, u2] = scored_embeddings();
  return score_all_items(u1, u2, block);
}

at::Tensor LowRankModel::score_items(const at::Tensor& block, int64_t n2) {
  if (!obj_.ranks()) return rating_items(block, n2);
  torch::NoGradGuard no_grad;
  const auto [u1, u2] = scored_embeddings();
  return torch::mm(u1.index_select(0, block), u2.t());  // s(u, i) = <U1_u, U2_i>, ranking_scores()
}

bool LowRankModel::ranks_by_rating() const {
  return !obj_.ranks();
}

void LowRankModel::train(bool on) {
  scored_u1_ = scored_u2_ = at::Tensor();
  {
    const std::lock_guard<std::mutex> lock(fold_mutex_);
    fold_trace_ = nullptr;
  }
  RatingModel::train(on);
}

at::Tensor LowRankModel::forward(const at::Tensor& users, const at::Tensor& items) {
  TORCH_CHECK(users.dim() == 1 && users.sizes() == items.sizes(),
              "LowRankModel: users and items must be [K]");
  if (!obj_.rates()) return bias_rating(users, items);
  const auto [u1, u2] = embeddings();
  if (q_.defined()) return torch::mv(torch::softmax(class_logits(u1, u2, users, items), 1), levels_);
  return score(u1, u2, users, items);
}

at::Tensor LowRankModel::training_loss(const at::Tensor& users, const at::Tensor& items,
                                       const at::Tensor& target, at::Tensor* pred) {
  auto [u1, u2] = embeddings();
  last_u1_ = u1;
  last_u2_ = u2;
  if (obj_.rates()) return rating_loss(u1, u2, users, items, target, pred);
  // objective = ranking: the head of biases learns the ratings on its own (the ranking loss
  // over ranking_scores() is the objective's, models/objectives/objective.h).
  const at::Tensor p = bias_rating(users, items);
  if (pred) *pred = p.detach();
  return torch::mse_loss(p, target);
}

ScoreView LowRankModel::ranking_scores() {
  if (!last_u1_.defined()) return {};
  // objective = joint: exp(t) <U1_u, U2_i>, t learned.
  return ScoreView::factors(rank_log_scale_.defined() ? last_u1_ * rank_log_scale_.exp() : last_u1_,
                            last_u2_);
}

at::Tensor LowRankModel::rating_loss(const at::Tensor& u1, const at::Tensor& u2, const at::Tensor& users,
                                     const at::Tensor& items, const at::Tensor& target, at::Tensor* pred) {
  // The dot decoder on the CPU: prediction, error and gradients in one pass over the pairs
  // (dot_mse.h), which holds no per-pair tensor but the predictions: no chunks needed.
  if (!q_.defined() && u1.device().is_cpu())
    return dot_mse(DotDecoder{u1, u2, b1_, b2_, mean_, std_}, users, items, target,
                   1.0 / static_cast<double>(std::max<int64_t>(1, users.size(0))), pred);
  const int64_t chunk = cfg_.decoder_chunk;
  if (chunk > 0 && users.size(0) > chunk && at::GradMode::is_enabled())
    return chunked_loss(u1, u2, users, items, target, pred);
  if (!q_.defined()) {
    at::Tensor p = score(u1, u2, users, items);
    if (pred) *pred = p.detach();
    return torch::mse_loss(p, target);
  }
  return class_loss(class_logits(u1, u2, users, items), target, pred);
}

at::Tensor LowRankModel::class_loss(const at::Tensor& logits, const at::Tensor& target, at::Tensor* pred) {
  // Class index of each target: the nearest level (targets are levels by construction).
  const at::Tensor cls = (target.unsqueeze(1) - levels_.unsqueeze(0)).abs().argmin(1);
  const at::Tensor expected = torch::mv(torch::softmax(logits, 1), levels_);
  if (pred) *pred = expected.detach();
  at::Tensor loss = torch::nll_loss(torch::log_softmax(logits, 1), cls);
  if (cfg_.class_mse_weight > 0) loss = loss + cfg_.class_mse_weight * torch::mse_loss(expected, target);
  return loss;
}

at::Tensor LowRankModel::chunked_loss(const at::Tensor& u1, const at::Tensor& u2, const at::Tensor& users,
                                      const at::Tensor& items, const at::Tensor& target, at::Tensor* pred) {
  // The decoder's input, computed once: U1 for the dot product, U1 Q_b for every basis
  // for the class decoder ([n1, nb, d] either way, pair_bilinear's P). The chunks'
  // backward passes stop at detached copies (`p`, `v`) and accumulate their gradients;
  // the decoder's own parameters (a, b1, b2) get theirs directly.
  const int64_t n = users.size(0), chunk = cfg_.decoder_chunk;
  at::Tensor p_full;
  if (q_.defined()) {
    p_full = torch::mm(u1, stacked_bases()).view({-1, q_.size(0), q_.size(1)});
  } else {
    p_full = u1.unsqueeze(1);
  }
  const at::Tensor p = p_full.detach().requires_grad_(), v = u2.detach().requires_grad_();
  double total = 0;
  std::vector<at::Tensor> preds;
  for (int64_t start = 0; start < n; start += chunk) {
    const int64_t len = std::min(chunk, n - start);
    const at::Tensor cu = users.narrow(0, start, len), ci = items.narrow(0, start, len);
    const at::Tensor ct = target.narrow(0, start, len);
    const at::Tensor s = pair_bilinear(p, v, cu, ci);  // [len, nb]
    at::Tensor chunk_pred, loss;
    if (q_.defined()) {
      loss = class_loss(torch::mm(s, a_.t()), ct, pred ? &chunk_pred : nullptr);
    } else {
      const at::Tensor r = with_biases(s.squeeze(1), cu, ci);
      chunk_pred = r.detach();
      loss = torch::mse_loss(r, ct);
    }
    // Each chunk's mean weighted by its share: the sum is the mean over all pairs.
    loss = loss * (static_cast<double>(len) / static_cast<double>(n));
    loss.backward();
    total += loss.item<double>();
    if (pred) preds.push_back(chunk_pred);
  }
  if (pred) *pred = torch::cat(preds);
  // A stand-in whose gradient carries the accumulated ones back through the model and
  // whose value is the loss: d/dU1 (P(U1) . dP) = dP^T dP/dU1, and likewise for U2.
  const at::Tensor back = (p_full * p.grad()).sum() + (u2 * v.grad()).sum();
  return back - back.detach() + total;
}

at::Tensor LowRankModel::regularization() {
  if (!last_u1_.defined()) return {};
  at::Tensor l2;
  if (cfg_.l2 > 0) l2 = cfg_.l2 * (last_u1_.pow(2).sum(1).mean() + last_u2_.pow(2).sum(1).mean());
  if (cfg_.smoothness <= 0) return l2;
  // tr(U^T (I - At) U) = sum(U * U) - sum(U * At U): how much U varies across edges.
  auto rough = [](const at::Tensor& u, const graph::SparseMatrix& at) {
    if (at.identity) return torch::zeros({}, u.options());
    return ((u * u).sum() - (u * graph::spmm(at, u)).sum()) / static_cast<double>(u.size(0));
  };
  const at::Tensor smooth = cfg_.smoothness * (rough(last_u1_, at1_) + rough(last_u2_, at2_));
  return l2.defined() ? smooth + l2 : smooth;
}

/// The `lowrank` row of symgnn/model_kinds.h (models/registry.cpp).
std::shared_ptr<RatingModel> make_lowrank_model(const RunConfig& cfg, const ModelContext& ctx) {
  const auto make = [&](const ModelContext& c) -> std::shared_ptr<RatingModel> {
    return std::make_shared<LowRankModel>(cfg.lowrank, c, Objective(cfg.train));
  };
  if (cfg.lowrank.offset == "baseline") return std::make_shared<OffsetModel>(cfg.baseline, ctx, make);
  return make(ctx);
}

}  // namespace symgnn::models
