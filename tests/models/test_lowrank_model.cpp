// The low-rank model as a whole: each variant's parameters, gradients in double, that it
// can fit a tiny rating matrix, the registry, and the same numbers on CUDA when present.
#include <gtest/gtest.h>
#include <torch/cuda.h>
#include <torch/optim/adam.h>
#include <torch/types.h>
#include <torch/utils.h>

#include <set>

#include "lowrank_test_util.h"
#include "models/lowrank_model.h"
#include "symgnn/error.h"
#include "symgnn/model.h"

namespace symgnn::models {
namespace {

std::set<std::string> parameter_names(torch::nn::Module& m) {
  std::set<std::string> names;
  for (const auto& p : m.named_parameters()) names.insert(p.key());
  return names;
}

std::set<std::string> side_names(const std::string& module, const std::vector<std::string>& params) {
  std::set<std::string> out;
  for (const char* side : {"1", "2"})
    for (const auto& p : params) out.insert(module + side + "." + p);
  return out;
}

std::set<std::string> expected_names(const std::string& variant, bool features, bool biases, bool learned) {
  std::set<std::string> names = side_names("mlp", {"embedding", "linear.weight", "linear.bias"});
  auto add = [&](const std::set<std::string>& more) { names.insert(more.begin(), more.end()); };
  if (features) add(side_names("mlp", {"side.weight", "side.bias"}));
  if (variant != "A") {
    add(side_names("cge", {"s_logit", "w0", "w1"}));
    add(side_names("prior", {"theta", "mlp.weight", "mlp.bias"}));
  }
  if (variant != "G") {
    add(side_names("within", {"w_att"}));
    add(side_names("cross", {"theta_c"}));
  }
  if (learned) add(side_names("fusion", {"weight", "bias"}));
  if (biases) add({"b1", "b2"});
  return names;
}

int64_t parameter_count(torch::nn::Module& m) {
  int64_t count = 0;
  for (const auto& p : m.parameters()) count += p.numel();
  return count;
}

TEST(LowRankModel, EachVariantHasExactlyItsOwnParameters) {
  const ModelContext ctx = make_context(testing::tiny_dataset(8, 6, 20, /*features=*/true, 1));
  const int64_t d = 4, n1 = 8, n2 = 6, k = 5;
  for (const char* variant : {"full", "G", "A"})
    for (bool biases : {false, true})
      for (bool learned : {false, true}) {
        LowRankConfig cfg;
        cfg.variant = variant;
        cfg.hidden = d;
        cfg.biases = biases;
        cfg.fusion = learned ? "learned" : "sum";
        LowRankModel model(cfg, ctx);
        EXPECT_EQ(parameter_names(model), expected_names(variant, true, biases, learned))
            << variant << " biases " << biases << " learned " << learned;
        EXPECT_EQ(model.name(), std::string("lowrank-") + variant);
        // Count check for the sum fusion without biases, written out per module.
        if (!biases && !learned) {
          int64_t expected = (n1 + n2) * d + 2 * (2 * d * d + d) + 2 * (3 * d + d);  // mlp (+ side, p = 3)
          if (cfg.variant != "A")
            expected += (n1 + 2 * d * d) + (n2 + 2 * d * d) + 2 * (k * d * d + k * d * d + d);
          if (cfg.variant != "G") expected += 2 * (d * d) + 2 * (d * d);
          EXPECT_EQ(parameter_count(model), expected) << variant;
        }
      }
  LowRankConfig no_cge;
  no_cge.layers = 0;
  no_cge.variant = "G";
  LowRankModel g0(no_cge, ctx);
  for (const auto& name : parameter_names(g0)) EXPECT_EQ(name.rfind("cge", 0), std::string::npos) << name;
}

TEST(LowRankModel, GradientsOfTheWholeModelMatchFiniteDifferences) {
  torch::manual_seed(11);
  const ModelContext ctx = make_context(testing::tiny_dataset(5, 4, 12, /*features=*/true, 2));
  LowRankConfig cfg;
  cfg.hidden = 3;
  cfg.activation = "tanh";
  cfg.biases = true;
  cfg.attention_block = 2;
  LowRankModel model(cfg, ctx);
  model.to(torch::kDouble);
  const auto f = [&] { return model.forward(ctx.train_users, ctx.train_items).pow(2).sum(); };
  auto params = model.named_parameters();
  for (const char* name : {"mlp1.embedding", "mlp2.side.weight", "cge1.s_logit", "cge2.w1", "within1.w_att",
                           "prior1.theta", "prior2.mlp.weight", "cross2.theta_c", "b1"})
    testing::expect_gradient_matches(f, params[name], name);
}

/// Adam on the full batch of training ratings; returns the final training RMSE.
double fit(LowRankModel& model, const ModelContext& ctx, int steps) {
  torch::optim::Adam adam(model.parameters(), torch::optim::AdamOptions(0.02));
  for (int step = 0; step < steps; ++step) {
    adam.zero_grad();
    const at::Tensor loss =
        (model.forward(ctx.train_users, ctx.train_items) - ctx.train_values).pow(2).mean();
    loss.backward();
    adam.step();
  }
  torch::NoGradGuard g;
  return (model.forward(ctx.train_users, ctx.train_items) - ctx.train_values)
      .pow(2)
      .mean()
      .sqrt()
      .item<double>();
}

TEST(LowRankModel, OverfitsATinyRatingMatrixWithAndWithoutSideFeatures) {
  for (bool features : {false, true}) {
    const ModelContext ctx = make_context(testing::tiny_dataset(8, 6, 20, features, 3));
    for (const char* variant : {"full", "G", "A"})
      for (bool biases : {false, true}) {
        torch::manual_seed(12);
        LowRankConfig cfg;
        cfg.variant = variant;
        cfg.hidden = 8;
        cfg.biases = biases;
        LowRankModel model(cfg, ctx);
        // 400 steps: at 300, PyPI's LibTorch 2.11 left variant A with biases at 0.054.
        EXPECT_LT(fit(model, ctx, 400), 0.05) << variant << " features " << features << " biases " << biases;
      }
  }
}

TEST(LowRankModel, LearnedFusionAndEdgeDropoutTrainToo) {
  const ModelContext ctx = make_context(testing::tiny_dataset(8, 6, 20, false, 4));
  torch::manual_seed(13);
  LowRankConfig cfg;
  cfg.hidden = 8;
  cfg.fusion = "learned";
  cfg.prior_norm = "symmetric";
  LowRankModel model(cfg, ctx);
  EXPECT_LT(fit(model, ctx, 300), 0.05);

  cfg.prior_dropout = 0.5;
  cfg.dropout = 0.2;
  LowRankModel noisy(cfg, ctx);
  noisy.train();
  const at::Tensor a = noisy.forward(ctx.train_users, ctx.train_items);
  const at::Tensor b = noisy.forward(ctx.train_users, ctx.train_items);
  EXPECT_FALSE(torch::equal(a, b));  // dropout draws differ per call while training
  noisy.eval();
  EXPECT_TRUE(torch::equal(noisy.forward(ctx.train_users, ctx.train_items),
                           noisy.forward(ctx.train_users, ctx.train_items)));
}

TEST(LowRankModel, BiasesPredictInRatingUnitsAroundTheMean) {
  const ModelContext ctx = make_context(testing::tiny_dataset(8, 6, 20, false, 5));
  LowRankConfig cfg;
  cfg.biases = true;
  LowRankModel model(cfg, ctx);
  model.eval();
  torch::NoGradGuard g;
  auto params = model.named_parameters();
  params["b1"].copy_(torch::randn({8}));
  params["b2"].copy_(torch::randn({6}));
  const auto [u1, u2] = model.embeddings();
  const at::Tensor users = ctx.train_users, items = ctx.train_items;
  const at::Tensor standardised = (u1.index_select(0, users) * u2.index_select(0, items)).sum(1) +
                                  params["b1"].index_select(0, users) + params["b2"].index_select(0, items);
  const at::Tensor expected = ctx.global_mean + ctx.rating_std * standardised;
  EXPECT_TRUE(torch::allclose(model.forward(users, items), expected, 1e-5, 1e-5));

  cfg.biases = false;  // the faithful prediction: the bare dot product
  LowRankModel plain(cfg, ctx);
  plain.eval();
  const auto [v1, v2] = plain.embeddings();
  EXPECT_TRUE(torch::allclose(plain.forward(users, items),
                              (v1.index_select(0, users) * v2.index_select(0, items)).sum(1), 1e-6, 1e-6));
}

TEST(LowRankRegistry, MakesEveryKindOfTheTableAndRefusesOthers) {
  const ModelContext ctx = make_context(testing::tiny_dataset(8, 6, 20, false, 6));
  RunConfig cfg;
  cfg.model = "lowrank";
  cfg.lowrank.variant = "G";
  const auto model = make_model(cfg, ctx);
  EXPECT_EQ(model->name(), "lowrank-G");
  EXPECT_EQ(model->forward(ctx.train_users, ctx.train_items).sizes(), ctx.train_values.sizes());
  EXPECT_FALSE(model->regularization().defined());
  // Every row of symgnn/model_kinds.h builds, and scores the whole catalogue.
  for (const ModelKind& kind : kModelKinds) {
    cfg.model = kind.name;
    const auto m = make_model(cfg, ctx);
    m->eval();
    EXPECT_EQ(m->score_items(ctx.train_users.narrow(0, 0, 3), ctx.n2).sizes(),
              (std::vector<int64_t>{3, ctx.n2}))
        << kind.name;
  }
  cfg.model = "svd";
  try {
    make_model(cfg, ctx);
    FAIL() << "svd accepted";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("lowrank|base|sylvester|baseline|popularity"), std::string::npos)
        << e.what();
  }
}

TEST(LowRankModel, CudaAgreesWithCpu) {
  if (!torch::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  const ModelContext ctx = make_context(testing::tiny_dataset(8, 6, 20, true, 7));
  const ModelContext gpu = ctx.to(torch::Device(torch::kCUDA));
  LowRankConfig cfg;
  cfg.hidden = 4;
  cfg.biases = true;
  cfg.prior_dropout = 0.3;
  torch::manual_seed(14);
  LowRankModel cpu_model(cfg, ctx);
  LowRankModel gpu_model(cfg, gpu);
  {
    torch::NoGradGuard g;
    auto src = cpu_model.named_parameters();
    for (auto& p : gpu_model.named_parameters()) p.value().copy_(src[p.key()]);
  }
  cpu_model.eval();
  gpu_model.eval();
  const at::Tensor a = cpu_model.forward(ctx.train_users, ctx.train_items);
  const at::Tensor b = gpu_model.forward(gpu.train_users, gpu.train_items);
  EXPECT_EQ(b.device().type(), torch::kCUDA);
  EXPECT_TRUE(torch::allclose(a, b.cpu(), 1e-4, 1e-4));
  a.sum().backward();
  b.sum().backward();
  auto cpu_params = cpu_model.named_parameters();
  for (auto& p : gpu_model.named_parameters())
    EXPECT_TRUE(torch::allclose(p.value().grad().cpu(), cpu_params[p.key()].grad(), 1e-3, 1e-4)) << p.key();
  gpu_model.train();  // edge dropout path on the device
  gpu_model.forward(gpu.train_users, gpu.train_items).sum().backward();
}

}  // namespace
}  // namespace symgnn::models
