// EASE's two forms (models/closed_form/ease_model.h): where users are fewer than items, P is
// taken through Woodbury's identity and the candidates are scored without forming B. Both
// are checked against P = (X^T X + lambda I)^-1 computed here by a general solve.
#include <gtest/gtest.h>
#include <torch/types.h>

#include <random>

#include "lowrank_test_util.h"
#include "models/closed_form/ease_model.h"
#include "symgnn/config.h"

namespace sm = symgnn::models;

namespace {

/// The protected forms of the kind, opened for the test.
class OpenEase : public sm::EaseModel {
 public:
  using sm::EaseModel::EaseModel;
  using sm::EaseModel::interaction_scores;
  using sm::EaseModel::item_weights;
};

/// A random binary n1 x n2 interaction matrix (float64) with about `density` ones, every user
/// with at least one item, some items with none.
at::Tensor random_interactions(int64_t n1, int64_t n2, double density, unsigned seed) {
  std::mt19937 gen(seed);
  std::bernoulli_distribution one(density);
  at::Tensor x = torch::zeros({n1, n2}, torch::kDouble);
  for (int64_t u = 0; u < n1; ++u) {
    x[u][static_cast<int64_t>(gen() % static_cast<unsigned>(n2 - 2))] = 1.0;  // the last two stay unrated
    for (int64_t j = 0; j < n2 - 2; ++j)
      if (one(gen)) x[u][j] = 1.0;
  }
  return x;
}

/// B = I - P diag(1 / diag P) with P from a general solve of X^T X + lambda I.
at::Tensor brute_force_b(const at::Tensor& x, double lambda) {
  at::Tensor g = torch::mm(x.t(), x);
  g.diagonal().add_(lambda);
  const at::Tensor p = torch::linalg_solve(g, torch::eye(x.size(1), torch::kDouble));
  at::Tensor b = -p / p.diagonal().unsqueeze(0);
  b.diagonal().zero_();
  return b;
}

}  // namespace

TEST(EaseForms, BothFormsGiveTheClosedFormWhicheverSideIsLarger) {
  // Tolerance 1e-9: float64 throughout, entries of B below 1 in magnitude.
  for (const auto& [n1, n2] : {std::pair<int64_t, int64_t>{12, 40}, {40, 12}, {20, 20}}) {
    const sm::ModelContext ctx = sm::make_context(symgnn::testing::tiny_dataset(n1, n2, 30, false, 3));
    symgnn::EaseConfig cfg;
    const OpenEase ease(cfg, ctx);
    const at::Tensor x = random_interactions(n1, n2, 0.2, 7);
    for (const double lambda : {0.5, 10.0, 500.0}) {
      const at::Tensor expected = brute_force_b(x, lambda);
      const at::Tensor b = ease.item_weights(x, lambda);
      EXPECT_LT((b - expected).abs().max().item<double>(), 1e-9)
          << n1 << " x " << n2 << ", lambda " << lambda;
      EXPECT_EQ(b.diagonal().abs().max().item<double>(), 0.0);
      const at::Tensor scores = ease.interaction_scores(x, lambda);
      EXPECT_LT((scores - torch::mm(x, expected)).abs().max().item<double>(), 1e-9)
          << n1 << " x " << n2 << ", lambda " << lambda;
    }
  }
}
