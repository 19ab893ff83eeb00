// The low-rank model's switches beyond the paper: the rating-class decoder and the graph
// smoothness penalty, each checked against a direct computation.
#include <gtest/gtest.h>
#include <torch/optim/adam.h>
#include <torch/types.h>
#include <torch/utils.h>

#include "lowrank_test_util.h"
#include "models/lowrank_model.h"

using namespace symgnn;
using namespace symgnn::models;

namespace {
double fit_with_loss(LowRankModel& model, const ModelContext& ctx, int steps) {
  torch::optim::Adam adam(model.parameters(), torch::optim::AdamOptions(0.02));
  for (int step = 0; step < steps; ++step) {
    adam.zero_grad();
    at::Tensor loss = model.training_loss(ctx.train_users, ctx.train_items, ctx.train_values, nullptr);
    if (auto reg = model.regularization(); reg.defined()) loss = loss + reg;
    loss.backward();
    adam.step();
  }
  torch::NoGradGuard g;
  model.eval();
  return (model.forward(ctx.train_users, ctx.train_items) - ctx.train_values)
      .pow(2)
      .mean()
      .sqrt()
      .item<double>();
}
}  // namespace

TEST(LowRankClassDecoder, PredictsTheExpectedRatingOfItsSoftmax) {
  const ModelContext ctx = make_context(symgnn::testing::tiny_dataset(8, 6, 20, false, 5));
  torch::manual_seed(1);
  LowRankConfig cfg;
  cfg.hidden = 4;
  cfg.variant = "G";
  cfg.decoder = "classes";
  LowRankModel model(cfg, ctx);
  model.eval();
  torch::NoGradGuard g;
  const at::Tensor pred = model.forward(ctx.train_users, ctx.train_items);
  // Every prediction is a convex combination of the levels 1..5.
  EXPECT_TRUE((pred >= 1).all().item<bool>());
  EXPECT_TRUE((pred <= 5).all().item<bool>());
  // Direct computation of the bilinear logits for one pair from the parameters.
  const auto [u1, u2] = model.embeddings();
  const auto params = model.named_parameters();
  const at::Tensor q = params["q"], a = params["a"];
  const int64_t i = ctx.train_users[0].item<int64_t>(), j = ctx.train_items[0].item<int64_t>();
  at::Tensor logits = torch::zeros({5});
  for (int64_t k = 0; k < 5; ++k)
    for (int64_t b = 0; b < q.size(0); ++b)
      logits[k] += a[k][b] * torch::dot(torch::mv(q[b].t(), u1[i]), u2[j]);
  const double expected =
      torch::dot(torch::softmax(logits, 0), torch::arange(1, 6).to(torch::kFloat)).item<double>();
  EXPECT_NEAR(pred[0].item<double>(), expected, 1e-5);
}

TEST(LowRankClassDecoder, OverfitsATinyMatrix) {
  const ModelContext ctx = make_context(symgnn::testing::tiny_dataset(8, 6, 20, false, 6));
  torch::manual_seed(2);
  LowRankConfig cfg;
  cfg.hidden = 8;
  cfg.variant = "G";
  cfg.decoder = "classes";
  cfg.class_mse_weight = 1.0;
  LowRankModel model(cfg, ctx);
  EXPECT_LT(fit_with_loss(model, ctx, 400), 0.1);
}

TEST(LowRankSmoothness, PenaltyEqualsTheDenseTraceFormula) {
  const Dataset ds = symgnn::testing::tiny_dataset(8, 6, 20, false, 7);
  const ModelContext ctx = make_context(ds);
  torch::manual_seed(3);
  LowRankConfig cfg;
  cfg.hidden = 4;
  cfg.variant = "G";
  cfg.smoothness = 0.5;
  LowRankModel model(cfg, ctx);
  EXPECT_FALSE(model.regularization().defined());  // nothing before a training pass
  model.training_loss(ctx.train_users, ctx.train_items, ctx.train_values, nullptr);
  const at::Tensor reg = model.regularization();
  ASSERT_TRUE(reg.defined());
  model.eval();  // no dropout is configured, so the representations are the same
  const auto [u1, u2] = model.embeddings();
  const at::Tensor at1 = ctx.at1.to_dense();
  const at::Tensor eye = torch::eye(8);
  const double dense = 0.5 * (torch::trace(torch::mm(u1.t(), torch::mm(eye - at1, u1))) / 8.0).item<double>();
  // The item side uses the identity graph: it contributes nothing.
  EXPECT_NEAR(reg.item<double>(), dense, 1e-4 * std::max(1.0, std::abs(dense)));
  EXPECT_GE(reg.item<double>(), -1e-6);  // I - At is positive semi-definite
}

TEST(LowRankDecoderAuto, ClassesForAFewLevelsDotWithBiasesForMany) {
  // tiny_dataset rates 1..5: five levels, so auto picks the class decoder, whose offsets
  // make the biases redundant (none are made).
  const ModelContext ctx = make_context(symgnn::testing::tiny_dataset(8, 6, 20, false, 5));
  LowRankConfig cfg;
  cfg.hidden = 4;
  cfg.variant = "G";
  cfg.decoder = "auto";
  cfg.biases = true;
  LowRankModel few(cfg, ctx);
  auto names = few.named_parameters();
  EXPECT_TRUE(names.contains("q"));
  EXPECT_FALSE(names.contains("b1"));
  // Eleven levels (a 0..10 scale): the dot product with user and item biases.
  ModelContext many = ctx;
  many.levels.clear();
  for (int v = 0; v <= 10; ++v) many.levels.push_back(v);
  LowRankModel dot(cfg, many);
  names = dot.named_parameters();
  EXPECT_FALSE(names.contains("q"));
  EXPECT_TRUE(names.contains("b1"));
  EXPECT_TRUE(names.contains("b2"));
}
