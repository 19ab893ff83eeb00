#include "models/closed_form/sylvester_binary_model.h"

#include <ATen/ATen.h>

#include "models/sylvester/completion.h"
#include "models/sylvester/sylvester.h"

namespace symgnn::models {

SylvesterBinaryModel::SylvesterBinaryModel(const SylvesterConfig& cfg, const ModelContext& ctx)
    : InteractionModel(ctx), cfg_(cfg), alphas_(sylvester::parse_alphas(cfg.alphas)) {}

void SylvesterBinaryModel::prepare(const Dataset& ds, const at::Device& device) {
  at1_ = graph::normalized_adjacency(ds.users).to(device);
  at2_ = graph::normalized_adjacency(ds.items).to(device);
}

at::Tensor SylvesterBinaryModel::interaction_scores(const at::Tensor& x, double alpha) const {
  sylvester::SolverOptions opts;
  opts.alpha = alpha;
  opts.tol = cfg_.tol;
  opts.max_iter = cfg_.max_iter;
  return sylvester::solve(cfg_.solver, at1_, at2_, x, opts).x;
}

/// The `sylvester_binary` row of symgnn/model_kinds.h (models/registry.cpp).
std::shared_ptr<RatingModel> make_sylvester_binary_model(const RunConfig& cfg, const ModelContext& ctx) {
  return std::make_shared<SylvesterBinaryModel>(cfg.sylvester, ctx);
}

}  // namespace symgnn::models
