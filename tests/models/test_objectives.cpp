// The training objectives (models/objectives/, the tables of symgnn/objectives.h): each
// ranking loss against plain autograd over the dense users x items scores, in every block
// size and on both forms a kind exposes (factors, a dense matrix); the composition of
// objective.h; the tables against the kinds' objectives column.
#include <gtest/gtest.h>
#include <torch/types.h>
#include <torch/utils.h>

#include <functional>
#include <set>
#include <string>
#include <tuple>

#include "models/base_model.h"
#include "models/objectives/objective.h"
#include "models/objectives/ranking_losses.h"
#include "models/objectives/score_view.h"
#include "symgnn/error.h"
#include "symgnn/model_kinds.h"
#include "symgnn/objectives.h"

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

Objective ranking(const char* loss, int64_t block = int64_t{1} << 22) {
  Objective o;
  o.objective = "ranking";
  o.loss = loss;
  o.block = block;
  return o;
}

struct Result {
  double value;
  at::Tensor ga, gb;
};

/// Loss and gradients of `o` on the problem through ranking_loss, the scores given as
/// factors (U1, U2) or as the dense matrix U1 U2^T (gradients then through the product).
Result blocked(const Problem& p, const Objective& o, bool dense) {
  const at::Tensor a = p.u1.clone().requires_grad_(), b = p.u2.clone().requires_grad_();
  // A function of the representations after them, as a model's layers would be.
  const ScoreView v = dense ? ScoreView::matrix(torch::mm(a, b.t())) : ScoreView::factors(a * 1.0, b * 1.0);
  const at::Tensor loss = ranking_loss(v, p.users, p.items, p.target, o);
  loss.backward();
  return {loss.item<double>(), a.grad(), b.grad()};
}

void expect_matches(const Result& r, const at::Tensor& loss, const at::Tensor& a, const at::Tensor& b,
                    const std::string& what) {
  EXPECT_NEAR(r.value, loss.item<double>(), 1e-10) << what;
  EXPECT_TRUE(torch::allclose(r.ga, a.grad(), 1e-9, 1e-10)) << what;
  EXPECT_TRUE(torch::allclose(r.gb, b.grad(), 1e-9, 1e-10)) << what;
}

/// A loss of E (the unit rows of `raw`) in its factored and its dense form, `loss_of(E,
/// factored)`: equal in value (1e-12) and in the gradient in raw (1e-9 relative).
void expect_forms_agree(const at::Tensor& raw,
                        const std::function<at::Tensor(const at::Tensor&, bool)>& loss_of) {
  const auto grad_of = [&](bool factored) {
    const at::Tensor a = raw.clone().requires_grad_();
    const at::Tensor loss = loss_of(a / a.norm(2, {1}, true), factored);
    loss.backward();
    return std::make_pair(loss.item<double>(), a.grad());
  };
  const auto [dense_loss, dense_grad] = grad_of(false);
  const auto [loss, grad] = grad_of(true);
  EXPECT_NEAR(loss, dense_loss, 1e-12);
  EXPECT_TRUE(torch::allclose(grad, dense_grad, 1e-9, 1e-12)) << grad << "\n" << dense_grad;
}

TEST(RankingLoss, FullSoftmaxMatchesDenseAutogradInEveryBlockSize) {
  const Problem p = problem();
  const at::Tensor a = p.u1.clone().requires_grad_(), b = p.u2.clone().requires_grad_();
  const at::Tensor logp = torch::log_softmax(torch::mm(a, b.t()), 1);  // dense, 7 x 9
  const at::Tensor loss = -logp.index({p.users, p.items}).mean();
  loss.backward();
  for (const bool dense : {false, true})
    for (const int64_t block : {1, 9, 20, 1000})
      expect_matches(blocked(p, ranking("softmax", block), dense), loss, a, b,
                     std::string(dense ? "matrix" : "factors") + ", block " + std::to_string(block));
}

