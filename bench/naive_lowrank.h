// The low-rank G model (hidden d, L CGE layers, the paper's prior aggregation, dot
// decoder, MSE) written as a PyTorch user would write it: torch's own sparse COO
// products for the graphs and the per-class priors, index_select gathers for the pairs,
// autograd for everything. bench_scale.cpp times it beside symgnn's LowRankModel on the
// same context and the same optimiser: the "naive PyTorch" comparison of docs/scale.md.
// Same parameters and the same arithmetic as models/lowrank_model.cpp with
// lowrank.variant = G (no side features); only the kernels differ.
#pragma once

#include <torch/torch.h>

#include <vector>

#include "symgnn/graph.h"
#include "symgnn/model.h"

namespace bench {

/// A SparseMatrix as a torch sparse COO tensor (what torch.sparse.mm takes).
inline at::Tensor coo_of(const symgnn::graph::SparseMatrix& m, const at::TensorOptions& on) {
  if (m.identity) return torch::eye(m.rows, on).to_sparse();
  return torch::sparse_coo_tensor(torch::stack({m.row_idx, m.col_idx}), m.values, {m.rows, m.cols})
      .coalesce();
}

class NaiveLowRankG : public torch::nn::Module {
 public:
  NaiveLowRankG(const symgnn::models::ModelContext& ctx, int64_t d, int64_t layers) {
    const auto k = static_cast<int64_t>(ctx.h.size());
    const auto on = ctx.train_values.options();  // the context's device; the caller moves the parameters
    for (int side = 0; side < 2; ++side) {
      const int64_t n = side == 0 ? ctx.n1 : ctx.n2;
      const std::string s = std::to_string(side + 1);
      Side& sd = sides_[side];
      sd.embedding = register_parameter("embedding" + s, torch::randn({n, d}) / std::sqrt(double(d)));
      sd.linear = register_module("linear" + s, torch::nn::Linear(d, d));
      sd.s_logit = register_parameter("s_logit" + s, torch::zeros({n}));
      for (int64_t l = 0; l < layers; ++l)
        sd.w.push_back(register_parameter("w" + s + "_" + std::to_string(l),
                                          torch::nn::init::xavier_uniform_(torch::empty({d, d}))));
      sd.theta = register_parameter("theta" + s, torch::randn({k, d, d}) / std::sqrt(double(d)));
      sd.mlp = register_module("mlp" + s, torch::nn::Linear(k * d, d));
      sd.at = coo_of(side == 0 ? ctx.at1 : ctx.at2, on);
      // norm(H_k) = D^-1 H_k, D the node's rating count over all classes ("left").
      const auto& h = side == 0 ? ctx.h : ctx.ht;
      at::Tensor deg = torch::zeros({n}, on);
      for (const auto& hk : h) deg.index_add_(0, hk.row_idx, hk.values);
      for (const auto& hk : h) {
        const at::Tensor v = hk.values / deg.index_select(0, hk.row_idx);
        sd.hn.push_back(
            torch::sparse_coo_tensor(torch::stack({hk.row_idx, hk.col_idx}), v, {hk.rows, hk.cols})
                .coalesce());
      }
    }
  }

  at::Tensor loss(const at::Tensor& users, const at::Tensor& items, const at::Tensor& target) {
    const at::Tensor uh1 = sides_[0].linear->forward(sides_[0].embedding);
    const at::Tensor uh2 = sides_[1].linear->forward(sides_[1].embedding);
    const at::Tensor u1 = uh1 + cge(sides_[0], uh1) + prior(sides_[0], uh2);
    const at::Tensor u2 = uh2 + cge(sides_[1], uh2) + prior(sides_[1], uh1);
    const at::Tensor pred = (u1.index_select(0, users) * u2.index_select(0, items)).sum(1);
    return torch::mse_loss(pred, target);
  }

 private:
  struct Side {
    at::Tensor embedding, s_logit, theta, at;
    torch::nn::Linear linear{nullptr}, mlp{nullptr};
    std::vector<at::Tensor> w, hn;
  };

  static at::Tensor cge(Side& s, const at::Tensor& uh) {
    const at::Tensor g = torch::sigmoid(s.s_logit).unsqueeze(1);
    at::Tensor u = uh;
    for (const auto& w : s.w) {
      const at::Tensor y = u.mm(w);
      u = torch::relu(g * y + (1 - g) * torch::mm(s.at, y));
    }
    return u;
  }

  static at::Tensor prior(Side& s, const at::Tensor& uh_other) {
    std::vector<at::Tensor> v;
    for (size_t k = 0; k < s.hn.size(); ++k)
      v.push_back(torch::relu(torch::mm(s.hn[k], uh_other).mm(s.theta[static_cast<int64_t>(k)])));
    return torch::relu(s.mlp->forward(torch::cat(v, 1)));
  }

  Side sides_[2];
};

}  // namespace bench
