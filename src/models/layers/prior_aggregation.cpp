#include "models/layers/prior_aggregation.h"

#include <torch/nn/init.h>
#include <torch/types.h>

#include "models/kernels/class_spmm.h"
#include "models/layers/activation.h"

namespace symgnn::models {

at::Tensor transpose_positions(const graph::SparseMatrix& m) {
  // Entries given in CSR order with values 0..nnz-1 come back, in the transpose, as the
  // CSR position of each transposed entry.
  const auto pos = torch::arange(m.nnz(), m.values.options().dtype(torch::kDouble));
  return graph::from_coo(m.rows, m.cols, m.row_idx, m.col_idx, pos).t_values.to(torch::kLong);
}

graph::SparseMatrix drop_entries(const graph::SparseMatrix& m, const at::Tensor& positions, double p) {
  graph::SparseMatrix out = m;
  const at::Tensor keep = torch::empty_like(m.values).bernoulli_(1 - p) / (1 - p);
  out.values = m.values * keep;
  out.t_values = m.t_values * keep.index_select(0, positions);
  return out;
}

std::vector<graph::SparseMatrix> normalize_prior(const std::vector<graph::SparseMatrix>& h,
                                                 const std::string& norm) {
  TORCH_CHECK(!h.empty(), "normalize_prior: needs at least one rating class");
  TORCH_CHECK(norm == "left" || norm == "symmetric", "normalize_prior: unknown norm '", norm, "'");
  const int64_t n = h[0].rows, m = h[0].cols;
  const auto opts = h[0].values.options();
  // Degrees over all classes: a node's K blocks then share one scale.
  at::Tensor deg = torch::zeros({n}, opts), deg_other = torch::zeros({m}, opts);
  for (const auto& hk : h) {
    TORCH_CHECK(hk.rows == n && hk.cols == m && !hk.identity, "normalize_prior: every H_k must be ", n, " x ",
                m);
    deg.index_add_(0, hk.row_idx, hk.values);
    deg_other.index_add_(0, hk.col_idx, hk.values);
  }
  // Only the values change: the normalised matrix shares the raw prior's index arrays
  // (row_ptr, col_idx, row_idx and those of the stored transpose), so K classes seen
  // from both sides, in every module that normalises them, add 8 bytes per rating each
  // instead of a full CSR pair (40 bytes per rating; docs/scale.md, "Memory").
  // In the stored transpose the rows are this side's columns: t_col_idx names this
  // side's node, t_row_idx the other side's.
  std::vector<graph::SparseMatrix> out;
  for (const auto& raw : h) {
    // A hand-filled matrix without its stored transpose gets one (from_coo builds both).
    const graph::SparseMatrix hk =
        raw.t_row_ptr.defined() ? raw
                                : graph::from_coo(raw.rows, raw.cols, raw.row_idx, raw.col_idx, raw.values);
    graph::SparseMatrix m = hk;
    if (norm == "left") {
      m.values = hk.values / deg.index_select(0, hk.row_idx);
      m.t_values = hk.t_values / deg.index_select(0, hk.t_col_idx);
    } else {
      m.values = hk.values / (deg.index_select(0, hk.row_idx) * deg_other.index_select(0, hk.col_idx)).sqrt();
      m.t_values =
          hk.t_values / (deg.index_select(0, hk.t_col_idx) * deg_other.index_select(0, hk.t_row_idx)).sqrt();
    }
    out.push_back(std::move(m));
  }
  return out;
}

PriorAggregationImpl::PriorAggregationImpl(const std::vector<graph::SparseMatrix>& h, int64_t d,
                                           const std::string& norm, double edge_dropout,
                                           std::string activation)
    : edge_dropout_(edge_dropout), activation_(std::move(activation)) {
  TORCH_CHECK(edge_dropout >= 0.0 && edge_dropout < 1.0, "PriorAggregation: edge dropout must be in [0, 1)");
  hn_ = normalize_prior(h, norm);
  if (edge_dropout_ > 0)
    for (const auto& m : hn_) perm_.push_back(transpose_positions(m));
  const auto k = static_cast<int64_t>(h.size());
  auto theta = torch::empty({k, d, d});
  for (int64_t c = 0; c < k; ++c) torch::nn::init::xavier_uniform_(theta[c]);
  theta_ = register_parameter("theta", theta);
  mlp_ = register_module("mlp", torch::nn::Linear(k * d, d));
}

at::Tensor PriorAggregationImpl::forward(const at::Tensor& uh_other) {
  const auto k = static_cast<int64_t>(hn_.size());
  for (auto& stored : hn_)
    if (stored.values.scalar_type() != uh_other.scalar_type()) {  // the module was cast (e.g. to double)
      stored.values = stored.values.to(uh_other.scalar_type());
      stored.t_values = stored.t_values.to(uh_other.scalar_type());
    }
  std::vector<graph::SparseMatrix> dropped;
  if (is_training() && edge_dropout_ > 0)
    for (size_t c = 0; c < hn_.size(); ++c) dropped.push_back(drop_entries(hn_[c], perm_[c], edge_dropout_));
  const std::vector<graph::SparseMatrix>& h = dropped.empty() ? hn_ : dropped;
  const int64_t n = hn_[0].rows, m = hn_[0].cols, d = theta_.size(1);
  const bool transform_first =
      order_ == PriorOrder::kTransformFirst || (order_ == PriorOrder::kAuto && m < n);
  at::Tensor cat;  // n x Kd = [V_1 || ... || V_K]
  if (transform_first) {
    // H_k (Uh_other Theta_k): the K products on the m rows of the other side, as one
    // m x d by d x Kd product, then each class aggregates its block.
    const at::Tensor theta_cat = theta_.permute({1, 0, 2}).reshape({d, k * d});  // [Theta_1 ... Theta_K]
    cat = activate(class_spmm(h, uh_other.mm(theta_cat), ClassLayout::kBlocks), activation_);
  } else {
    // (H_k Uh_other) Theta_k: the K products on this side's n rows.
    const at::Tensor v = activate(class_spmm(h, uh_other, ClassLayout::kBroadcast).bmm(theta_), activation_);
    cat = v.permute({1, 0, 2}).reshape({n, k * d});  // K x n x d -> n x Kd
  }
  return activate(mlp_->forward(cat), activation_);
}

}  // namespace symgnn::models
