// The ranking objectives (models/ranking/ranking_loss.h) against plain autograd over the
// dense users x items scores, and the blocks' answer against one block's.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include "models/ranking/ranking_loss.h"

namespace symgnn::models {
namespace {

struct Problem {
  at::Tensor u1, u2, users, items, target;
};

Problem problem() {
  torch::manual_seed(3);
  Problem p;
  p.u1 = torch::randn({7, 4}, torch::kDouble);
  p.u2 = torch::randn({9, 4}, torch::kDouble);
  p.users = torch::tensor({0, 0, 1, 3, 3, 3, 6, 5}, torch::kLong);
  p.items = torch::tensor({1, 4, 4, 0, 2, 8, 8, 3}, torch::kLong);
  p.target = torch::tensor({5.0, 2.0, 4.0, 3.0, 5.0, 1.0, 4.0, 4.0}, torch::kDouble);
  return p;
}

/// Loss and gradients of `o` on the problem, through ranking_loss.
std::tuple<double, at::Tensor, at::Tensor> blocked(const Problem& p, const Objective& o) {
  const at::Tensor a = p.u1.clone().requires_grad_(), b = p.u2.clone().requires_grad_();
  // A function of the representations after them, as a model's layers would be.
  const at::Tensor loss = ranking_loss(a * 1.0, b * 1.0, p.users, p.items, p.target, o);
  loss.backward();
  return {loss.item<double>(), a.grad(), b.grad()};
}

TEST(RankingLoss, FullSoftmaxMatchesDenseAutogradInEveryBlockSize) {
  const Problem p = problem();
  const at::Tensor a = p.u1.clone().requires_grad_(), b = p.u2.clone().requires_grad_();
  const at::Tensor logp = torch::log_softmax(torch::mm(a, b.t()), 1);  // dense, 7 x 9
  const at::Tensor loss = -logp.index({p.users, p.items}).mean();
  loss.backward();
  for (const int64_t block : {1, 9, 20, 1000}) {
    Objective o;
    o.objective = "ranking";
    o.block = block;
    const auto [value, ga, gb] = blocked(p, o);
    EXPECT_NEAR(value, loss.item<double>(), 1e-10) << "block " << block;
    EXPECT_TRUE(torch::allclose(ga, a.grad(), 1e-9, 1e-10)) << "block " << block;
    EXPECT_TRUE(torch::allclose(gb, b.grad(), 1e-9, 1e-10)) << "block " << block;
  }
}

TEST(RankingLoss, PositiveMinKeepsOnlyHighRatings) {
  const Problem p = problem();
  const at::Tensor keep = (p.target >= 4.0).nonzero().squeeze(1);
  const at::Tensor a = p.u1.clone().requires_grad_(), b = p.u2.clone().requires_grad_();
  const at::Tensor logp = torch::log_softmax(torch::mm(a, b.t()), 1);
  const at::Tensor loss = -logp.index({p.users.index_select(0, keep), p.items.index_select(0, keep)}).mean();
  loss.backward();
  Objective o;
  o.objective = "ranking";
  o.positive_min = 4.0;
  const auto [value, ga, gb] = blocked(p, o);
  EXPECT_NEAR(value, loss.item<double>(), 1e-10);
  EXPECT_TRUE(torch::allclose(ga, a.grad(), 1e-9, 1e-10));
  EXPECT_TRUE(torch::allclose(gb, b.grad(), 1e-9, 1e-10));
}

TEST(RankingLoss, SampledLossesMatchTheirDefinitionsForTheSameDraws) {
  const Problem p = problem();
  for (const char* kind : {"sampled_softmax", "bpr"}) {
    Objective o;
    o.objective = "ranking";
    o.loss = kind;
    o.negatives = 5;
    torch::manual_seed(11);
    const auto [value, ga, gb] = blocked(p, o);
    // The same draws, replayed: one shared set (sampled softmax) or one set per positive (bpr).
    torch::manual_seed(11);
    const int64_t n = p.users.size(0);
    const at::Tensor a = p.u1.clone().requires_grad_(), b = p.u2.clone().requires_grad_();
    const at::Tensor x = a.index_select(0, p.users);
    const at::Tensor pos = (x * b.index_select(0, p.items)).sum(1);
    at::Tensor loss;
    if (std::string(kind) == "bpr") {
      const at::Tensor j = torch::randint(9, {n, 5}, torch::kLong);
      const at::Tensor neg = (x.unsqueeze(1) * b.index_select(0, j.view(-1)).view({n, 5, 4})).sum(2);
      loss = -torch::log_sigmoid(pos.unsqueeze(1) - neg).mean();
    } else {
      const at::Tensor j = torch::randint(9, {5}, torch::kLong);
      const at::Tensor neg = torch::mm(x, b.index_select(0, j).t());
      loss = (torch::logsumexp(torch::cat({pos.unsqueeze(1), neg}, 1), 1) - pos).mean();
    }
    loss.backward();
    EXPECT_NEAR(value, loss.item<double>(), 1e-10) << kind;
    EXPECT_TRUE(torch::allclose(ga, a.grad(), 1e-9, 1e-10)) << kind;
    EXPECT_TRUE(torch::allclose(gb, b.grad(), 1e-9, 1e-10)) << kind;
  }
}

}  // namespace
}  // namespace symgnn::models
