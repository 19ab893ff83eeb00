// One user folded into the low-rank model (LowRankModel::fold_user, lowrank_model.h): the
// rows the grown model (infer/new_ratings.h) would compute differently, and only those.
//
// With variant G, prior = encoder and no id embedding, U = fuse(CGE(U^(p)), U^(p)) per side,
// where U^(p) row i reads row i of the normalised priors and the other side's embedding
// table (a weight), and CGE row i reads At's row i. The user's ratings change:
//   - the user's own prior row, hence U1^(p) and, through the user CGE, U1 of the user;
//   - the rows of the items they rate anew (a new entry and a degree one higher); with
//     prior_norm = symmetric also the rows of every item they rated (their degree changed);
//   - through the item CGE, the items that gather from those within its L layers.
// Nothing else the user's scores read changes: the items' representations read the users'
// embedding table, not the users' representations. The trace of the full forward keeps the
// unchanged rows (U^(p), the CGE products, U); the changed ones are computed as
// prior_encoder_rows.cpp and cge_rows.cpp compute them, and the decoder scores the user's
// row against U2 with those rows replaced.
#include <c10/core/InferenceMode.h>
#include <torch/types.h>
#include <torch/utils.h>

#include <algorithm>
#include <cmath>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "models/lowrank_model.h"
#include "models/lowrank_trace.h"

