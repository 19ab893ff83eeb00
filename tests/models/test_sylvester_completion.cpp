// The "Sylv." completion baseline (src/models/sylvester/completion.cpp) on a small
// community-structured rating matrix built by hand.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "models/sylvester/completion.h"
#include "symgnn/error.h"

namespace syl = symgnn::models::sylvester;
using symgnn::graph::SparseMatrix;

namespace {

/// Two communities per side; users like items of their own community (5) and dislike the
/// others (1), plus noise. The graphs link nodes within a community.
struct Toy {
  symgnn::Dataset ds;
  SparseMatrix at1, at2;
};

SparseMatrix community_graph(int64_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  at::Tensor a = at::zeros({n, n}, at::kDouble);
  auto acc = a.accessor<double, 2>();
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = i + 1; j < n; ++j)
      if (i % 2 == j % 2 && u(rng) < 0.3) acc[i][j] = acc[j][i] = 1.0;
  const at::Tensor d = a.sum(1);
  const at::Tensor dinv = at::where(d > 0, d.rsqrt(), at::zeros_like(d));
  const at::Tensor at_dense = (dinv.unsqueeze(1) * a * dinv.unsqueeze(0)).to(at::kFloat);
  const at::Tensor nz = at_dense.nonzero();
  const at::Tensor r = nz.select(1, 0).contiguous(), c = nz.select(1, 1).contiguous();
  return symgnn::graph::from_coo(n, n, r, c, at_dense.index({r, c}));
}

Toy make_toy() {
  Toy t;
  const int64_t n1 = 40, n2 = 30;
  t.ds.name = "toy";
  t.ds.users.count = n1;
  t.ds.items.count = n2;
  t.ds.rating_min = 1.0f;
  t.ds.rating_max = 5.0f;
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::normal_distribution<double> noise(0.0, 0.3);
  for (int64_t i = 0; i < n1; ++i)
    for (int64_t j = 0; j < n2; ++j) {
      const double p = u(rng);
      if (p > 0.3) continue;
      const float r = static_cast<float>(std::clamp((i % 2 == j % 2 ? 5.0 : 1.0) + noise(rng), 1.0, 5.0));
      (p < 0.2 ? t.ds.train : p < 0.25 ? t.ds.validation : t.ds.test).add(i, j, r);
    }
  t.at1 = community_graph(n1, 5);
  t.at2 = community_graph(n2, 6);
  return t;
}

}  // namespace

TEST(SylvesterCompletion, PriorMatricesHoldCentredRatingsAndTheMask) {
  symgnn::RatingList r;
  r.add(0, 1, 4.0f);
  r.add(2, 0, 2.0f);
  const auto [hr, hm] = syl::prior_matrices(3, 2, {&r}, 3.0, at::kCPU);
  EXPECT_EQ(hr.scalar_type(), at::kDouble);
  EXPECT_DOUBLE_EQ(hr[0][1].item<double>(), 1.0);
  EXPECT_DOUBLE_EQ(hr[2][0].item<double>(), -1.0);
  EXPECT_DOUBLE_EQ(hm.sum().item<double>(), 2.0);
  EXPECT_DOUBLE_EQ(hr.abs().sum().item<double>(), 2.0);
}

TEST(SylvesterCompletion, PredictionIsAWeightedMeanClippedToTheRatingRange) {
  const at::Tensor xr = at::tensor({10.0, -10.0, 0.0, 0.5}, at::kDouble).reshape({2, 2});
  const at::Tensor xm = at::tensor({1.0, 1.0, 0.0, 0.5}, at::kDouble).reshape({2, 2});
  symgnn::RatingList at_entries;
  at_entries.add(0, 0, 0.f);
  at_entries.add(0, 1, 0.f);
  at_entries.add(1, 0, 0.f);
  at_entries.add(1, 1, 0.f);
  const at::Tensor p = syl::predict_entries(xr, xm, at_entries, 3.0, 0.5, 0.0, 1.0, 5.0);
  EXPECT_DOUBLE_EQ(p[0].item<double>(), 5.0);  // clipped
  EXPECT_DOUBLE_EQ(p[1].item<double>(), 1.0);  // clipped
  EXPECT_DOUBLE_EQ(p[2].item<double>(), 3.0);  // unreachable: the mean, never NaN
  EXPECT_DOUBLE_EQ(p[3].item<double>(), 4.0);  // 3 + 0.5 / 0.5
  // lambda pseudo-ratings at the mean: 3 + 0.5 / (0.5 + 1 * (1 - 0.5)) = 3.5
  EXPECT_DOUBLE_EQ(syl::predict_entries(xr, xm, at_entries, 3.0, 0.5, 1.0, 1.0, 5.0)[3].item<double>(), 3.5);
}

TEST(SylvesterCompletion, BeatsTheMeanRatingOnCommunityData) {
  Toy t = make_toy();
  syl::CompletionOptions opts;
  opts.alphas = {0.3, 0.8, 0.95};
  for (const std::string solver : {"cg", "exact"}) {
    opts.solver = solver;
    const auto r = syl::fit_completion(t.ds, t.at1, t.at2, opts, at::kCPU);
    EXPECT_LT(r.val_error, 0.5 * r.mean_val_error) << solver;
    EXPECT_LT(r.test_error, 0.5 * r.mean_test_error) << solver;
    EXPECT_EQ(r.table.size(), opts.alphas.size() * opts.shrinkage.size());
    EXPECT_EQ(r.centred_table.size(), opts.alphas.size());
    EXPECT_EQ(r.solves.size(), 2 * opts.alphas.size() + 2);  // Xr and Xm per a, plus the refit
    for (const auto& s : r.solves) EXPECT_TRUE(s.converged) << s.prior << " " << s.alpha;
    double best = 1e9;
    for (const auto& c : r.table) best = std::min(best, c.val_error);
    EXPECT_DOUBLE_EQ(best, r.val_error);  // the chosen candidate is the validation minimum
  }
}

TEST(SylvesterCompletion, GraphsMatter) {
  // With identity graphs every unobserved entry is unreachable: the mean rating.
  Toy t = make_toy();
  syl::CompletionOptions opts;
  opts.alphas = {0.8};
  opts.refit = false;
  const auto with_graphs = syl::fit_completion(t.ds, t.at1, t.at2, opts, at::kCPU);
  const auto without =
      syl::fit_completion(t.ds, symgnn::graph::identity(40), symgnn::graph::identity(30), opts, at::kCPU);
  EXPECT_NEAR(without.val_error, without.mean_val_error, 1e-9);
  EXPECT_LT(with_graphs.val_error, without.val_error);
}

TEST(SylvesterCompletion, RejectsBadInput) {
  Toy t = make_toy();
  syl::CompletionOptions opts;
  symgnn::Dataset no_val = t.ds;
  no_val.validation = {};
  EXPECT_THROW(syl::fit_completion(no_val, t.at1, t.at2, opts, at::kCPU), symgnn::ConfigError);
  EXPECT_THROW(syl::parse_alphas("0.5,1.0"), symgnn::ConfigError);
  EXPECT_THROW(syl::parse_alphas("0.5,x"), symgnn::ConfigError);
  EXPECT_THROW(syl::parse_alphas(""), symgnn::ConfigError);
  EXPECT_EQ(syl::parse_alphas(" 0.1, 0.99 "), (std::vector<double>{0.1, 0.99}));
}
