// The GC-MC-style prior-association module (models/layers/prior_encoder.h) against dense
// references, its gradients, its node dropout, and the low-rank model built on it
// (lowrank.prior = encoder, lowrank.id_embedding = false).
#include <gtest/gtest.h>
#include <torch/optim/adam.h>
#include <torch/types.h>
#include <torch/utils.h>

#include "lowrank_test_util.h"
#include "models/layers/prior_encoder.h"
#include "models/lowrank_model.h"
#include "symgnn/error.h"

using namespace symgnn;
using namespace symgnn::models;

namespace {

LowRankConfig encoder_config(int64_t width, int64_t hidden, int64_t side_width) {
  LowRankConfig cfg;
  cfg.prior = "encoder";
  cfg.id_embedding = false;
  cfg.variant = "G";
  cfg.hidden = hidden;
  cfg.prior_width = width;
  cfg.prior_side_width = side_width;
  cfg.prior_node_dropout = 0.0;
  cfg.prior_dense_dropout = 0.0;
  return cfg;
}

/// Dense class-k matrices A_k (n1 x n2, 0/1) of a context.
std::vector<at::Tensor> dense_classes(const ModelContext& ctx) {
  std::vector<at::Tensor> a;
  for (size_t k = 0; k < ctx.levels.size(); ++k) {
    at::Tensor m = torch::zeros({ctx.n1, ctx.n2}, torch::kDouble);
    for (int64_t e = 0; e < ctx.train_values.size(0); ++e)
      if (std::fabs(ctx.train_values[e].item<float>() - ctx.levels[k]) < 1e-4)
        m[ctx.train_users[e].item<int64_t>()][ctx.train_items[e].item<int64_t>()] = 1.0;
    a.push_back(m);
  }
  return a;
}

/// relu([D^-1 A_1 E[:, S_1] || ...]) with D the row sums of sum_k A_k (concat stacking).
at::Tensor dense_hidden(const std::vector<at::Tensor>& a, const at::Tensor& e) {
  const auto k = static_cast<int64_t>(a.size());
  at::Tensor deg = torch::zeros({a[0].size(0)}, torch::kDouble);
  for (const auto& m : a) deg += m.sum(1);
  const at::Tensor inv = torch::where(deg > 0, 1.0 / deg, torch::zeros_like(deg)).unsqueeze(1);
  const int64_t block = e.size(1) / k;
  std::vector<at::Tensor> parts;
  for (int64_t c = 0; c < k; ++c)
    parts.push_back(inv * a[static_cast<size_t>(c)].mm(e.narrow(1, c * block, block)));
  return torch::relu(torch::cat(parts, 1));
}

std::vector<at::Tensor> transposed(const std::vector<at::Tensor>& a) {
  std::vector<at::Tensor> t;
  for (const auto& m : a) t.push_back(m.t());
  return t;
}

}  // namespace

TEST(PriorEncoder, MatchesTheDenseAggregationWithASharedDenseLayer) {
  const ModelContext ctx = make_context(symgnn::testing::tiny_dataset(9, 7, 30, false, 3));
  torch::manual_seed(2);
  PriorEncoder enc(encoder_config(10, 4, 0), ctx.h, ctx.ht, at::Tensor(), at::Tensor());
  enc->to(torch::kDouble);
  enc->eval();
  const auto p = enc->named_parameters();
  ASSERT_TRUE(p.contains("dense.weight"));  // one dense layer for both sides without features
  const auto a = dense_classes(ctx);
  const at::Tensor w = p["dense.weight"];
  const at::Tensor u1 = dense_hidden(a, p["e2"]).mm(w.t()),
                   u2 = dense_hidden(transposed(a), p["e1"]).mm(w.t());
  torch::NoGradGuard g;
  const auto [o1, o2] = enc->forward();
  EXPECT_TRUE(torch::allclose(o1, u1, 1e-6, 1e-9));
  EXPECT_TRUE(torch::allclose(o2, u2, 1e-6, 1e-9));
}