TEST(RankingLoss, PositiveMinKeepsOnlyHighRatings) {
  const Problem p = problem();
  const at::Tensor keep = (p.target >= 4.0).nonzero().squeeze(1);
  const at::Tensor a = p.u1.clone().requires_grad_(), b = p.u2.clone().requires_grad_();
  const at::Tensor logp = torch::log_softmax(torch::mm(a, b.t()), 1);
  const at::Tensor loss = -logp.index({p.users.index_select(0, keep), p.items.index_select(0, keep)}).mean();
  loss.backward();
  Objective o = ranking("softmax");
  o.positive_min = 4.0;
  expect_matches(blocked(p, o, false), loss, a, b, "positive_min 4");
}

TEST(RankingLoss, SampledLossesMatchTheirDefinitionsForTheSameDraws) {
  const Problem p = problem();
  for (const bool dense : {false, true}) {
    for (const char* kind : {"sampled_softmax", "bpr"}) {
      Objective o = ranking(kind, dense ? 7 : int64_t{1} << 22);
      o.negatives = 5;
      torch::manual_seed(11);
      const Result r = blocked(p, o, dense);
      // The same draws, replayed: one shared set (sampled softmax) or one set per positive
      // (bpr; in one chunk, so drawn at once).
      torch::manual_seed(11);
      const int64_t n = p.users.size(0);
      const at::Tensor a = p.u1.clone().requires_grad_(), b = p.u2.clone().requires_grad_();
      const at::Tensor x = a.index_select(0, p.users);
      const at::Tensor pos = (x * b.index_select(0, p.items)).sum(1);
      at::Tensor loss;
      if (std::string(kind) == "bpr") {
        if (dense) continue;  // chunks of 7 / 5 pairs draw in another order
        const at::Tensor j = torch::randint(9, {n, 5}, torch::kLong);
        const at::Tensor neg = (x.unsqueeze(1) * b.index_select(0, j.view(-1)).view({n, 5, 4})).sum(2);
        loss = -torch::log_sigmoid(pos.unsqueeze(1) - neg).mean();
      } else {
        const at::Tensor j = torch::randint(9, {5}, torch::kLong);
        const at::Tensor neg = torch::mm(x, b.index_select(0, j).t());
        loss = (torch::logsumexp(torch::cat({pos.unsqueeze(1), neg}, 1), 1) - pos).mean();
      }
      loss.backward();
      expect_matches(r, loss, a, b, std::string(kind) + (dense ? ", matrix" : ", factors"));
    }
  }
}

TEST(RankingLoss, UnderCountsEachPositiveWeighsItsValue) {
  // o.weighted (data.feedback = counts): the problem's targets are the positives' weights.
  // Each loss against its definition with weighted means (softmax, bpr and sampled softmax:
  // sum_p w_p l_p / sum_p w_p) or weighted target rows (normalised_mse: X_u holds w).
  const Problem p = problem();
  const at::Tensor w = p.target;
  const double total = w.sum().item<double>();
  for (const char* kind : {"softmax", "bpr", "sampled_softmax", "normalised_mse"})
    for (const bool dense : {false, true})
      for (const int64_t block : {int64_t{9}, int64_t{1} << 22}) {
        const std::string k = kind;
        if (k == "bpr" && (dense || block != (int64_t{1} << 22))) continue;  // one chunk draws as below
        Objective o = ranking(kind, block);
        o.weighted = true;
        o.negatives = 5;
        torch::manual_seed(13);
        const Result r = blocked(p, o, dense);
        torch::manual_seed(13);
        const int64_t n = p.users.size(0);
        const at::Tensor a = p.u1.clone().requires_grad_(), b = p.u2.clone().requires_grad_();
        const at::Tensor s = torch::mm(a, b.t());
        const at::Tensor own = s.index({p.users, p.items});
        at::Tensor loss;
        if (k == "softmax") {
          loss = -(torch::log_softmax(s, 1).index({p.users, p.items}) * w).sum() / total;
        } else if (k == "bpr") {
          const at::Tensor j = torch::randint(9, {n, 5}, torch::kLong);
          const at::Tensor neg = s.index_select(0, p.users).gather(1, j);
          loss = (-torch::log_sigmoid(own.unsqueeze(1) - neg).mean(1) * w).sum() / total;
        } else if (k == "sampled_softmax") {
          const at::Tensor j = torch::randint(9, {5}, torch::kLong);
          const at::Tensor neg = s.index_select(0, p.users).index_select(1, j);
          loss = ((torch::logsumexp(torch::cat({own.unsqueeze(1), neg}, 1), 1) - own) * w).sum() / total;
        } else {
          at::Tensor x = torch::zeros({7, 9}, torch::kDouble);
          x.index_put_({p.users, p.items}, w);
          const at::Tensor active = (x.sum(1) > 0).nonzero().squeeze(1);
          const at::Tensor xs = x.index_select(0, active), ss = s.index_select(0, active);
          loss = (ss / ss.norm(2, {1}, true) - xs / xs.norm(2, {1}, true)).pow(2).sum(1).mean();
        }
        loss.backward();
        expect_matches(r, loss, a, b,
                       k + (dense ? ", matrix" : ", factors") + ", block " + std::to_string(block));
      }
  // Weights of 1 are the unweighted loss.
  Problem ones = p;
  ones.target = torch::ones_like(p.target);
  for (const char* kind : {"softmax", "normalised_mse"}) {
    Objective o = ranking(kind);
    const Result plain = blocked(ones, o, false);
    o.weighted = true;
    const Result weighed = blocked(ones, o, false);
    EXPECT_NEAR(plain.value, weighed.value, 1e-12) << kind;
  }
}

