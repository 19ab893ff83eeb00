#include "models/layers/base_channels.h"

#include <torch/nn/init.h>
#include <torch/types.h>

#include "models/layers/activation.h"
#include "models/layers/prior_aggregation.h"
#include "models/layers/within_attention.h"

namespace symgnn::models {

namespace {

/// Casts a fixed matrix's values when the module was cast (e.g. to double in the tests).
void match_dtype(graph::SparseMatrix& m, const at::Tensor& like) {
  if (m.identity || m.values.scalar_type() == like.scalar_type()) return;
  m.values = m.values.to(like.scalar_type());
  m.t_values = m.t_values.to(like.scalar_type());
}

}  // namespace

at::Tensor dense_channel(const std::vector<ChannelFactors>& parts, const std::string& activation) {
  TORCH_CHECK(!parts.empty(), "dense_channel: no factors");
  at::Tensor x;
  for (const auto& f : parts) {
    const at::Tensor xi = activate(f.left.mm(f.right.t()), activation);  // n1 x n2
    x = x.defined() ? x + xi : xi;
  }
  return x;
}

// ---- X1 -----------------------------------------------------------------------------

CgeChannelImpl::CgeChannelImpl(graph::SparseMatrix at1, graph::SparseMatrix at2, int64_t d, int64_t hops)
    : at1_(std::move(at1)), at2_(std::move(at2)) {
  TORCH_CHECK(at1_.rows == at1_.cols && at2_.rows == at2_.cols, "CgeChannel: At1, At2 must be square");
  TORCH_CHECK(hops >= 1, "CgeChannel: needs at least one hop, got ", hops);
  s1_logit_ = register_parameter("s1_logit", torch::zeros({at1_.rows}));
  s2_logit_ = register_parameter("s2_logit", torch::zeros({at2_.rows}));
  for (int64_t i = 0; i < hops; ++i) {
    auto w = torch::empty({d, d});
    torch::nn::init::xavier_uniform_(w);
    w_.push_back(register_parameter("w" + std::to_string(i), w));
  }
}

std::vector<at::Tensor> CgeChannelImpl::powers(graph::SparseMatrix& at, const at::Tensor& s_logit,
                                               const at::Tensor& u) {
  match_dtype(at, u);
  const at::Tensor s = torch::sigmoid(s_logit).unsqueeze(1);  // n x 1, broadcast over d
  std::vector<at::Tensor> out;
  at::Tensor y = u;
  for (size_t i = 0; i < w_.size(); ++i) {
    y = s * y + (1 - s) * graph::spmm(at, y);  // Ah y, n x d
    out.push_back(y);
  }
  return out;
}

std::vector<ChannelFactors> CgeChannelImpl::factors(const at::Tensor& u1, const at::Tensor& u2) {
  TORCH_CHECK(u1.size(0) == at1_.rows && u2.size(0) == at2_.rows, "CgeChannel: U1 must be ", at1_.rows,
              " x d and U2 ", at2_.rows, " x d");
  const auto p1 = powers(at1_, s1_logit_, u1), p2 = powers(at2_, s2_logit_, u2);
  std::vector<ChannelFactors> out;
  for (size_t i = 0; i < w_.size(); ++i) out.push_back({p1[i].mm(w_[i]), p2[i].mm(w_[i])});
  return out;
}

// ---- X2 -----------------------------------------------------------------------------

WithinChannelImpl::WithinChannelImpl(int64_t d, int64_t block) : block_(block) {
  auto w = torch::empty({d, d});
  torch::nn::init::xavier_uniform_(w);
  w_a_ = register_parameter("w_a", w);
}

ChannelFactors WithinChannelImpl::factors(const at::Tensor& u1, const at::Tensor& u2) {
  // B1 U1 W_a U2^T B2^T = (B1 (U1 W_a)) (B2 U2)^T: the n x n scores only meet thin matrices.
  return {blocked_attention(u1, u1, u1.mm(w_a_), block_), blocked_attention(u2, u2, u2, block_)};
}

// ---- X3 -----------------------------------------------------------------------------

PriorChannelImpl::PriorChannelImpl(const std::vector<graph::SparseMatrix>& h, int64_t d, double edge_dropout)
    : edge_dropout_(edge_dropout) {
  TORCH_CHECK(!h.empty(), "PriorChannel: needs at least one rating class");
  TORCH_CHECK(edge_dropout >= 0.0 && edge_dropout < 1.0, "PriorChannel: edge dropout must be in [0, 1)");
  const int64_t n1 = h[0].rows, n2 = h[0].cols;
  const auto opts = h[0].values.options();
  at::Tensor deg1 = torch::zeros({n1}, opts), deg2 = torch::zeros({n2}, opts);
  for (const auto& hk : h) {
    TORCH_CHECK(hk.rows == n1 && hk.cols == n2 && !hk.identity, "PriorChannel: every H_k must be ", n1, " x ",
                n2);
    deg1.index_add_(0, hk.row_idx, hk.values);
    deg2.index_add_(0, hk.col_idx, hk.values);
  }
  for (const auto& hk : h) {
    const at::Tensor values =
        hk.values / (deg1.index_select(0, hk.row_idx) * deg2.index_select(0, hk.col_idx)).sqrt();
    hn_.push_back(graph::from_coo(n1, n2, hk.row_idx, hk.col_idx, values));
    if (edge_dropout_ > 0) perm_.push_back(transpose_positions(hn_.back()));
  }
  const auto k = static_cast<int64_t>(h.size());
  auto theta = torch::empty({k, d, d});
  for (int64_t c = 0; c < k; ++c) torch::nn::init::xavier_uniform_(theta[c]);
  theta_ = register_parameter("theta", theta);
}

ChannelFactors PriorChannelImpl::factors(const at::Tensor& u1, const at::Tensor& u2) {
  const bool drop = is_training() && edge_dropout_ > 0;
  std::vector<at::Tensor> m;
  for (size_t c = 0; c < hn_.size(); ++c) {
    match_dtype(hn_[c], u2);
    const graph::SparseMatrix hk = drop ? drop_entries(hn_[c], perm_[c], edge_dropout_) : hn_[c];
    m.push_back(u1.t().mm(graph::spmm(hk, u2)));  // U1^T (Hn_k U2): d x d
  }
  const at::Tensor s = torch::stack(m, 0).bmm(theta_).sum(0);  // K x d x d -> d x d
  return {u1.mm(s), u2};
}

// ---- X4 -----------------------------------------------------------------------------

CrossChannelImpl::CrossChannelImpl(int64_t block) : block_(block) {}

ChannelFactors CrossChannelImpl::factors(const at::Tensor& u1, const at::Tensor& u2) {
  const at::Tensor cu2 = blocked_attention(u1, u2, u2, block_);  // C U2: n1 x d
  return {u1.mm(u1.t().mm(cu2)), u2};                            // U1 (U1^T C U2), U2
}

}  // namespace symgnn::models