TEST(PriorEncoder, JoinsRowNormalisedSideFeaturesThroughReluThenBias) {
  const Dataset ds = symgnn::testing::tiny_dataset(9, 7, 30, true, 4);
  const ModelContext ctx = make_context(ds);
  torch::manual_seed(3);
  PriorEncoder enc(encoder_config(10, 4, 3), ctx.h, ctx.ht, ctx.f1, ctx.f2);
  enc->to(torch::kDouble);
  enc->eval();
  const auto p = enc->named_parameters();
  const auto a = dense_classes(ctx);
  auto side = [&](const at::Tensor& f, const std::string& s) {
    const at::Tensor x = f.to(torch::kDouble);
    const at::Tensor xn = x / x.abs().sum(1, true);
    return torch::relu(xn.mm(p[s + ".weight"].t())) + p[s + "_bias"];
  };
  const at::Tensor h1 = torch::cat({dense_hidden(a, p["e2"]), side(ctx.f1, "side1")}, 1);
  const at::Tensor h2 = torch::cat({dense_hidden(transposed(a), p["e1"]), side(ctx.f2, "side2")}, 1);
  torch::NoGradGuard g;
  const auto [o1, o2] = enc->forward();
  EXPECT_TRUE(torch::allclose(o1, h1.mm(p["dense1.weight"].t()), 1e-6, 1e-9));
  EXPECT_TRUE(torch::allclose(o2, h2.mm(p["dense2.weight"].t()), 1e-6, 1e-9));
}

TEST(PriorEncoder, SumStackingAddsOneTablePerClass) {
  const ModelContext ctx = make_context(symgnn::testing::tiny_dataset(6, 8, 25, false, 5));
  LowRankConfig cfg = encoder_config(3, 2, 0);
  cfg.prior_stacking = "sum";
  PriorEncoder enc(cfg, ctx.h, ctx.ht, at::Tensor(), at::Tensor());
  enc->to(torch::kDouble);
  enc->eval();
  const auto p = enc->named_parameters();
  const auto a = dense_classes(ctx);
  at::Tensor deg = torch::zeros({ctx.n1}, torch::kDouble);
  for (const auto& m : a) deg += m.sum(1);
  const at::Tensor inv = torch::where(deg > 0, 1.0 / deg, torch::zeros_like(deg)).unsqueeze(1);
  at::Tensor h = torch::zeros({ctx.n1, 3}, torch::kDouble);
  for (size_t k = 0; k < a.size(); ++k) h += inv * a[k].mm(p["e2"][static_cast<int64_t>(k)]);
  torch::NoGradGuard g;
  EXPECT_TRUE(torch::allclose(enc->forward().first, torch::relu(h).mm(p["dense.weight"].t()), 1e-6, 1e-9));
}

TEST(PriorEncoder, GradientsMatchFiniteDifferences) {
  const ModelContext ctx = make_context(symgnn::testing::tiny_dataset(5, 4, 12, true, 6));
  torch::manual_seed(4);
  PriorEncoder enc(encoder_config(5, 3, 2), ctx.h, ctx.ht, ctx.f1, ctx.f2);
  enc->to(torch::kDouble);
  enc->eval();
  const at::Tensor w1 = torch::randn({5, 3}, torch::kDouble), w2 = torch::randn({4, 3}, torch::kDouble);
  auto f = [&] {
    const auto [u1, u2] = enc->forward();
    return symgnn::testing::weighted_sum(u1, w1) + symgnn::testing::weighted_sum(u2, w2);
  };
  for (const auto& p : enc->named_parameters())
    symgnn::testing::expect_gradient_matches(f, p.value(), p.key());
}