TEST(RankingLoss, NormalisedMseMatchesItsDefinitionInEveryBlockSize) {
  const Problem p = problem();
  // Dense: X_u the binary rows of the positives (user 0 rated items 1 and 4, ...), the mean
  // over the users with a positive of |S_u / |S_u| - X_u / |X_u||^2.
  const at::Tensor a = p.u1.clone().requires_grad_(), b = p.u2.clone().requires_grad_();
  at::Tensor x = torch::zeros({7, 9}, torch::kDouble);
  x.index_put_({p.users, p.items}, torch::ones({p.users.size(0)}, torch::kDouble));
  const at::Tensor active = (x.sum(1) > 0).nonzero().squeeze(1);
  const at::Tensor xs = x.index_select(0, active);
  const at::Tensor s = torch::mm(a, b.t()).index_select(0, active);
  const at::Tensor loss = (s / s.norm(2, {1}, true) - xs / xs.norm(2, {1}, true)).pow(2).sum(1).mean();
  loss.backward();
  for (const bool dense : {false, true})
    for (const int64_t block : {1, 9, 20, 1000})
      expect_matches(blocked(p, ranking("normalised_mse", block), dense), loss, a, b,
                     std::string(dense ? "matrix" : "factors") + ", block " + std::to_string(block));
}

TEST(RankingLoss, NormalisedMseOfAnAutoencoderEqualsTheLossOfItsDenseScores) {
  // The item-based ranker's form (models/elsa/elsa_model.h): S = X' E E^T - X' with E's rows
  // of unit norm and X' a subset of X (input dropout); the factored loss against the table's
  // normalised_mse over the dense S and X, value and gradient in E. User 3 keeps none of
  // their items (S_u = 0, as a dropout may leave a row).
  torch::manual_seed(5);
  const at::Tensor raw = torch::randn({9, 4}, torch::kDouble);
  const at::Tensor users = torch::tensor({0, 0, 1, 2, 2, 2, 3, 4, 4}, torch::kLong);
  const at::Tensor items = torch::tensor({1, 4, 4, 0, 2, 8, 8, 3, 7}, torch::kLong);
  const at::Tensor kept = torch::tensor({1, 1, 1, 0, 1, 1, 0, 1, 0}, torch::kBool);
  const int64_t b = 5;
  expect_forms_agree(raw, [&](const at::Tensor& e, bool factored) {
    const at::Tensor ku = users.masked_select(kept), ki = items.masked_select(kept);
    at::Tensor loss;
    if (factored) {
      const auto sums = [&](const at::Tensor& u, const at::Tensor& i) {
        return torch::zeros({b, 4}, e.options()).index_add(0, u, e.index_select(0, i));
      };
      const at::Tensor one = torch::ones({users.size(0)}, e.options());
      loss = normalised_mse_autoencoder_loss(
          sums(ku, ki), sums(users, items), e.t().mm(e),
          torch::zeros({b}, e.options()).index_add(0, ku, one.narrow(0, 0, ku.size(0))),
          torch::zeros({b}, e.options()).index_add(0, users, one));
    } else {
      at::Tensor xk = torch::zeros({b, 9}, e.options());
      xk.index_put_({ku, ki}, torch::ones({ku.size(0)}, e.options()));
      const at::Tensor s = xk.mm(e).mm(e.t()) - xk;
      Objective o = ranking("normalised_mse");
      o.positive_min = -1e300;
      loss = ranking_loss(ScoreView::matrix(s), users, items, torch::ones({users.size(0)}, e.options()), o);
    }
    return loss;
  });
}

