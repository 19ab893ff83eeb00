// The combination of a trained model with the bias baseline (combined_model.h).
#include "models/baseline/combined_model.h"

#include <torch/types.h>
#include <torch/utils.h>

#include "symgnn/model_kinds.h"

namespace symgnn::models {

CombinedModel::CombinedModel(const BaselineConfig& cfg, const ModelContext& ctx,
                             std::shared_ptr<RatingModel> inner)
    : sweeps_(cfg.sweeps), knn_neighbours_(cfg.knn_neighbours) {
  inner_ = register_module("inner", std::move(inner));
  baseline_ = register_module("baseline", std::make_shared<BaselineModel>(cfg, ctx));
  const at::Device device = ctx.train_values.defined() ? ctx.train_values.device() : at::Device(at::kCPU);
  const auto opts = torch::TensorOptions().dtype(torch::kFloat).device(device);
  weights_ = register_buffer("combination", torch::tensor({0.0f, 1.0f, 0.0f}, opts));
  shrinkage_ = register_buffer("shrinkage", torch::zeros({2}, opts));
  neighbour_members_ = register_buffer("neighbour_members", torch::empty({0}, opts));
  // The item k-NN member's neighbourhoods as (item, neighbour) rows and their similarities,
  // fitted with the combination and saved with it (registered empty: none, and the length
  // follows from the fit).
  knn_pairs_ = register_buffer("knn_pairs", torch::empty({0, 2}, opts.dtype(torch::kLong)));
  knn_similarity_ = register_buffer("knn_similarity", torch::empty({0}, opts));
  reset_context(ctx);
}

void CombinedModel::reset_context(const ModelContext& ctx) {
  std::lock_guard<std::mutex> lock(index_mutex_);
  ctx_ = ModelContext{};
  ctx_.n1 = ctx.n1, ctx_.n2 = ctx.n2;
  ctx_.at1 = ctx.at1, ctx_.at2 = ctx.at2;
  ctx_.links1 = ctx.links1, ctx_.links2 = ctx.links2;
  ctx_.train_users = ctx.train_users, ctx_.train_items = ctx.train_items,
  ctx_.train_values = ctx.train_values;
  index_.reset();
}

std::shared_ptr<const CombinedModel::NeighbourIndex> CombinedModel::index() {
  std::lock_guard<std::mutex> lock(index_mutex_);
  if (!index_) {
    Biases b = baseline_->biases();
    const NeighbourWeights w = neighbours();
    NeighbourResiduals r(context_ratings(ctx_), b, neighbour_graph(ctx_.at1, ctx_.links1, w.user_direction),
                         neighbour_graph(ctx_.at2, ctx_.links2, w.item_direction));
    if (neighbours().knn != 0) r.set_similar_items(similar_items_held());
    index_ = std::make_shared<const NeighbourIndex>(NeighbourIndex{std::move(r), std::move(b)});
  }
  return index_;
}

NeighbourWeights CombinedModel::neighbours() const {
  NeighbourWeights w;
  const int64_t n = neighbour_members_.numel();
  if (n != 4 && n != 6 && n != 8) return w;
  const at::Tensor t = neighbour_members_.detach().to(at::kCPU, at::kDouble).contiguous();
  const double* p = t.data_ptr<double>();
  w.user = p[0], w.user_shrinkage = p[1], w.item = p[2], w.item_shrinkage = p[3];
  if (n >= 6) w.knn = p[4], w.knn_shrinkage = p[5];
  const auto direction = [](double code) {
    return code == 1 ? LinkDirection::out : code == 2 ? LinkDirection::in : LinkDirection::both;
  };
  if (n == 8) w.user_direction = direction(p[6]), w.item_direction = direction(p[7]);
  return w;
}

void CombinedModel::set_neighbours(const NeighbourWeights& w) {
  torch::NoGradGuard no_grad;
  const auto opts = torch::TensorOptions().dtype(torch::kFloat).device(weights_.device());
  if (!w.any()) {
    neighbour_members_.set_(torch::empty({0}, opts));
    return;
  }
  std::vector<float> v = {static_cast<float>(w.user), static_cast<float>(w.user_shrinkage),
                          static_cast<float>(w.item), static_cast<float>(w.item_shrinkage)};
  // Four entries where no k-NN member is kept, six where every graph's member reads both
  // directions: the forms of the directories before each.
  const bool one_way = w.user_direction != LinkDirection::both || w.item_direction != LinkDirection::both;
  if (w.knn != 0 || one_way)
    v.insert(v.end(), {static_cast<float>(w.knn), static_cast<float>(w.knn_shrinkage)});
  if (one_way)
    v.insert(v.end(), {static_cast<float>(w.user_direction), static_cast<float>(w.item_direction)});
  neighbour_members_.set_(torch::tensor(v, opts));
}

at::Tensor CombinedModel::neighbour_terms(const at::Tensor& users, const at::Tensor& items,
                                          const at::Tensor& like) {
  const NeighbourWeights w = neighbours();
  const auto idx = index();
  const at::Tensor u = users.to(at::kCPU, at::kLong).contiguous(),
                   i = items.to(at::kCPU, at::kLong).contiguous();
  at::Tensor out = torch::zeros({u.numel()}, torch::kFloat);
  float* o = out.data_ptr<float>();
  const int64_t* up = u.data_ptr<int64_t>();
  const int64_t* ip = i.data_ptr<int64_t>();
  for (int64_t k = 0; k < u.numel(); ++k) {
    double t = 0;
    if (w.user != 0) t += w.user * idx->residuals.user_sum(up[k], ip[k]).term(w.user_shrinkage);
    if (w.item != 0) t += w.item * idx->residuals.item_sum(up[k], ip[k]).term(w.item_shrinkage);
    if (w.knn != 0) t += w.knn * idx->residuals.knn_sum(up[k], ip[k]).term(w.knn_shrinkage);
    o[k] = static_cast<float>(t);
  }
  return out.to(like.device(), like.scalar_type());
}

at::Tensor CombinedModel::neighbour_rows(const at::Tensor& users, int64_t n2, const at::Tensor& like) {
  const NeighbourWeights w = neighbours();
  const auto idx = index();
  const at::Tensor u = users.to(at::kCPU, at::kLong).contiguous();
  at::Tensor out = torch::zeros({u.numel(), n2}, torch::kFloat);
  for (int64_t b = 0; b < u.numel(); ++b)
    idx->residuals.add_row(u.data_ptr<int64_t>()[b], w, out[b].data_ptr<float>(), n2);
  return out.to(like.device(), like.scalar_type());
}

at::Tensor CombinedModel::forward(const at::Tensor& users, const at::Tensor& items) {
  // At the identity (during training) this is the model's own prediction, bit for bit:
  // 0 + 1 * f + 0 * (finite biases).
  at::Tensor out = weights_[0] + weights_[1] * inner_->forward(users, items) +
                   weights_[2] * baseline_->forward(users, items);
  if (neighbours().any()) out = out + neighbour_terms(users, items, out);
  return out;
}

at::Tensor CombinedModel::rating_items(const at::Tensor& users, int64_t n2) {
  const at::Tensor f = inner_->rating_items(users, n2);
  at::Tensor out = weights_[0] + weights_[1] * f + weights_[2] * baseline_->rating_items(users, n2);
  if (neighbours().any()) out = out + neighbour_rows(users, n2, out);
  return out;
}

at::Tensor CombinedModel::score_items(const at::Tensor& users, int64_t n2) {
  return inner_->ranks_by_rating() ? rating_items(users, n2) : inner_->score_items(users, n2);
}

ScoreFactors CombinedModel::score_factors() {
  if (!inner_->ranks_by_rating()) return inner_->score_factors();
  // The neighbour members are sums over the graph, no product of factors.
  if (neighbours().any()) return {};
  const at::Tensor w = weights_.detach().to(at::kCPU, at::kDouble);
  ScoreFactors f = weighted_sum(inner_->score_factors(), w[1].item<double>(), baseline_->score_factors(),
                                w[2].item<double>(), w[0].item<double>());
  if (f.items.defined())
    f.meaning += "; combined with the bias baseline as " + std::to_string(w[0].item<double>()) + " + " +
                 std::to_string(w[1].item<double>()) + " x model + " + std::to_string(w[2].item<double>()) +
                 " x baseline (train.auto)";
  return f;
}

SparseRows CombinedModel::similar_items_held() const {
  const at::Tensor pairs = knn_pairs_.detach().to(at::kCPU, at::kLong).contiguous();
  const at::Tensor sim = knn_similarity_.detach().to(at::kCPU, at::kDouble).contiguous();
  SparseRows s;
  const int64_t kept = pairs.size(0);
  const int64_t* p = pairs.data_ptr<int64_t>();
  // Saved in row order (item ascending, neighbours ascending within an item).
  for (int64_t e = 0; e < kept; ++e) {
    const int64_t i = p[2 * e];
    while (s.rows() <= i) s.ptr.push_back(s.ptr.back());
    s.idx.push_back(p[2 * e + 1]);
    s.value.push_back(sim.data_ptr<double>()[e]);
    ++s.ptr.back();
  }
  return s;
}

void CombinedModel::hold_similar_items(const SparseRows& s) {
  std::vector<int64_t> pairs;
  std::vector<float> sim;
  for (int64_t i = 0; i < s.rows(); ++i)
    for (int64_t k = s.ptr[static_cast<size_t>(i)]; k < s.ptr[static_cast<size_t>(i) + 1]; ++k) {
      pairs.push_back(i);
      pairs.push_back(s.idx[static_cast<size_t>(k)]);
      sim.push_back(static_cast<float>(s.value[static_cast<size_t>(k)]));
    }
  const auto kept = static_cast<int64_t>(sim.size());
  knn_pairs_.set_(torch::tensor(pairs, torch::kLong).reshape({kept, 2}).to(knn_pairs_.device()));
  knn_similarity_.set_(torch::tensor(sim, torch::kFloat).to(knn_similarity_.device()));
}

void CombinedModel::set_combination(const Combination& w, const Biases& biases, const Shrinkage& shrinkage) {
  torch::NoGradGuard no_grad;
  // The k-NN member's neighbourhoods from the ratings the model holds, under these biases.
  hold_similar_items(
      w.neighbours.knn != 0
          ? NeighbourResiduals(context_ratings(ctx_), biases, {}, {}, knn_neighbours_).similar_items()
          : SparseRows{});
  weights_.copy_(torch::tensor({static_cast<float>(w.c), static_cast<float>(w.a), static_cast<float>(w.b)}));
  shrinkage_.copy_(torch::tensor({static_cast<float>(shrinkage.user), static_cast<float>(shrinkage.item)}));
  baseline_->set(biases);
  set_neighbours(w.neighbours);
  std::lock_guard<std::mutex> lock(index_mutex_);
  index_.reset();
}

void CombinedModel::nodes_added(const ModelContext& ctx, int64_t trained_users, int64_t trained_items) {
  inner_->nodes_added(ctx, trained_users, trained_items);
  const at::Tensor s = shrinkage_.to(at::kCPU).to(at::kDouble).contiguous();
  baseline_->extend(ctx, trained_users, trained_items, {s.data_ptr<double>()[0], s.data_ptr<double>()[1]},
                    sweeps_);
  reset_context(ctx);
}

bool CombinedModel::take_graph_edit(RatingModel& before) {
  // The neighbour members read the graph itself: the model rebuilt on the edited graph is exact.
  // `before` is this kind rebuilt with the same weights: the same members kept.
  RatingModel* b = before.wrapped();
  return b && !neighbours().any() && inner_->take_graph_edit(*b);
}

at::Tensor CombinedModel::fold_user(const UserFold& fold) {
  const at::Tensor inner = inner_->fold_user(fold);
  if (!inner.defined()) return {};
  torch::NoGradGuard no_grad;
  const double lambda_user = shrinkage_[0].item<double>();
  const at::Tensor baseline = baseline_->fold_row(fold, lambda_user, sweeps_);
  at::Tensor ratings = weights_[0] + weights_[1] * inner[1] + weights_[2] * baseline;
  if (const NeighbourWeights w = neighbours(); w.any())
    ratings = ratings + fold_neighbours(fold, w, lambda_user, ratings);
  const at::Tensor scores = inner_->ranks_by_rating() ? ratings : inner[0];
  return torch::stack({scores, ratings});
}

at::Tensor CombinedModel::fold_neighbours(const UserFold& fold, const NeighbourWeights& w, double lambda_user,
                                          const at::Tensor& like) {
  // The members as the model grown by the fold computes them: the user's graph neighbours
  // (a new user's row of At1 gathers from fold.neighbours, the people they link to, whom no
  // one links to yet; a trained user's row is as it was),
  // and every rating of theirs, its residual under the biases extend() gives them (a trained
  // user's and the items' stay).
  const auto idx = index();
  const Biases& b = idx->biases;
  const double b_user = baseline_->fold_user_bias(fold, lambda_user, sweeps_);
  const bool trained = fold.user < static_cast<int64_t>(b.user.size());
  const std::vector<int64_t> around =
      trained ? idx->residuals.user_neighbours(fold.user)
              : (fold.identity_row || w.user_direction == LinkDirection::in ? std::vector<int64_t>{}
                                                                            : fold.neighbours);
  std::vector<std::pair<int64_t, double>> rated;
  for (size_t e = 0; e < fold.items.size(); ++e)
    rated.emplace_back(fold.items[e], static_cast<float>(fold.values[e]) -
                                          (b.mu + b_user + b.item[static_cast<size_t>(fold.items[e])]));
  const auto n2 = static_cast<int64_t>(b.item.size());
  at::Tensor row = torch::zeros({n2}, torch::kFloat);
  idx->residuals.add_row(around, rated, w, row.data_ptr<float>(), n2);
  if (!fold.asked.empty())
    row = row.index_select(0, torch::tensor(at::ArrayRef<int64_t>(fold.asked), torch::kLong));
  return row.to(like.device(), like.scalar_type());
}

bool combines_with_baseline(const RunConfig& cfg) {
  return cfg.train.auto_choose == "on" && cfg.train.objective == "rating" &&
         model_kind(cfg.model).fit == FitMethod::trained;
}

}  // namespace symgnn::models
