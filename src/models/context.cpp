// ModelContext: the fixed inputs of every learned model, built once from the training data.
#include <torch/types.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "models/rating_levels.h"
#include "symgnn/error.h"
#include "symgnn/model.h"

namespace symgnn::models {

namespace {

at::Tensor long_tensor(const std::vector<int64_t>& v) {
  return torch::tensor(at::ArrayRef<int64_t>(v), torch::kLong);
}

at::Tensor float_tensor(const std::vector<float>& v) {
  return torch::tensor(at::ArrayRef<float>(v), torch::kFloat);
}

/// Side features as n x p float, undefined when the side has none.
at::Tensor feature_tensor(const NodeSet& side, const char* which) {
  if (side.features.empty()) return {};
  TORCH_CHECK(side.features.rows == side.count, "make_context: ", which, " features have ",
              side.features.rows, " rows for ", side.count, " nodes");
  return float_tensor(side.features.values).reshape({side.features.rows, side.features.cols});  // n x p
}

/// Whether two sides give the same graph tensors: what normalized_adjacency, directed_links
/// and feature_tensor read (the raw graph, its directed links, whether the models read the
/// identity, the features), compared element by element.
bool same_graph_inputs(const NodeSet& a, const NodeSet& b) {
  const auto same_edges = [](const EdgeList& x, const EdgeList& y) {
    return x.num_nodes == y.num_nodes && x.src == y.src && x.dst == y.dst && x.weight == y.weight;
  };
  return a.count == b.count && a.graph_origin == b.graph_origin && a.links_only == b.links_only &&
         same_edges(a.graph, b.graph) && same_edges(a.directed, b.directed) &&
         a.features.rows == b.features.rows && a.features.cols == b.features.cols &&
         a.features.values == b.features.values;
}

/// One side's graph tensors in `ctx` (at, links, features): `from`'s where its side
/// (`from_side`) gives the same ones, else built from `side`.
void set_side_graphs(const NodeSet& side, const NodeSet* from_side, const ModelContext* from, bool users,
                     ModelContext& ctx) {
  graph::SparseMatrix& adjacency = users ? ctx.at1 : ctx.at2;
  graph::SparseMatrix& links = users ? ctx.links1 : ctx.links2;
  at::Tensor& features = users ? ctx.f1 : ctx.f2;
  if (from && from_side && same_graph_inputs(side, *from_side)) {
    adjacency = users ? from->at1 : from->at2;
    links = users ? from->links1 : from->links2;
    features = users ? from->f1 : from->f2;
    return;
  }
  adjacency = graph::normalized_adjacency(side);
  links = graph::directed_links(side);
  features = feature_tensor(side, users ? "user" : "item");
}

}  // namespace

std::vector<float> rating_levels(const Dataset& ds) {
  // Loaders fill ds.rating_levels; hand-built sets may not.
  std::vector<float> levels = ds.rating_levels.empty() ? ds.train.value : ds.rating_levels;
  std::sort(levels.begin(), levels.end());
  levels.erase(std::unique(levels.begin(), levels.end()), levels.end());
  return levels;
}

ModelContext make_context(const Dataset& ds, SharedGraphs shared) {
  TORCH_CHECK(ds.users.graph_origin != GraphOrigin::None && ds.items.graph_origin != GraphOrigin::None,
              "make_context: resolve the graphs first (graph::resolve_graphs)");
  ModelContext ctx;
  ctx.n1 = ds.users.count;
  ctx.n2 = ds.items.count;
  set_side_graphs(ds.users, shared.ds ? &shared.ds->users : nullptr, shared.ctx, true, ctx);
  set_side_graphs(ds.items, shared.ds ? &shared.ds->items : nullptr, shared.ctx, false, ctx);

  const RatingList& train = ds.train;
  ctx.levels = rating_levels(ds);

  ctx.train_users = long_tensor(train.user);
  ctx.train_items = long_tensor(train.item);
  ctx.train_values = float_tensor(train.value);

  // Class of each training rating for the per-class priors h[k]: the nearest level, where
  // the ratings take a few levels (stars; levels are exact in every loader, so "nearest"
  // only absorbs float noise). Continuous targets (more than kMaxPriorClasses distinct
  // values: log play counts, prices) fall into kBinnedPriorClasses bins between quantiles
  // of the training values instead: a class per distinct value would be a prior of
  // thousands of one-rating classes (and wider than the prior encoder).
  const bool binned = ctx.levels.size() > kMaxPriorClasses;  // prior_class_count()'s rule
  std::vector<float> edges;                                  // binned: the upper edges of the first K-1 bins
  if (binned) {
    std::vector<float> sorted = train.value;
    std::sort(sorted.begin(), sorted.end());
    for (int64_t k = 1; k < kBinnedPriorClasses; ++k)
      edges.push_back(
          sorted[static_cast<size_t>(k) * sorted.size() / static_cast<size_t>(kBinnedPriorClasses)]);
    edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
  }
  const size_t num_levels = binned ? edges.size() + 1 : ctx.levels.size();
  std::vector<std::vector<int64_t>> rows(num_levels), cols(num_levels);
  for (size_t e = 0; e < train.size(); ++e) {
    const float r = train.value[e];
    size_t k = 0;
    if (binned) {
      k = static_cast<size_t>(std::upper_bound(edges.begin(), edges.end(), r) - edges.begin());
    } else {
      auto it = std::lower_bound(ctx.levels.begin(), ctx.levels.end(), r);
      if (it == ctx.levels.end() || (it != ctx.levels.begin() && r - *(it - 1) < *it - r)) --it;
      if (std::fabs(*it - r) > 1e-4f * std::max(1.0f, std::fabs(r)))
        throw DataError(ds.name, 0,
                        "training rating " + std::to_string(r) + " is not one of the rating levels");
      k = static_cast<size_t>(it - ctx.levels.begin());
    }
    rows[k].push_back(train.user[e]);
    cols[k].push_back(train.item[e]);
  }
  for (size_t k = 0; k < num_levels; ++k) {
    const at::Tensor r = long_tensor(rows[k]), c = long_tensor(cols[k]);
    // The class's lists are copied into r and c: free them now, so that building the
    // classes one after another never holds two copies of every rating (docs/scale.md).
    std::vector<int64_t>().swap(rows[k]);
    std::vector<int64_t>().swap(cols[k]);
    ctx.h.push_back(graph::from_coo(ctx.n1, ctx.n2, r, c, torch::ones({r.numel()}, torch::kFloat)));
    ctx.ht.push_back(ctx.h.back().transpose());
  }

  if (!train.empty()) {
    double sum = 0, sq = 0;
    for (float v : train.value) sum += v;
    const double mean = sum / static_cast<double>(train.size());
    for (float v : train.value) sq += (v - mean) * (v - mean);
    const double sd = std::sqrt(sq / static_cast<double>(train.size()));
    ctx.global_mean = static_cast<float>(mean);
    ctx.rating_std = sd > 0 ? static_cast<float>(sd) : 1.0f;  // one distinct rating: nothing to scale
  }
  ctx.rating_min = ds.rating_min;
  ctx.rating_max = ds.rating_max;
  if (ctx.rating_max <= ctx.rating_min && !ctx.levels.empty()) {
    ctx.rating_min = ctx.levels.front();
    ctx.rating_max = ctx.levels.back();
  }
  return ctx;
}

ModelContext ModelContext::to(const at::Device& device) const {
  ModelContext c = *this;
  c.at1 = at1.to(device);
  c.at2 = at2.to(device);
  for (graph::SparseMatrix* m : {&c.links1, &c.links2})
    if (m->row_ptr.defined()) *m = m->to(device);
  for (at::Tensor* t : {&c.f1, &c.f2, &c.train_users, &c.train_items, &c.train_values})
    if (t->defined()) *t = t->to(device);
  for (auto& m : c.h) m = m.to(device);
  for (auto& m : c.ht) m = m.to(device);
  return c;
}

}  // namespace symgnn::models