TEST(RankingLoss, NormalisedMseOfAWeightedAutoencoderEqualsTheLossOfItsDenseScores) {
  // The item-based ranker under data.feedback = counts: X and X' hold weights w (X' within X,
  // the same weight at a kept entry), S = X' E E^T - X', and kept / count are |X'_u|^2 and
  // |X_u|^2, the sums of the squared weights; the factored loss against
  // mean_u || S_u/|S_u| - X_u/|X_u| ||^2 over the dense rows, value and gradient in E.
  torch::manual_seed(9);
  const at::Tensor raw = torch::randn({9, 4}, torch::kDouble);
  // User 3 keeps none of their items (S_u = 0, as a dropout may leave a row).
  const at::Tensor users = torch::tensor({0, 0, 1, 2, 2, 2, 3, 4, 4, 4}, torch::kLong);
  const at::Tensor items = torch::tensor({1, 4, 4, 0, 2, 8, 8, 3, 7, 5}, torch::kLong);
  const at::Tensor weight = torch::tensor({0.7, 2.3, 1.1, 0.4, 3.0, 1.6, 0.5, 2.2, 0.9, 1.3}, torch::kDouble);
  const at::Tensor kept = torch::tensor({1, 1, 1, 0, 1, 1, 0, 1, 1, 0}, torch::kBool);
  const int64_t b = 5;
  expect_forms_agree(raw, [&](const at::Tensor& e, bool factored) {
    const at::Tensor ku = users.masked_select(kept), ki = items.masked_select(kept),
                     kw = weight.masked_select(kept);
    at::Tensor loss;
    if (factored) {
      const auto sums = [&](const at::Tensor& u, const at::Tensor& i, const at::Tensor& w) {
        return torch::zeros({b, 4}, e.options()).index_add(0, u, e.index_select(0, i) * w.unsqueeze(1));
      };
      const auto squares = [&](const at::Tensor& u, const at::Tensor& w) {
        return torch::zeros({b}, e.options()).index_add(0, u, w.pow(2));
      };
      loss = normalised_mse_autoencoder_loss(sums(ku, ki, kw), sums(users, items, weight), e.t().mm(e),
                                             squares(ku, kw), squares(users, weight));
    } else {
      at::Tensor xk = torch::zeros({b, 9}, e.options()), x = torch::zeros({b, 9}, e.options());
      xk.index_put_({ku, ki}, kw);
      x.index_put_({users, items}, weight);
      const at::Tensor s = xk.mm(e).mm(e.t()) - xk;
      loss = (s / s.norm(2, {1}, true).clamp_min(1e-12) - x / x.norm(2, {1}, true)).pow(2).sum(1).mean();
    }
    return loss;
  });
}

