#include "models/layers/prior_encoder.h"

#include <torch/nn/init.h>
#include <torch/types.h>

#include "models/kernels/class_spmm.h"
#include "models/kernels/hashed_dropout.h"
#include "models/layers/prior_aggregation.h"
#include "models/weights_from_state.h"

namespace symgnn::models {

namespace {

/// Glorot-uniform table: what GC-MC's dense one-hot input layer starts from.
at::Tensor glorot(std::vector<int64_t> shape) {
  auto t = torch::empty(shape);
  if (WeightsFromState::active()) return t;  // overwritten by the state next
  if (shape.size() == 2) return torch::nn::init::xavier_uniform_(t);
  for (int64_t k = 0; k < shape[0]; ++k) torch::nn::init::xavier_uniform_(t[k]);
  return t;
}

torch::nn::Linear glorot_linear(int64_t in, int64_t out) {
  torch::nn::Linear l(torch::nn::LinearOptions(in, out).bias(false));
  torch::nn::init::xavier_uniform_(l->weight);
  return l;
}

/// Node dropout's factors: per row, 1 / (1 - p) with probability 1 - p, else 0 ([n, 1]).
at::Tensor row_keep(int64_t n, double p, const at::TensorOptions& options) {
  return torch::empty({n, 1}, options).bernoulli_(1 - p) / (1 - p);
}

/// The classes with the other side's row factors folded into their entries:
/// H_k (keep * E) = (H_k diag(keep)) E, so the scaling touches the nnz entries (and their
/// stored transposes) instead of the n x w table and its gradient.
std::vector<graph::SparseMatrix> columns_scaled(const std::vector<graph::SparseMatrix>& hn,
                                                const at::Tensor& keep) {
  std::vector<graph::SparseMatrix> out;
  for (const graph::SparseMatrix& m : hn) {
    TORCH_CHECK(m.t_row_idx.defined(), "PriorEncoder: the class priors need their stored transposes");
    graph::SparseMatrix s = m;
    s.values = m.values * keep.index_select(0, m.col_idx);
    s.t_values = m.t_values * keep.index_select(0, m.t_row_idx);
    out.push_back(std::move(s));
  }
  return out;
}

/// The table's first K floor(w / K) columns, where class c reads its block
/// [c block, (c + 1) block) under concat stacking (a width that K does not divide leaves the
/// last columns unread).
at::Tensor class_columns(const at::Tensor& table, int64_t k) {
  const int64_t width = k * (table.size(1) / k);
  return width == table.size(1) ? table : table.narrow(1, 0, width);
}

}  // namespace

at::Tensor feature_rows_normalized(const at::Tensor& x) {
  return x / x.abs().sum(1, true).clamp_min(1e-12);  // all-zero rows stay zero
}

PriorEncoderImpl::PriorEncoderImpl(const LowRankConfig& cfg, const std::vector<graph::SparseMatrix>& h,
                                   const std::vector<graph::SparseMatrix>& ht, const at::Tensor& f1,
                                   const at::Tensor& f2)
    : cfg_(cfg) {
  TORCH_CHECK(!h.empty() && h.size() == ht.size(),
              "PriorEncoder: needs the class priors and their transposes");
  const auto k = static_cast<int64_t>(h.size());
  const int64_t n1 = h[0].rows, n2 = h[0].cols, w = cfg.prior_width;
  TORCH_CHECK(cfg.prior_stacking == "sum" || w >= k, "PriorEncoder: prior_width ", w, " is smaller than the ",
              k, " rating classes");
  hn1_ = normalize_prior(h, cfg.prior_norm);
  hn2_ = normalize_prior(ht, cfg.prior_norm);
  if (cfg.prior_stacking == "sum") {
    e1_ = register_parameter("e1", glorot({k, n1, w}));
    e2_ = register_parameter("e2", glorot({k, n2, w}));
  } else {
    e1_ = register_parameter("e1", glorot({n1, w}));
    e2_ = register_parameter("e2", glorot({n2, w}));
  }
  // concat: class blocks of floor(w / K) columns, the remainder unused, so that every class
  // gets the same width.
  const int64_t hidden_width = cfg.prior_stacking == "sum" ? w : (w / k) * k;
  const int64_t s = cfg.prior_side_width;
  int64_t in1 = hidden_width, in2 = hidden_width;
  if (s > 0 && f1.defined()) {
    x1_ = feature_rows_normalized(f1.to(torch::kFloat));
    side1_ = register_module("side1", glorot_linear(f1.size(1), s));
    side1_bias_ = register_parameter("side1_bias", torch::zeros({s}));
    in1 += s;
  }
  if (s > 0 && f2.defined()) {
    x2_ = feature_rows_normalized(f2.to(torch::kFloat));
    side2_ = register_module("side2", glorot_linear(f2.size(1), s));
    side2_bias_ = register_parameter("side2_bias", torch::zeros({s}));
    in2 += s;
  }
  if (side1_ || side2_) {
    dense1_ = register_module("dense1", glorot_linear(in1, cfg.hidden));
    dense2_ = register_module("dense2", glorot_linear(in2, cfg.hidden));
  } else {
    dense1_ = register_module("dense", glorot_linear(in1, cfg.hidden));
  }
}

at::Tensor PriorEncoderImpl::aggregate(std::vector<graph::SparseMatrix>& hn, const at::Tensor& other,
                                       const at::Tensor& keep) {
  const auto k = static_cast<int64_t>(hn.size());
  for (graph::SparseMatrix& m : hn)
    if (m.values.scalar_type() != other.scalar_type() || m.values.device() != other.device()) {
      m = m.to(other.device());  // the module was moved or cast after construction
      m.values = m.values.to(other.scalar_type());
      m.t_values = m.t_values.to(other.scalar_type());
    }
  // Sum stacking (K tables [K, n, w], keep [n, 1] broadcasting over the class axis) and
  // encoder_kernels = composite: LibTorch's products class by class.
  if (cfg_.encoder_kernels == "composite" || cfg_.prior_stacking == "sum")
    return aggregate_composite(hn, keep.defined() ? other * keep : other);
  // Fused concat: class c reads columns [c block, (c + 1) block) of the table and writes the same
  // block of H, in one pass that reads the blocks where they lie (models/kernels/class_spmm.h);
  // its backward writes the table's gradient the same way.
  return torch::relu(class_spmm(keep.defined() ? columns_scaled(hn, keep.view(-1)) : hn,
                                class_columns(other, k), ClassLayout::kBlocks));
}

at::Tensor PriorEncoderImpl::aggregate_composite(std::vector<graph::SparseMatrix>& hn,
                                                 const at::Tensor& other) {
  const auto k = static_cast<int64_t>(hn.size());
  std::vector<at::Tensor> parts;
  const bool sum = cfg_.prior_stacking == "sum";
  // The class blocks as K contiguous [n, block] tensors from one copy: unbind's backward
  // is one stack, where K narrows (or selects) would each allocate and zero a gradient
  // of the whole table (a fifth of an epoch on Douban, docs/experiments.md).
  std::vector<at::Tensor> msgs;
  if (sum) {
    msgs = other.unbind(0);
  } else {
    msgs = class_columns(other, k)
               .view({other.size(0), k, other.size(1) / k})
               .permute({1, 0, 2})
               .contiguous()
               .unbind(0);
  }
  for (int64_t c = 0; c < k; ++c)
    parts.push_back(graph::spmm(hn[static_cast<size_t>(c)], msgs[static_cast<size_t>(c)]));
  if (sum) {
    at::Tensor acc = parts[0];
    for (size_t c = 1; c < parts.size(); ++c) acc = acc + parts[c];
    return torch::relu(acc);
  }
  return torch::relu(torch::cat(parts, 1));
}

at::Tensor PriorEncoderImpl::side_branch(torch::nn::Linear& layer, const at::Tensor& bias, at::Tensor& x,
                                         const at::Tensor& like) {
  if (x.device() != like.device() || x.scalar_type() != like.scalar_type()) x = x.to(like.options());
  // relu, then the bias (GC-MC's side-feature layer): the bias is a free per-unit offset.
  return torch::relu(layer->forward(x)) + bias;
}

std::pair<at::Tensor, at::Tensor> PriorEncoderImpl::forward() {
  const bool train = is_training();
  const double p = cfg_.prior_node_dropout;
  // Each row of E1, then of E2, kept with probability 1 - p and scaled by 1 / (1 - p).
  at::Tensor keep1, keep2;
  if (train && p > 0) {
    keep1 = row_keep(e1_.size(-2), p, e1_.options());
    keep2 = row_keep(e2_.size(-2), p, e2_.options());
  }
  return dense_layers(aggregate(hn1_, e2_, keep2), aggregate(hn2_, e1_, keep1), train);
}

std::pair<at::Tensor, at::Tensor> PriorEncoderImpl::dense_layers(at::Tensor h1, at::Tensor h2, bool train) {
  if (side1_) h1 = torch::cat({h1, side_branch(side1_, side1_bias_, x1_, h1)}, 1);
  if (side2_) h2 = torch::cat({h2, side_branch(side2_, side2_bias_, x2_, h2)}, 1);
  const double q = cfg_.prior_dense_dropout;
  if (cfg_.encoder_kernels == "composite") {
    h1 = torch::dropout(h1, q, train);
    h2 = torch::dropout(h2, q, train);
  } else {
    h1 = hashed_dropout(h1, q, train);
    h2 = hashed_dropout(h2, q, train);
  }
  if (!dense2_) return {dense1_->forward(h1), dense1_->forward(h2)};
  return {dense1_->forward(h1), dense2_->forward(h2)};
}

}  // namespace symgnn::models