TEST(PriorEncoder, NodeDropoutDropsWholeRowsOfTheEmbedding) {
  // 60 items, every user rates every item, positive embeddings (every relu unit active):
  // a dropped item row gets no gradient at all, a kept one a gradient in every column.
  Dataset ds = symgnn::testing::tiny_dataset(4, 60, 240, false, 7);
  const ModelContext ctx = make_context(ds);
  LowRankConfig cfg = encoder_config(10, 3, 0);
  cfg.prior_node_dropout = 0.5;
  torch::manual_seed(5);
  PriorEncoder enc(cfg, ctx.h, ctx.ht, at::Tensor(), at::Tensor());
  {
    torch::NoGradGuard g;
    enc->named_parameters()["e2"].abs_().add_(0.01);
  }
  enc->train();
  const auto [u1, u2] = enc->forward();
  (u1.sum() + 0 * u2.sum()).backward();
  const at::Tensor g = enc->named_parameters()["e2"].grad();
  // A kept item row has a gradient exactly in the column blocks of the classes it was
  // rated with (10 columns / 5 classes = blocks of 2); a dropped row has none.
  at::Tensor expected = torch::zeros({60, 10}, torch::kBool);
  for (int64_t k = 0; k < 5; ++k) {
    const at::Tensor rated = (ctx.ht[static_cast<size_t>(k)].row_ptr.diff() > 0).unsqueeze(1);
    expected.narrow(1, 2 * k, 2).copy_(rated.expand({60, 2}));
  }
  const at::Tensor nonzero = g != 0;
  const at::Tensor zero_rows = ~nonzero.any(1);
  const at::Tensor full_rows = (nonzero == expected).all(1);
  const double dropped = zero_rows.to(torch::kDouble).mean().item<double>();
  EXPECT_GT(dropped, 0.25);
  EXPECT_LT(dropped, 0.75);
}

TEST(PriorEncoder, NodeDropoutInTheEntriesEqualsDroppingTheTablesRows) {
  // The encoder folds each side's row factors into the other side's class entries
  // (H_k (keep * E) = (H_k diag(keep)) E): the training pass and its gradients against the
  // dense reference with the rows of E1, E2 scaled, the same draws (E1's rows first); the
  // tolerance of the tests above (the encoder's class entries are normalised in float).
  const ModelContext ctx = make_context(symgnn::testing::tiny_dataset(9, 12, 60, false, 8));
  LowRankConfig cfg = encoder_config(10, 4, 0);
  cfg.prior_node_dropout = 0.4;
  torch::manual_seed(6);
  PriorEncoder enc(cfg, ctx.h, ctx.ht, at::Tensor(), at::Tensor());
  enc->to(torch::kDouble);
  enc->train();
  auto p = enc->named_parameters();
  const at::Tensor w1 = torch::randn({9, 4}, torch::kDouble), w2 = torch::randn({12, 4}, torch::kDouble);
  torch::manual_seed(11);
  const auto [o1, o2] = enc->forward();
  (symgnn::testing::weighted_sum(o1, w1) + symgnn::testing::weighted_sum(o2, w2)).backward();
  torch::manual_seed(11);
  const at::Tensor keep1 = torch::empty({9, 1}, torch::kDouble).bernoulli_(0.6) / 0.6;
  const at::Tensor keep2 = torch::empty({12, 1}, torch::kDouble).bernoulli_(0.6) / 0.6;
  ASSERT_GT((keep1 == 0).sum().item<int64_t>() + (keep2 == 0).sum().item<int64_t>(), 0);
  const at::Tensor e1 = p["e1"].detach().clone().requires_grad_(true);
  const at::Tensor e2 = p["e2"].detach().clone().requires_grad_(true);
  const at::Tensor dense = p["dense.weight"].detach();
  const auto a = dense_classes(ctx);
  const at::Tensor u1 = dense_hidden(a, e2 * keep2).mm(dense.t());
  const at::Tensor u2 = dense_hidden(transposed(a), e1 * keep1).mm(dense.t());
  (symgnn::testing::weighted_sum(u1, w1) + symgnn::testing::weighted_sum(u2, w2)).backward();
  EXPECT_TRUE(torch::allclose(o1, u1, 1e-6, 1e-9));
  EXPECT_TRUE(torch::allclose(o2, u2, 1e-6, 1e-9));
  EXPECT_TRUE(torch::allclose(p["e1"].grad(), e1.grad(), 1e-6, 1e-9));
  EXPECT_TRUE(torch::allclose(p["e2"].grad(), e2.grad(), 1e-6, 1e-9));
}