namespace symgnn::models {

namespace {

/// The rows `index` of `all`, where those in `changed` (ascending) come from `changed_rows`.
at::Tensor rows_with(const at::Tensor& all, const std::vector<int64_t>& index,
                     const std::vector<int64_t>& changed, const at::Tensor& changed_rows) {
  std::vector<int64_t> from_all, at_all, from_changed, at_changed;
  for (size_t k = 0; k < index.size(); ++k) {
    const auto it = std::lower_bound(changed.begin(), changed.end(), index[k]);
    if (it != changed.end() && *it == index[k]) {
      at_changed.push_back(static_cast<int64_t>(k)), from_changed.push_back(it - changed.begin());
    } else {
      at_all.push_back(static_cast<int64_t>(k)), from_all.push_back(index[k]);
    }
  }
  const auto longs = [&](const std::vector<int64_t>& v) {
    return torch::tensor(at::ArrayRef<int64_t>(v), torch::kLong).to(all.device());
  };
  at::Tensor out = torch::empty({static_cast<int64_t>(index.size()), all.size(1)}, all.options());
  if (!at_all.empty()) out.index_copy_(0, longs(at_all), all.index_select(0, longs(from_all)));
  if (!at_changed.empty())
    out.index_copy_(0, longs(at_changed), changed_rows.index_select(0, longs(from_changed)));
  return out;
}

/// `a` and `b` (disjoint index sets, each ascending) as one, ascending.
NodeRows merged(const NodeRows& a, const NodeRows& b) {
  if (b.index.empty()) return a;
  std::vector<int64_t> index = a.index;
  index.insert(index.end(), b.index.begin(), b.index.end());
  const at::Tensor values = torch::cat({a.values, b.values}, 0);
  std::vector<int64_t> order(index.size());
  for (size_t k = 0; k < order.size(); ++k) order[k] = static_cast<int64_t>(k);
  std::sort(order.begin(), order.end(), [&](int64_t x, int64_t y) { return index[x] < index[y]; });
  NodeRows out;
  for (const int64_t k : order) out.index.push_back(index[static_cast<size_t>(k)]);
  out.values =
      values.index_select(0, torch::tensor(at::ArrayRef<int64_t>(order), torch::kLong).to(values.device()));
  return out;
}

}  // namespace

NodeRows LowRankModel::graph_prior_moved(int side, const at::Tensor& x, const NodeRows& changed,
                                         bool with_changed, const std::vector<int64_t>& rated) {
  const GraphPrior g = graph_prior(side, &rated);
  GraphPrior moved;
  std::vector<int64_t> kept;  // the rows of g moved
  for (size_t k = 0, e = 0; k < g.rows.size(); ++k) {
    size_t end = e;
    bool reads = false;
    while (end < g.at.size() && g.at[end] == static_cast<int64_t>(k))
      reads |= std::binary_search(changed.index.begin(), changed.index.end(), g.cols[end]), ++end;
    const bool among = std::binary_search(changed.index.begin(), changed.index.end(), g.rows[k]);
    if ((reads || among) && (with_changed || !among)) {
      for (; e < end; ++e)
        moved.at.push_back(static_cast<int64_t>(moved.rows.size())), moved.cols.push_back(g.cols[e]),
            moved.vals.push_back(g.vals[e]);
      moved.rows.push_back(g.rows[k]);
      kept.push_back(static_cast<int64_t>(k));
    }
    e = end;
  }
  if (moved.rows.empty()) return {};
  // The rows they read, the changed ones as changed, then gathered as priors() gathers them.
  GraphPrior local = moved;
  for (size_t e = 0; e < local.cols.size(); ++e) local.cols[e] = static_cast<int64_t>(e);
  const at::Tensor source = rows_with(x, moved.cols, changed.index, changed.values);
  // U rows where with_changed (the fold's U), else U^(p) rows: each level's feature delta.
  const at::Tensor& delta = with_changed ? g.final_delta : g.prior_delta;
  const at::Tensor own =
      delta.defined()
          ? delta.index_select(0, torch::tensor(at::ArrayRef<int64_t>(kept), torch::kLong).to(delta.device()))
          : at::Tensor();
  return NodeRows{moved.rows, local.rows_from(source, own)};
}

std::shared_ptr<const FoldTrace> LowRankModel::fold_trace() {
  const std::lock_guard<std::mutex> lock(fold_mutex_);
  if (fold_trace_) return fold_trace_;
  torch::NoGradGuard no_grad;
  auto t = std::make_shared<FoldTrace>();
  std::tie(t->u1, t->u2) = embeddings();
  std::tie(t->up1, t->up2) = priors();
  if (side1_.cge) t->cge1 = side1_.cge->trace(t->up1);
  if (side2_.cge) t->cge2 = side2_.cge->trace(t->up2);
  for (int side = 0; side < 2; ++side) {
    const auto& hn = encoder_->normalized(side);
    const int64_t n = hn.front().rows;
    std::vector<int64_t>& degree = t->degree[side];
    degree.assign(static_cast<size_t>(n), 0);
    for (const auto& m : hn) {
      t->row_ptr[side].push_back(m.row_ptr.cpu().contiguous());
      t->col_idx[side].push_back(m.col_idx.cpu().contiguous());
      const int64_t* ptr = t->row_ptr[side].back().data_ptr<int64_t>();
      for (int64_t i = 0; i < n; ++i) degree[static_cast<size_t>(i)] += ptr[i + 1] - ptr[i];
    }
  }
  fold_trace_ = t;
  return t;
}

bool LowRankModel::traces_rows() const {
  if (is_training() || !encoder_) return false;
  for (const Side* side : {&side1_, &side2_})
    if (side->mlp || side->within || side->prior || side->cross) return false;
  return true;
}

bool LowRankModel::folds_users() const {
  if (!traces_rows()) return false;
  // A new rating rescales, under the symmetric norm, the rows of the item's other raters,
  // which a user graph would carry to the user.
  return cfg_.prior_norm != "symmetric" || !side1_.cge || at1_.identity;
}

void LowRankModel::prepare_folds() {
  if (!folds_users()) return;
  const c10::InferenceMode inference;  // as a served user's fold-in runs (infer/fold_in.cpp)
  fold_trace();
}

at::Tensor LowRankModel::fold_user(const UserFold& f) {
  if (!folds_users()) return {};
  const std::shared_ptr<const FoldTrace> t = fold_trace();
  torch::NoGradGuard no_grad;
  const int64_t n1 = t->up1.size(0), u = f.user;
  TORCH_CHECK(u >= 0 && u <= n1, "fold_user: user ", u, " outside [0, ", n1, "]");
  const bool fresh = u == n1, symmetric = cfg_.prior_norm == "symmetric";
  const auto k = static_cast<int64_t>(t->row_ptr[0].size());
  for (const int64_t c : f.classes)
    TORCH_CHECK(c >= 0 && c < k, "fold_user: class ", c, " outside the priors");

  // Degrees after the fold: the user's ratings, and each item rated anew one more.
  std::unordered_map<int64_t, size_t> added;  // item -> the user's rating of it, where new
  for (size_t e = 0; e < f.items.size(); ++e)
    if (f.added[e]) added.emplace(f.items[e], e);
  const auto user_degree = static_cast<float>(f.items.size());
  const auto item_degree = [&](int64_t j) {
    return static_cast<float>(t->degree[1][static_cast<size_t>(j)] + (added.count(j) ? 1 : 0));
  };
  const auto other_user_degree = [&](int64_t v) {
    return v == u ? user_degree : static_cast<float>(t->degree[0][static_cast<size_t>(v)]);
  };
  // normalize_prior's entries (prior_aggregation.cpp), in float as it computes them.
  const auto entry = [&](float row_degree, float col_degree) {
    return symmetric ? 1.0f / std::sqrt(row_degree * col_degree) : 1.0f / row_degree;
  };

  // The user's U^(p) row.
  std::vector<int64_t> row, cls, col;
  std::vector<float> val;
  for (size_t e = 0; e < f.items.size(); ++e) {
    row.push_back(0), cls.push_back(f.classes[e]), col.push_back(f.items[e]);
    val.push_back(entry(user_degree, item_degree(f.items[e])));
  }
  at::Tensor x1;
  if (fresh && f.features.defined())
    x1 = feature_rows_normalized(f.features.to(t->up1.device(), at::kFloat).reshape({1, -1}));
  else if (!fresh && encoder_->side_inputs(0).defined())
    x1 = encoder_->side_inputs(0).narrow(0, u, 1);
  const at::Tensor up1 = encoder_->rows(0, 1, row, cls, col, val, x1);

  // The items rated anew (a created item among them leaves the graph-prior rows).
  std::vector<int64_t> rated_items;
  for (const auto& [j, e] : added) rated_items.push_back(j);
  std::sort(rated_items.begin(), rated_items.end());
  // The items whose U^(p) rows change, and those rows.
  std::vector<int64_t> changed;
  for (size_t e = 0; e < f.items.size(); ++e)
    if (symmetric || f.added[e]) changed.push_back(f.items[e]);
  std::sort(changed.begin(), changed.end());
  changed.erase(std::unique(changed.begin(), changed.end()), changed.end());
  row.clear(), cls.clear(), col.clear(), val.clear();
  for (size_t r = 0; r < changed.size(); ++r) {
    const int64_t j = changed[r];
    const float dj = item_degree(j);
    for (int64_t c = 0; c < k; ++c) {
      const int64_t* ptr = t->row_ptr[1][static_cast<size_t>(c)].data_ptr<int64_t>();
      const int64_t* users = t->col_idx[1][static_cast<size_t>(c)].data_ptr<int64_t>();
      for (int64_t e = ptr[j]; e < ptr[j + 1]; ++e)
        row.push_back(static_cast<int64_t>(r)), cls.push_back(c), col.push_back(users[e]),
            val.push_back(entry(dj, other_user_degree(users[e])));
    }
    // The user's own entry: a new user's embedding row is zero (it only adds to the degree).
    if (const auto it = added.find(j); it != added.end() && !fresh)
      row.push_back(static_cast<int64_t>(r)), cls.push_back(f.classes[it->second]), col.push_back(u),
          val.push_back(entry(dj, user_degree));
  }
  const auto longs = [&](const std::vector<int64_t>& v) {
    return torch::tensor(at::ArrayRef<int64_t>(v), torch::kLong).to(t->up2.device());
  };
  std::vector<int64_t> moved;  // the items whose U2 row changed, ascending, and their rows
  at::Tensor moved_rows;
  if (!changed.empty()) {
    const at::Tensor x2 = encoder_->side_inputs(1).defined()
                              ? encoder_->side_inputs(1).index_select(0, longs(changed))
                              : at::Tensor();
    at::Tensor up2 = encoder_->rows(1, static_cast<int64_t>(changed.size()), row, cls, col, val, x2);
    // Items a graph edit created read the changed rows as neighbours: theirs change too.
    const NodeRows both = merged(NodeRows{changed, up2},
                                 graph_prior_moved(1, t->up2, NodeRows{changed, up2}, false, rated_items));
    changed = both.index;
    up2 = both.values;
    NodeRows out{changed, at::Tensor()};
    at::Tensor cge_rows;
    if (side2_.cge) {
      out = side2_.cge->fold_rows(t->cge2, NodeRows{changed, up2}, nullptr, nullptr);
      cge_rows = out.values;
    }
    moved = std::move(out.index);
    moved_rows = fused_rows(side2_.fusion, cge_rows, rows_with(t->up2, moved, changed, up2));
    // The created items' U rows are their neighbours' mean, where one of those moved.
    const NodeRows imputed = graph_prior_moved(1, t->u2, NodeRows{moved, moved_rows}, true, rated_items);
    if (!imputed.index.empty()) {
      NodeRows rest;
      std::vector<int64_t> kept;
      for (size_t k = 0; k < moved.size(); ++k)
        if (!std::binary_search(imputed.index.begin(), imputed.index.end(), moved[k]))
          rest.index.push_back(moved[k]), kept.push_back(static_cast<int64_t>(k));
      rest.values = moved_rows.index_select(0, longs(kept));
      const NodeRows all = merged(rest, imputed);
      moved = all.index;
      moved_rows = all.values;
    }
  }

  // The user's U row: their CGE row, gathering from neighbours as traced (a new user's own row
  // of At; nothing gathers from it).
  at::Tensor cge1;
  if (side1_.cge) {
    AppendedNode appended{n1, f.neighbours, f.weights, f.identity_row || t->cge1.identity};
    const std::vector<int64_t> wanted{u};
    // Users a graph edit created read a trained user's row as a neighbour: theirs change too
    // (nothing reads a new user's).
    const NodeRows own{{u}, up1};
    const NodeRows rows = fresh ? own : merged(own, graph_prior_moved(0, t->up1, own, false, {u}));
    cge1 = side1_.cge->fold_rows(t->cge1, rows, fresh ? &appended : nullptr, &wanted).values;
  }
  const at::Tensor x = fused_rows(side1_.fusion, cge1, up1);

  // The decoder against U2 as traced, the moved items' entries then from their new rows (each
  // item's score reads its own row alone): no copy of U2. Asked items: their rows alone.
  at::Tensor b1;
  if (b1_.defined()) b1 = fresh ? torch::zeros({1}, b1_.options()) : b1_.narrow(0, u, 1);
  const auto rating_row = [&](const at::Tensor& u2, const at::Tensor& b2) {
    if (obj_.rates()) return decode_rows(x, b1, u2, b2);
    return (b1.unsqueeze(1) + (b2.defined() ? b2 : b2_).unsqueeze(0)) * std_ + mean_;
  };
  if (!f.asked.empty()) {
    const at::Tensor asked = longs(f.asked);
    const at::Tensor u2 =
        moved.empty() ? t->u2.index_select(0, asked) : rows_with(t->u2, f.asked, moved, moved_rows);
    const at::Tensor ratings = rating_row(u2, b2_.defined() ? b2_.index_select(0, asked) : at::Tensor());
    if (!obj_.ranks()) return torch::cat({ratings, ratings}, 0);
    return torch::cat({torch::mv(u2, x[0]).unsqueeze(0), ratings}, 0);
  }
  const at::Tensor index = moved.empty() ? at::Tensor() : longs(moved);
  at::Tensor ratings = rating_row(t->u2, at::Tensor());
  if (index.defined())
    ratings.index_copy_(1, index,
                        rating_row(moved_rows, b2_.defined() ? b2_.index_select(0, index) : at::Tensor()));
  if (!obj_.ranks()) return torch::cat({ratings, ratings}, 0);
  at::Tensor scores = torch::mv(t->u2, x[0]).unsqueeze(0);
  if (index.defined()) scores.index_copy_(1, index, torch::mv(moved_rows, x[0]).unsqueeze(0));
  return torch::cat({scores, ratings}, 0);
}

}  // namespace symgnn::models