TEST(RankingLoss, NormalisedMseFactoredWithADeepPathEqualsTheLossOfItsDenseScores) {
  // The item-based ranker with its deep path (elsa.deep_hidden): S = [z, h(z)] [E, D]^T - X',
  // z = X' E, h a layer of z; the factored loss against the dense one, value and gradient in
  // every parameter (E's raw rows, the layer, D).
  torch::manual_seed(7);
  const at::Tensor raw = torch::randn({9, 4}, torch::kDouble);
  const at::Tensor w0 = torch::randn({4, 3}, torch::kDouble), d0 = torch::randn({9, 3}, torch::kDouble);
  const at::Tensor users = torch::tensor({0, 0, 1, 2, 2, 2, 3, 4, 4}, torch::kLong);
  const at::Tensor items = torch::tensor({1, 4, 4, 0, 2, 8, 8, 3, 7}, torch::kLong);
  const at::Tensor kept = torch::tensor({1, 1, 1, 0, 1, 1, 0, 1, 0}, torch::kBool);
  const int64_t b = 5;
  const auto grads_of = [&](bool factored) {
    const at::Tensor a = raw.clone().requires_grad_(), w = w0.clone().requires_grad_(),
                     d = d0.clone().requires_grad_();
    const at::Tensor e = a / a.norm(2, {1}, true);
    const at::Tensor ku = users.masked_select(kept), ki = items.masked_select(kept);
    const auto sums = [&](const at::Tensor& rows, const at::Tensor& u, const at::Tensor& i) {
      return torch::zeros({b, rows.size(1)}, rows.options()).index_add(0, u, rows.index_select(0, i));
    };
    const at::Tensor z = sums(e, ku, ki);
    const at::Tensor p = torch::cat({z, torch::relu(z.mm(w))}, 1);
    const at::Tensor f = torch::cat({e, d}, 1);
    at::Tensor loss;
    if (factored) {
      const at::Tensor one = torch::ones({users.size(0)}, e.options());
      loss = normalised_mse_factored_loss(
          p, sums(f, ku, ki), sums(f, users, items), f.t().mm(f),
          torch::zeros({b}, e.options()).index_add(0, ku, one.narrow(0, 0, ku.size(0))),
          torch::zeros({b}, e.options()).index_add(0, users, one));
    } else {
      at::Tensor xk = torch::zeros({b, 9}, e.options());
      xk.index_put_({ku, ki}, torch::ones({ku.size(0)}, e.options()));
      Objective o = ranking("normalised_mse");
      o.positive_min = -1e300;
      loss = ranking_loss(ScoreView::matrix(p.mm(f.t()) - xk), users, items,
                          torch::ones({users.size(0)}, e.options()), o);
    }
    loss.backward();
    return std::make_tuple(loss.item<double>(), a.grad(), w.grad(), d.grad());
  };
  const auto [dense_loss, da, dw, dd] = grads_of(false);
  const auto [loss, ga, gw, gd] = grads_of(true);
  EXPECT_NEAR(loss, dense_loss, 1e-12);
  EXPECT_TRUE(torch::allclose(ga, da, 1e-9, 1e-12)) << ga << "\n" << da;
  EXPECT_TRUE(torch::allclose(gw, dw, 1e-9, 1e-12)) << gw << "\n" << dw;
  EXPECT_TRUE(torch::allclose(gd, dd, 1e-9, 1e-12)) << gd << "\n" << dd;
}

TEST(RankingLoss, NoPositiveGivesAZeroThatReachesEveryFactor) {
  const Problem p = problem();
  for (const RankingLossRow& row : kRankingLosses) {
    Objective o = ranking(row.name);
    o.positive_min = 100;
    const Result r = blocked(p, o, false);
    EXPECT_EQ(r.value, 0.0) << row.name;
    ASSERT_TRUE(r.ga.defined() && r.gb.defined()) << row.name;  // zero, but defined
    EXPECT_EQ(r.ga.abs().sum().item<double>(), 0.0) << row.name;
  }
}

TEST(RankingLoss, AnUnknownLossIsAConfigError) {
  const Problem p = problem();
  EXPECT_THROW(blocked(p, ranking("hinge"), false), ConfigError);
}

