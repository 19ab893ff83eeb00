// A combination's rating split into its parts (combined_model.h, score_terms()): what
// `symgnn explain --target rating` shows where train.auto kept a neighbour member, each
// neighbour's rating one part, so that a part reads "'ann', whom you follow, rated it (5)".
#include <torch/types.h>

#include "models/baseline/combined_model.h"
#include "util/text.h"

namespace symgnn::models {

ScoreTerms CombinedModel::score_terms(int64_t user, int64_t item, const Dataset& ds) {
  (void)ds;  // the members read the model's own ratings and graphs (its context)
  torch::NoGradGuard no_grad;
  const at::Tensor u = torch::full({1}, user, torch::kLong).to(weights_.device());
  const at::Tensor i = torch::full({1}, item, torch::kLong).to(weights_.device());
  const at::Tensor w = weights_.detach().to(at::kCPU, at::kDouble);
  const double c = w[0].item<double>(), a = w[1].item<double>(), b = w[2].item<double>();
  const double f = inner_->forward(u, i).to(at::kCPU, at::kDouble).item<double>();
  const double base = baseline_->forward(u, i).to(at::kCPU, at::kDouble).item<double>();
  const NeighbourWeights nw = neighbours();
  const auto idx = index();
  const NeighbourResiduals& r = idx->residuals;
  ScoreTerms out;
  out.method =
      "train.auto's combination: the bias baseline (mean + user bias + item bias), the network's "
      "correction w x (network - baseline), and each neighbour member's shrunk mean of the bias "
      "baseline's residuals, split by whose rating it is (models/baseline/neighbour_residuals.h)";
  // c + a f + b base with b = 1 - a (members mode): the baseline, then a (f - base).
  out.terms.push_back(
      {-1, -1, c + (a + b) * base, "the bias baseline: the mean rating, the user's and the item's biases"});
  if (a != 0)
    out.terms.push_back({-1, -1, a * (f - base), "the network's correction (weight " + fixed(a, 2) + ")"});
  // Each member's parts: weight x residual (x similarity) / (lambda + count (or similarities)).
  if (nw.user != 0) {
    const NeighbourSum s = r.user_sum(user, item);
    for (const int64_t v : r.user_neighbours(user))
      if (const double* e = r.residual(v, item))
        out.terms.push_back({v, item, nw.user * *e / (nw.user_shrinkage + s.count), ""});
  }
  if (nw.item != 0) {
    const NeighbourSum s = r.item_sum(user, item);
    for (const int64_t j : r.item_neighbours(item))
      if (const double* e = r.residual(user, j))
        out.terms.push_back({user, j, nw.item * *e / (nw.item_shrinkage + s.count), ""});
  }
  if (nw.knn != 0 && r.has_similar_items()) {
    const NeighbourSum s = r.knn_sum(user, item);
    const SparseRows& near = r.similar_items();
    if (item < near.rows())
      for (int64_t k = near.ptr[static_cast<size_t>(item)]; k < near.ptr[static_cast<size_t>(item) + 1]; ++k)
        if (const double* e = r.residual(user, near.idx[static_cast<size_t>(k)]))
          out.terms.push_back(
              {user, near.idx[static_cast<size_t>(k)],
               nw.knn * near.value[static_cast<size_t>(k)] * *e / (nw.knn_shrinkage + s.count),
               kSimilarItemTerm});
  }
  out.score = forward(u, i).to(at::kCPU, at::kDouble).item<double>();
  return out;
}

}  // namespace symgnn::models