TEST(PriorEncoder, FusedAndCompositeKernelsTrainTheSameModel) {
  // lowrank.encoder_kernels: with the same node-dropout draws and no dense dropout, the two
  // give the same training pass and gradients (their float sums differ); with dense dropout
  // each keeps 1 - p of the hidden layer, from its own draws.
  const ModelContext ctx = make_context(symgnn::testing::tiny_dataset(9, 12, 60, true, 9));
  for (const std::string stacking : {"concat", "sum"}) {
    LowRankConfig cfg = encoder_config(10, 4, 3);
    cfg.prior_stacking = stacking;
    cfg.prior_node_dropout = 0.5;
    std::vector<std::pair<at::Tensor, at::Tensor>> out;
    std::vector<std::vector<at::Tensor>> grads;
    for (const std::string kernels : {"fused", "composite"}) {
      cfg.encoder_kernels = kernels;
      torch::manual_seed(12);
      PriorEncoder enc(cfg, ctx.h, ctx.ht, ctx.f1, ctx.f2);
      enc->to(torch::kDouble);
      enc->train();
      torch::manual_seed(13);
      const auto [o1, o2] = enc->forward();
      (o1.pow(2).sum() + o2.sum()).backward();
      out.emplace_back(o1.detach(), o2.detach());
      std::vector<at::Tensor> g;
      for (const auto& p : enc->parameters()) g.push_back(p.grad().clone());
      grads.push_back(g);
    }
    EXPECT_TRUE(torch::allclose(out[0].first, out[1].first, 1e-9, 1e-12)) << stacking;
    EXPECT_TRUE(torch::allclose(out[0].second, out[1].second, 1e-9, 1e-12)) << stacking;
    for (size_t i = 0; i < grads[0].size(); ++i)
      EXPECT_TRUE(torch::allclose(grads[0][i], grads[1][i], 1e-9, 1e-12)) << stacking << " parameter " << i;
  }
}

TEST(LowRankWithEncoder, IsThePriorPlusCgeOfThePrior) {
  const ModelContext ctx = make_context(symgnn::testing::tiny_dataset(8, 6, 20, false, 8));
  LowRankConfig cfg = encoder_config(10, 4, 0);
  cfg.layers = 2;
  torch::manual_seed(6);
  LowRankModel model(cfg, ctx);
  model.eval();
  for (const auto& p : model.named_parameters())
    EXPECT_EQ(p.key().rfind("mlp", 0), std::string::npos) << p.key();
  torch::NoGradGuard g;
  const auto [u1, u2] = model.embeddings();
  auto children = model.named_children();
  auto enc = std::dynamic_pointer_cast<PriorEncoderImpl>(children["encoder"]);
  auto cge1 = std::dynamic_pointer_cast<CGEImpl>(children["cge1"]);
  auto cge2 = std::dynamic_pointer_cast<CGEImpl>(children["cge2"]);
  ASSERT_TRUE(enc && cge1 && cge2);
  const auto [p1, p2] = enc->forward();
  EXPECT_TRUE(torch::allclose(u1, p1 + cge1->forward(p1)));
  EXPECT_TRUE(torch::allclose(u2, p2 + cge2->forward(p2)));
}

TEST(LowRankWithEncoder, OrthogonalClassInitOverfitsATinyMatrix) {
  const ModelContext ctx = make_context(symgnn::testing::tiny_dataset(10, 8, 40, false, 9));
  LowRankConfig cfg = encoder_config(20, 8, 0);
  cfg.decoder = "classes";
  cfg.class_init = "orthogonal";
  torch::manual_seed(7);
  LowRankModel model(cfg, ctx);
  torch::optim::Adam adam(model.parameters(), torch::optim::AdamOptions(0.02));
  for (int step = 0; step < 300; ++step) {
    adam.zero_grad();
    model.training_loss(ctx.train_users, ctx.train_items, ctx.train_values, nullptr).backward();
    adam.step();
  }
  model.eval();
  torch::NoGradGuard g;
  const double rmse = (model.forward(ctx.train_users, ctx.train_items) - ctx.train_values)
                          .pow(2)
                          .mean()
                          .sqrt()
                          .item<double>();
  EXPECT_LT(rmse, 0.3);
}

TEST(LowRankWithEncoder, ConfigRejectsDroppingTheIdEmbeddingWithoutTheEncoder) {
  RunConfig cfg;
  cfg.lowrank.id_embedding = false;
  EXPECT_THROW(check_config(cfg), ConfigError);
  cfg.lowrank.prior = "encoder";
  EXPECT_NO_THROW(check_config(cfg));
  cfg.lowrank.variant = "A";
  EXPECT_THROW(check_config(cfg), ConfigError);
}
