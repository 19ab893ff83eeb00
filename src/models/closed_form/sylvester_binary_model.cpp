#include "models/closed_form/sylvester_binary_model.h"

#include <ATen/ATen.h>

#include "models/sylvester/completion.h"
#include "models/sylvester/path_weights.h"
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

ScoreTerms SylvesterBinaryModel::score_terms(int64_t user, int64_t item, const Dataset& ds) {
  const double alpha = fitted_setting();
  // H is the binary interactions of the final fit, training and validation together
  // (interaction_model.h); a pair rated in both counts once, as X = 1 there.
  const RatingList h = distinct_ratings(ds);
  const std::vector<double> g =
      sylvester::path_weights(graph::normalized_adjacency(ds.users), graph::normalized_adjacency(ds.items),
                              alpha, user, item, h.user, h.item);
  ScoreTerms out;
  out.method =
      "sylvester_binary: X_uj = sum over the interactions (v, i) of G_vi = (1-a) sum_k a^k (At1^k)_uv "
      "(At2^k)_ji, a = " +
      std::to_string(alpha);
  for (size_t e = 0; e < g.size(); ++e)
    if (g[e] != 0) out.terms.push_back({h.user[e], h.item[e], g[e], ""});
  at::NoGradGuard no_grad;
  out.score = score_items(at::full({1}, user, at::kLong), ds.items.count)[0][item].item<double>();
  return out;
}

/// The `sylvester_binary` row of symgnn/model_kinds.h (models/registry.cpp).
std::shared_ptr<RatingModel> make_sylvester_binary_model(const RunConfig& cfg, const ModelContext& ctx) {
  return std::make_shared<SylvesterBinaryModel>(cfg.sylvester, ctx);
}

}  // namespace symgnn::models
