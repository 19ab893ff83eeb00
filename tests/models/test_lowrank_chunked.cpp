// lowrank.decoder_chunk: scoring the training pairs chunk by chunk gives the loss, the
// training predictions and every parameter's gradient of one pass over all pairs.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "lowrank_test_util.h"
#include "models/lowrank_model.h"
#include "symgnn/model.h"

namespace symgnn::models {
namespace {

struct Pass {
  double loss;
  at::Tensor pred;
  std::map<std::string, at::Tensor> grads;
};

/// One training pass (loss, backward) of a model built from seed 5 with `chunk`.
Pass training_pass(LowRankConfig cfg, const ModelContext& ctx, int64_t chunk) {
  cfg.decoder_chunk = chunk;
  at::manual_seed(5);
  LowRankModel model(cfg, ctx);
  model.to(at::kDouble);
  model.train();
  at::Tensor pred;
  const at::Tensor loss =
      model.training_loss(ctx.train_users, ctx.train_items, ctx.train_values.to(at::kDouble), &pred);
  loss.backward();
  Pass p{loss.item<double>(), pred, {}};
  for (const auto& np : model.named_parameters())
    if (np.value().grad().defined()) p.grads[np.key()] = np.value().grad().clone();
  return p;
}

void expect_same(const Pass& whole, const Pass& chunked, const std::string& what) {
  EXPECT_NEAR(whole.loss, chunked.loss, 1e-12 * std::max(1.0, std::abs(whole.loss))) << what;
  EXPECT_TRUE(at::allclose(whole.pred, chunked.pred, 1e-12, 1e-12)) << what;
  ASSERT_EQ(whole.grads.size(), chunked.grads.size()) << what;
  for (const auto& [name, g] : whole.grads) {
    ASSERT_TRUE(chunked.grads.count(name)) << what << ": no gradient for " << name;
    EXPECT_TRUE(at::allclose(g, chunked.grads.at(name), 1e-10, 1e-12)) << what << ": " << name;
  }
}

TEST(LowRankChunkedDecoder, SameLossPredictionsAndGradientsAsOnePass) {
  const ModelContext ctx = make_context(testing::tiny_dataset(9, 7, 40, /*features=*/true, 3));
  for (const char* decoder : {"dot", "classes"})
    for (bool biases : {false, true})
      for (const char* prior : {"paper", "encoder"}) {
        LowRankConfig cfg;
        cfg.variant = "G";
        cfg.hidden = 4;
        cfg.decoder = decoder;
        cfg.biases = biases;
        cfg.class_mse_weight = 0.5;
        cfg.prior = prior;
        cfg.prior_width = 10;
        cfg.prior_node_dropout = 0.0;  // dropout draws differ only if the passes differ
        cfg.prior_dense_dropout = 0.0;
        const std::string what = std::string(decoder) + (biases ? "+biases " : " ") + prior;
        const Pass whole = training_pass(cfg, ctx, 0);
        for (int64_t chunk : {1, 7, 39})  // 40 pairs: ragged and single-pair chunks
          expect_same(whole, training_pass(cfg, ctx, chunk), what + " chunk " + std::to_string(chunk));
      }
}

TEST(LowRankChunkedDecoder, ChunksAtLeastThePairCountTakeTheOnePassPath) {
  const ModelContext ctx = make_context(testing::tiny_dataset(9, 7, 40, /*features=*/false, 3));
  LowRankConfig cfg;
  cfg.variant = "G";
  cfg.hidden = 4;
  const Pass whole = training_pass(cfg, ctx, 0), big = training_pass(cfg, ctx, 40);
  EXPECT_EQ(whole.loss, big.loss);  // bit-identical: the same code path
  for (const auto& [name, g] : whole.grads) EXPECT_TRUE(at::equal(g, big.grads.at(name))) << name;
}

}  // namespace
}  // namespace symgnn::models
