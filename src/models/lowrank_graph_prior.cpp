// The rows of nodes a graph edit created (LowRankModel::nodes_added, with_graph_prior;
// infer/graph_edit.cpp): such a node joins by its edges alone, and its empty rating row gives
// the encoder nothing to place it by (every such row is the same vector), nor its zero weight
// rows the CGE. Its U^(p) row and its final U row are instead the means of its graph
// neighbours' rows, weighted by its row of At (neighbours that are themselves such nodes left
// out): the CGE layers of its neighbours read it as one of them, and the decoder and
// similar() place it where its links put it (a new item linked to five related items is
// nearest to them). Nodes of training keep their own rows, whatever their ratings; a created
// node that is rated later is placed by its ratings.
#include <torch/types.h>
#include <torch/utils.h>

#include <algorithm>

#include "models/lowrank_model.h"
#include "models/lowrank_trace.h"

namespace symgnn::models {

namespace {

/// The number of training ratings of each node of one side (`of`: ctx.train_users or
/// train_items), on the CPU.
std::vector<int64_t> rating_counts(const at::Tensor& of, int64_t n) {
  std::vector<int64_t> count(static_cast<size_t>(n), 0);
  if (!of.defined()) return count;
  const at::Tensor c = of.to(at::kCPU, at::kLong).contiguous();
  const int64_t* p = c.data_ptr<int64_t>();
  for (int64_t e = 0; e < c.numel(); ++e)
    if (p[e] >= 0 && p[e] < n) ++count[static_cast<size_t>(p[e])];
  return count;
}

/// Whether row `r` of `at` names another node.
bool has_neighbour(const graph::SparseMatrix& at, const at::Tensor& row_ptr, const at::Tensor& col_idx,
                   int64_t r) {
  if (at.identity) return false;
  const int64_t* ptr = row_ptr.data_ptr<int64_t>();
  const int64_t* col = col_idx.data_ptr<int64_t>();
  for (int64_t e = ptr[r]; e < ptr[r + 1]; ++e)
    if (col[e] != r) return true;
  return false;
}

}  // namespace

void LowRankModel::nodes_added(const ModelContext& ctx, int64_t trained_users, int64_t trained_items) {
  if (!encoder_) return;
  torch::NoGradGuard no_grad;
  for (int side = 0; side < 2; ++side) {
    at::Tensor& buffer = side == 0 ? graph_prior_rows1_ : graph_prior_rows2_;
    const graph::SparseMatrix& at = side == 0 ? at1_ : at2_;
    const int64_t n = side == 0 ? ctx.n1 : ctx.n2, trained = side == 0 ? trained_users : trained_items;
    const std::vector<int64_t> count = rating_counts(side == 0 ? ctx.train_users : ctx.train_items, n);
    // Those the buffer holds still without ratings (a node that has been rated since is placed
    // by its ratings), then the nodes added now without ratings that have a neighbour.
    std::vector<int64_t> rows;
    const at::Tensor held = buffer.to(at::kCPU).contiguous();
    for (int64_t k = 0; k < held.numel(); ++k)
      if (count[static_cast<size_t>(held.data_ptr<int64_t>()[k])] == 0)
        rows.push_back(held.data_ptr<int64_t>()[k]);
    if (!at.identity && n > trained) {
      const at::Tensor ptr = at.row_ptr.to(at::kCPU).contiguous(), col = at.col_idx.to(at::kCPU).contiguous();
      for (int64_t r = trained; r < n; ++r)
        if (count[static_cast<size_t>(r)] == 0 && has_neighbour(at, ptr, col, r)) rows.push_back(r);
    }
    std::sort(rows.begin(), rows.end());
    rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
    buffer.set_(torch::tensor(at::ArrayRef<int64_t>(rows), torch::kLong).to(buffer.device()));
  }
  scored_u1_ = scored_u2_ = at::Tensor();
  const std::lock_guard<std::mutex> lock(fold_mutex_);
  fold_trace_ = nullptr;
}

LowRankModel::GraphPrior LowRankModel::graph_prior(int side, const std::vector<int64_t>* rated) {
  GraphPrior g;
  const at::Tensor& buffer = side == 0 ? graph_prior_rows1_ : graph_prior_rows2_;
  const graph::SparseMatrix& at = side == 0 ? at1_ : at2_;
  if (!buffer.defined() || buffer.numel() == 0 || at.identity) return g;
  const at::Tensor rows = buffer.to(at::kCPU).contiguous();
  const int64_t* r = rows.data_ptr<int64_t>();
  std::vector<int64_t> cold;
  for (int64_t k = 0; k < rows.numel(); ++k)
    if (!rated || !std::binary_search(rated->begin(), rated->end(), r[k])) cold.push_back(r[k]);
  const at::Tensor ptr_t = at.row_ptr.to(at::kCPU).contiguous(), col_t = at.col_idx.to(at::kCPU).contiguous();
  const at::Tensor val_t = at.values.to(at::kCPU, at::kFloat).contiguous();
  const int64_t* ptr = ptr_t.data_ptr<int64_t>();
  const int64_t* col = col_t.data_ptr<int64_t>();
  const float* val = val_t.data_ptr<float>();
  for (const int64_t c : cold) {
    double total = 0;
    const size_t first = g.cols.size();
    for (int64_t e = ptr[c]; e < ptr[c + 1]; ++e)
      if (!std::binary_search(cold.begin(), cold.end(), col[e]) && val[e] > 0)
        g.cols.push_back(col[e]), g.vals.push_back(val[e]), total += val[e];
    if (g.cols.size() == first) continue;  // no neighbour of training: its own row stays
    for (size_t e = first; e < g.cols.size(); ++e) {
      g.vals[e] = static_cast<float>(g.vals[e] / total);
      g.at.push_back(static_cast<int64_t>(g.rows.size()));
    }
    g.rows.push_back(c);
  }
  const at::Tensor& x = encoder_->side_inputs(side);
  if (x.defined() && !g.rows.empty()) {
    // U^(p) is linear in the side branch (the encoder's dense layer after the concatenation):
    // the share of a node's own features is U^(p) of a node without ratings with those
    // features. A created node given features takes its own share in place of its
    // neighbours' mean share.
    const auto longs = [&](const std::vector<int64_t>& v) {
      return torch::tensor(at::ArrayRef<int64_t>(v), torch::kLong).to(x.device());
    };
    const auto share = [&](const std::vector<int64_t>& nodes) {
      return encoder_->rows(side, static_cast<int64_t>(nodes.size()), {}, {}, {}, {},
                            x.index_select(0, longs(nodes)));
    };
    GraphPrior local = g;
    for (size_t e = 0; e < local.cols.size(); ++e) local.cols[e] = static_cast<int64_t>(e);
    // A node given no features (a zero row) keeps its neighbours' mean share.
    const at::Tensor given = x.index_select(0, longs(g.rows)).abs().sum(1, true).gt(0).to(x.scalar_type());
    g.prior_delta = (share(g.rows) - local.rows_from(share(g.cols), at::Tensor())) * given;
    Side& s = side == 0 ? side1_ : side2_;
    const at::Tensor zeros = torch::zeros_like(g.prior_delta);
    const at::Tensor cge = s.cge ? zeros : at::Tensor();
    g.final_delta = fused_rows(s.fusion, cge, g.prior_delta) - fused_rows(s.fusion, cge, zeros);
  }
  return g;
}

at::Tensor LowRankModel::GraphPrior::rows_from(const at::Tensor& source, const at::Tensor& delta) const {
  const auto longs = [&](const std::vector<int64_t>& v) {
    return torch::tensor(at::ArrayRef<int64_t>(v), torch::kLong).to(source.device());
  };
  const at::Tensor w =
      torch::tensor(at::ArrayRef<float>(vals), torch::kFloat).to(source.device(), source.scalar_type());
  at::Tensor out = torch::zeros({static_cast<int64_t>(rows.size()), source.size(1)}, source.options())
                       .index_add_(0, longs(at), source.index_select(0, longs(cols)) * w.unsqueeze(1));
  return delta.defined() ? out + delta.to(out.options()) : out;
}

at::Tensor LowRankModel::with_graph_prior(int side, const at::Tensor& x, bool final_rows) {
  const GraphPrior g = graph_prior(side);
  if (g.rows.empty()) return x;
  const at::Tensor rows = torch::tensor(at::ArrayRef<int64_t>(g.rows), torch::kLong).to(x.device());
  return x.index_copy(0, rows, g.rows_from(x, final_rows ? g.final_delta : g.prior_delta));
}

std::pair<at::Tensor, at::Tensor> LowRankModel::priors() {
  const auto [up1, up2] = encoder_->forward();
  return {with_graph_prior(0, up1, false), with_graph_prior(1, up2, false)};
}

}  // namespace symgnn::models