TEST(ObjectiveTables, EveryKindsObjectiveIsARowAndEveryRowHasALoss) {
  for (const ModelKind& kind : kModelKinds) {
    if (kind.fit != FitMethod::trained) continue;
    std::string list = kind.objectives;
    for (size_t at = 0; at <= list.size();) {
      const size_t bar = std::min(list.find('|', at), list.size());
      EXPECT_NE(find_objective(list.substr(at, bar - at)), nullptr) << kind.name << ": " << list;
      at = bar + 1;
    }
  }
  // Every ranking loss of the table resolves to its function: a finite loss on the problem.
  const Problem p = problem();
  for (const RankingLossRow& row : kRankingLosses)
    EXPECT_TRUE(std::isfinite(blocked(p, ranking(row.name), false).value)) << row.name;
  EXPECT_TRUE(objective_rates("rating") && !objective_ranks("rating"));
  EXPECT_TRUE(!objective_rates("ranking") && objective_ranks("ranking"));
  EXPECT_TRUE(objective_rates("joint") && objective_ranks("joint"));
}

/// A small context for the base model: 6 users, 5 items, identity graphs, two levels.
ModelContext small_context() {
  ModelContext ctx;
  ctx.n1 = 6;
  ctx.n2 = 5;
  ctx.at1 = graph::identity(6);
  ctx.at2 = graph::identity(5);
  ctx.levels = {1.0f, 5.0f};
  ctx.global_mean = 3.0f;
  ctx.rating_std = 2.0f;
  ctx.rating_min = 1.0f;
  ctx.rating_max = 5.0f;
  return ctx;
}

TEST(Objective, ComposesTheKindsRatingLossAndTheWeightedRankingLoss) {
  const at::Tensor users = torch::tensor({0, 1, 2, 3, 4, 5, 0}, torch::kLong);
  const at::Tensor items = torch::tensor({0, 1, 2, 3, 4, 0, 2}, torch::kLong);
  const at::Tensor target = torch::tensor({5.0f, 1.0f, 5.0f, 1.0f, 5.0f, 1.0f, 5.0f});
  BaseConfig bc;
  bc.hidden = 4;
  bc.variant = "G";
  for (const char* name : {"rating", "ranking", "joint"}) {
    TrainConfig tc;
    tc.objective = name;
    tc.ranking_weight = 0.5;
    const Objective o(tc);
    torch::manual_seed(5);
    BaseModel m(bc, small_context(), o);
    m.train();
    at::Tensor pred;
    const at::Tensor total = objective_loss(m, o, users, items, target, &pred);
    torch::manual_seed(5);
    BaseModel twin(bc, small_context(), o);
    twin.train();
    const at::Tensor rating = twin.training_loss(users, items, target, nullptr);
    double expected = rating.item<double>();
    if (o.ranks())
      expected += (o.rates() ? 0.5 : 1.0) *
                  ranking_loss(twin.ranking_scores(), users, items, target, o).item<double>();
    EXPECT_NEAR(total.item<double>(), expected, 1e-6) << name;
    EXPECT_EQ(pred.size(0), 7) << name;
    // The ranking loss trains the association: its gradient reaches the fusion weights.
    total.backward();
    const at::Tensor g = m.named_parameters()["w_fuse"].grad();
    ASSERT_TRUE(g.defined()) << name;
    EXPECT_GT(g.abs().sum().item<double>(), 0.0) << name;
    EXPECT_EQ(m.ranks_by_rating(), !o.ranks()) << name;
    // Ratings: the decoder's (rating, joint) or the head of biases, mean + std (b1 + b2)
    // (ranking: 3 with zero biases).
    m.eval();
    const at::Tensor r = m.forward(users, items);
    if (!o.rates()) {
      EXPECT_TRUE(torch::allclose(r, torch::full({7}, 3.0f))) << name;
    }
    EXPECT_EQ(m.score_items(torch::tensor({0, 1}, torch::kLong), 5).sizes(), (at::IntArrayRef{2, 5})) << name;
  }
}

}  // namespace
}  // namespace symgnn::models
