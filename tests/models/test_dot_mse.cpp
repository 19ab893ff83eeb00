// dot_mse (src/models/kernels/dot_mse.h): the fused dot decoder's loss, predictions and
// gradients equal the composite's in double, whatever the thread count, and the low-rank
// model's training loss through it equals the MSE of its own predictions.
#include <ATen/Parallel.h>
#include <gtest/gtest.h>
#include <torch/types.h>
#include <torch/utils.h>

#include <map>
#include <string>

#include "lowrank_test_util.h"
#include "models/kernels/dot_mse.h"
#include "models/lowrank_model.h"
#include "symgnn/model.h"

namespace symgnn::models {
namespace {

struct Result {
  at::Tensor loss, pred, du1, du2, db1, db2;
};

/// Loss, predictions and gradients of `f` on fresh leaf copies of the decoder's tensors.
template <typename F>
Result evaluate(const DotDecoder& dec, F f) {
  DotDecoder d = dec;
  d.u1 = dec.u1.detach().clone().requires_grad_();
  d.u2 = dec.u2.detach().clone().requires_grad_();
  if (dec.b1.defined()) {
    d.b1 = dec.b1.detach().clone().requires_grad_();
    d.b2 = dec.b2.detach().clone().requires_grad_();
  }
  Result r;
  r.loss = f(d, &r.pred);
  r.loss.backward();
  r.du1 = d.u1.grad(), r.du2 = d.u2.grad();
  if (d.b1.defined()) r.db1 = d.b1.grad(), r.db2 = d.b2.grad();
  return r;
}

void expect_close(const Result& a, const Result& b, const std::string& what) {
  EXPECT_NEAR(a.loss.item<double>(), b.loss.item<double>(), 1e-12 * std::abs(b.loss.item<double>())) << what;
  EXPECT_TRUE(torch::allclose(a.pred, b.pred, 1e-12, 1e-12)) << what;
  EXPECT_TRUE(torch::allclose(a.du1, b.du1, 1e-11, 1e-12)) << what << ": du1";
  EXPECT_TRUE(torch::allclose(a.du2, b.du2, 1e-11, 1e-12)) << what << ": du2";
  ASSERT_EQ(a.db1.defined(), b.db1.defined()) << what;
  if (a.db1.defined()) {
    EXPECT_TRUE(torch::allclose(a.db1, b.db1, 1e-11, 1e-12)) << what << ": db1";
    EXPECT_TRUE(torch::allclose(a.db2, b.db2, 1e-11, 1e-12)) << what << ": db2";
  }
}

DotDecoder random_decoder(int64_t n1, int64_t n2, int64_t d, bool biases) {
  const auto dbl = torch::TensorOptions().dtype(torch::kDouble);
  DotDecoder dec;
  dec.u1 = torch::randn({n1, d}, dbl);
  dec.u2 = torch::randn({n2, d}, dbl);
  if (biases) {
    dec.b1 = torch::randn({n1}, dbl);
    dec.b2 = torch::randn({n2}, dbl);
    dec.mean = 3.4;
    dec.std = 1.1;
  }
  return dec;
}

TEST(DotMse, EqualsTheCompositeInDoubleAtAnyThreadCount) {
  torch::manual_seed(3);
  const int threads_before = at::get_num_threads();
  // 10,000 pairs over 7 x 6 nodes: every pair repeats, and 3 threads split them in ranges.
  for (int64_t k : {1, 200, 10000})
    for (bool biases : {false, true}) {
      const DotDecoder dec = random_decoder(7, 6, 5, biases);
      const at::Tensor users = torch::randint(0, 7, {k}, torch::kLong),
                       items = torch::randint(0, 6, {k}, torch::kLong);
      const at::Tensor target = torch::randint(1, 6, {k}, torch::kDouble);
      const double weight = 1.0 / static_cast<double>(k);
      const Result ref = evaluate(dec, [&](const DotDecoder& d, at::Tensor* pred) {
        return dot_mse_composite(d, users, items, target, weight, pred);
      });
      for (int threads : {1, 3}) {
        at::set_num_threads(threads);
        const Result got = evaluate(dec, [&](const DotDecoder& d, at::Tensor* pred) {
          return dot_mse(d, users, items, target, weight, pred);
        });
        expect_close(got, ref,
                     "k " + std::to_string(k) + (biases ? " biases" : "") + ", " + std::to_string(threads) +
                         " threads");
      }
    }
  at::set_num_threads(threads_before);
}

TEST(DotMse, TheMeanOfTheSquaredErrorIsMseLossAndFloatTakesTheFusedPathToo) {
  torch::manual_seed(4);
  DotDecoder dec = random_decoder(20, 30, 8, true);
  dec.u1 = dec.u1.to(torch::kFloat), dec.u2 = dec.u2.to(torch::kFloat);
  dec.b1 = dec.b1.to(torch::kFloat), dec.b2 = dec.b2.to(torch::kFloat);
  const at::Tensor users = torch::randint(0, 20, {500}, torch::kLong),
                   items = torch::randint(0, 30, {500}, torch::kLong);
  const at::Tensor target = torch::randint(1, 6, {500}, torch::kFloat);
  at::Tensor pred;
  const at::Tensor loss = dot_mse(dec, users, items, target, 1.0 / 500, &pred);
  EXPECT_EQ(loss.scalar_type(), torch::kFloat);
  EXPECT_NEAR(loss.item<double>(), torch::mse_loss(pred, target).item<double>(), 1e-5);
  at::Tensor ref_pred;
  dot_mse_composite(dec, users, items, target, 1.0 / 500, &ref_pred);
  EXPECT_TRUE(torch::allclose(pred, ref_pred, 1e-5, 1e-5));
}

TEST(DotMse, FloatAtTheWidthsWithTheirOwnCodeAndOthersMatchesDouble) {
  // d = 16, 32, 64 have their own unrolled code, 33 a vector part and a tail; pairs grouped
  // by user (the user's gradient summed over a run) and in random order, with and without
  // biases, at one and two threads.
  torch::manual_seed(11);
  for (const int64_t d : {int64_t{16}, int64_t{32}, int64_t{64}, int64_t{33}, int64_t{3}})
    for (const bool biases : {true, false})
      for (const bool grouped : {true, false})
        for (const int threads : {1, 2}) {
          at::set_num_threads(threads);
          const DotDecoder dbl = random_decoder(40, 25, d, biases);
          DotDecoder flt = dbl;
          for (at::Tensor* t : {&flt.u1, &flt.u2, &flt.b1, &flt.b2})
            if (t->defined()) *t = t->to(torch::kFloat);
          const int64_t k = 9000;  // above one range of pairs, so two threads split them
          at::Tensor users = torch::randint(0, 40, {k}, torch::kLong);
          if (grouped) users = std::get<0>(users.sort());
          const at::Tensor items = torch::randint(0, 25, {k}, torch::kLong);
          const at::Tensor target = torch::randint(1, 6, {k}, torch::kDouble);
          const Result f = evaluate(flt, [&](const DotDecoder& x, at::Tensor* p) {
            return dot_mse(x, users, items, target.to(torch::kFloat), 1.0 / k, p);
          });
          const Result r = evaluate(dbl, [&](const DotDecoder& x, at::Tensor* p) {
            return dot_mse_composite(x, users, items, target, 1.0 / k, p);
          });
          const std::string what = "d=" + std::to_string(d) + (biases ? " biases" : "") +
                                   (grouped ? " grouped" : " random") + " threads=" + std::to_string(threads);
          EXPECT_NEAR(f.loss.item<double>(), r.loss.item<double>(), 1e-4 * r.loss.item<double>()) << what;
          EXPECT_TRUE(torch::allclose(f.pred.to(torch::kDouble), r.pred, 1e-4, 1e-4)) << what;
          EXPECT_TRUE(torch::allclose(f.du1.to(torch::kDouble), r.du1, 1e-3, 1e-5)) << what << ": du1";
          EXPECT_TRUE(torch::allclose(f.du2.to(torch::kDouble), r.du2, 1e-3, 1e-5)) << what << ": du2";
          if (biases) {
            EXPECT_TRUE(torch::allclose(f.db1.to(torch::kDouble), r.db1, 1e-3, 1e-5)) << what << ": db1";
            EXPECT_TRUE(torch::allclose(f.db2.to(torch::kDouble), r.db2, 1e-3, 1e-5)) << what << ": db2";
          }
        }
  at::set_num_threads(1);
}

TEST(DotMse, WithoutGradientsItOnlyScores) {
  torch::manual_seed(5);
  const DotDecoder dec = random_decoder(5, 4, 3, true);
  const at::Tensor users = torch::tensor({0, 4, 2}, torch::kLong),
                   items = torch::tensor({3, 0, 3}, torch::kLong);
  const at::Tensor target = torch::tensor({1.0, 2.0, 5.0}, torch::kDouble);
  const at::Tensor loss = dot_mse(dec, users, items, target, 1.0);
  EXPECT_FALSE(loss.requires_grad());
  EXPECT_NEAR(loss.item<double>(), dot_mse_composite(dec, users, items, target, 1.0).item<double>(), 1e-12);
}

TEST(DotMse, IdsOutsideTheTablesAndMismatchedShapesThrow) {
  const DotDecoder dec = random_decoder(5, 4, 3, false);
  const at::Tensor target = torch::zeros({2}, torch::kDouble);
  EXPECT_THROW(
      dot_mse(dec, torch::tensor({0, 5}, torch::kLong), torch::tensor({0, 1}, torch::kLong), target, 1.0),
      c10::Error);
  EXPECT_THROW(
      dot_mse(dec, torch::tensor({0, 1}, torch::kLong), torch::tensor({-1, 1}, torch::kLong), target, 1.0),
      c10::Error);
  EXPECT_THROW(
      dot_mse(dec, torch::tensor({0, 1}, torch::kLong), torch::tensor({0}, torch::kLong), target, 1.0),
      c10::Error);
}

TEST(DotMse, TheModelsTrainingLossIsTheMseOfItsPredictions) {
  const ModelContext ctx = make_context(testing::tiny_dataset(9, 7, 40, /*features=*/true, 3));
  for (bool biases : {false, true}) {
    LowRankConfig cfg;
    cfg.variant = "G";
    cfg.hidden = 4;
    cfg.biases = biases;
    auto pass = [&](bool fused) {
      torch::manual_seed(5);
      LowRankModel model(cfg, ctx);
      model.to(torch::kDouble);
      model.eval();  // no dropout: both passes see the same representations
      const at::Tensor target = ctx.train_values.to(torch::kDouble);
      const at::Tensor loss = fused
                                  ? model.training_loss(ctx.train_users, ctx.train_items, target, nullptr)
                                  : torch::mse_loss(model.forward(ctx.train_users, ctx.train_items), target);
      loss.backward();
      std::map<std::string, at::Tensor> grads;
      for (const auto& np : model.named_parameters())
        if (np.value().grad().defined()) grads[np.key()] = np.value().grad().clone();
      return std::make_pair(loss.item<double>(), grads);
    };
    const auto [fused_loss, fused_grads] = pass(true);
    const auto [ref_loss, ref_grads] = pass(false);
    EXPECT_NEAR(fused_loss, ref_loss, 1e-12 * ref_loss);
    ASSERT_EQ(fused_grads.size(), ref_grads.size());
    for (const auto& [name, g] : ref_grads)
      EXPECT_TRUE(torch::allclose(fused_grads.at(name), g, 1e-10, 1e-12))
          << name << (biases ? " biases" : "");
  }
}

}  // namespace
}  // namespace symgnn::models
