// The bias baseline (models/baseline/bias_fit.h), its model kind (baseline_model.h) and the
// offset of the learned models (offset_model.h), against brute force.
#include <ATen/Parallel.h>
#include <gtest/gtest.h>
#include <torch/types.h>
#include <torch/utils.h>

#include <cmath>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "models/baseline/baseline_figures.h"
#include "models/baseline/baseline_model.h"
#include "models/baseline/bias_fit.h"
#include "models/baseline/offset_model.h"
#include "models/lowrank_test_util.h"
#include "symgnn/config.h"
#include "symgnn/error.h"
#include "symgnn/model.h"

using namespace symgnn;
using namespace symgnn::models;

namespace {

/// The ridge problem's exact minimiser, from its normal equations solved densely:
/// unknowns (b_1..b_n1, c_1..c_n2), mu the mean rating.
std::pair<std::vector<double>, std::vector<double>> exact_biases(const RatingList& r, int64_t n1, int64_t n2,
                                                                 Shrinkage s) {
  double mu = 0;
  for (float v : r.value) mu += v;
  mu /= static_cast<double>(r.size());
  const int64_t n = n1 + n2;
  at::Tensor a = torch::zeros({n, n}, torch::kDouble), rhs = torch::zeros({n}, torch::kDouble);
  for (int64_t k = 0; k < n1; ++k) a[k][k] += s.user;
  for (int64_t k = 0; k < n2; ++k) a[n1 + k][n1 + k] += s.item;
  for (size_t e = 0; e < r.size(); ++e) {
    const int64_t u = r.user[e], i = n1 + r.item[e];
    const double d = r.value[e] - mu;
    a[u][u] += 1;
    a[i][i] += 1;
    a[u][i] += 1;
    a[i][u] += 1;
    rhs[u] += d;
    rhs[i] += d;
  }
  const at::Tensor x = torch::linalg_solve(a, rhs);
  std::vector<double> bu(static_cast<size_t>(n1)), bi(static_cast<size_t>(n2));
  for (int64_t k = 0; k < n1; ++k) bu[static_cast<size_t>(k)] = x[k].item<double>();
  for (int64_t k = 0; k < n2; ++k) bi[static_cast<size_t>(k)] = x[n1 + k].item<double>();
  return {bu, bi};
}

RatingList random_ratings(int64_t n1, int64_t n2, int64_t count, unsigned seed) {
  return symgnn::testing::tiny_dataset(n1, n2, count, false, seed).train;
}

}  // namespace

TEST(BiasFit, ConvergesToTheRidgeSolution) {
  const RatingList r = random_ratings(9, 7, 30, 3);
  for (const Shrinkage s : {Shrinkage{0.5, 2}, Shrinkage{3, 10}, Shrinkage{20, 0.3}}) {
    const Biases b = fit_biases(r, 9, 7, s, 10000);
    const auto [bu, bi] = exact_biases(r, 9, 7, s);
    for (size_t k = 0; k < bu.size(); ++k) EXPECT_NEAR(b.user[k], bu[k], 1e-4) << "user " << k;
    for (size_t k = 0; k < bi.size(); ++k) EXPECT_NEAR(b.item[k], bi[k], 1e-4) << "item " << k;
    EXPECT_LT(b.sweeps, 10000);
  }
}

TEST(BiasFit, UnratedNodesKeepZeroAndAWarmStartEndsAtTheSameSolution) {
  RatingList r;
  r.add(0, 0, 5);
  r.add(0, 1, 3);
  r.add(1, 1, 1);
  const Biases cold = fit_biases(r, 3, 3, {1, 1}, 10000);  // user 2 and item 2 have no rating
  EXPECT_DOUBLE_EQ(cold.user[2], 0.0);
  EXPECT_DOUBLE_EQ(cold.item[2], 0.0);
  EXPECT_NEAR(cold.mu, 3.0, 1e-12);
  const Biases warm = fit_biases(r, 3, 3, {1, 1}, 10000, &cold);
  for (size_t k = 0; k < 3; ++k) EXPECT_NEAR(warm.user[k], cold.user[k], 1e-5);
  EXPECT_LE(warm.sweeps, 2);  // started at the solution
}

TEST(BiasFit, AddedNodesGetTheRidgeSolutionOfTheirRatingsWithTheTrainedBiasesFixed) {
  // Users 7 and 8 and item 6 come after the fit (--new-ratings).
  const RatingList all = random_ratings(9, 7, 45, 8);
  RatingList old;
  for (size_t e = 0; e < all.size(); ++e)
    if (all.user[e] < 7 && all.item[e] < 6) old.add(all.user[e], all.item[e], all.value[e]);
  const Shrinkage s{2, 3};
  const Biases trained = fit_biases(old, 7, 6, s, 10000);
  const Biases b = extend_biases(all, trained, 9, 7, s, 10000);
  EXPECT_DOUBLE_EQ(b.mu, trained.mu);
  for (size_t k = 0; k < 7; ++k) EXPECT_DOUBLE_EQ(b.user[k], trained.user[k]);
  for (size_t k = 0; k < 6; ++k) EXPECT_DOUBLE_EQ(b.item[k], trained.item[k]);
  // The normal equations of the added biases x = (b_7, b_8, c_6), the others fixed.
  at::Tensor a = torch::zeros({3, 3}, torch::kDouble), rhs = torch::zeros({3}, torch::kDouble);
  a[0][0] = s.user;
  a[1][1] = s.user;
  a[2][2] = s.item;
  int coupled = 0;
  for (size_t e = 0; e < all.size(); ++e) {
    const int64_t u = all.user[e], i = all.item[e];
    const bool new_user = u >= 7, new_item = i >= 6;
    if (!new_user && !new_item) continue;
    const double d = all.value[e] - trained.mu - (new_user ? 0.0 : trained.user[static_cast<size_t>(u)]) -
                     (new_item ? 0.0 : trained.item[static_cast<size_t>(i)]);
    const int64_t x = u - 7, y = 2;
    if (new_user) a[x][x] += 1, rhs[x] += d;
    if (new_item) a[y][y] += 1, rhs[y] += d;
    if (new_user && new_item) a[x][y] += 1, a[y][x] += 1, ++coupled;
  }
  ASSERT_GT(coupled, 0) << "the test needs a new user's rating of the new item";
  const at::Tensor x = torch::linalg_solve(a, rhs);
  EXPECT_NEAR(b.user[7], x[0].item<double>(), 1e-5);
  EXPECT_NEAR(b.user[8], x[1].item<double>(), 1e-5);
  EXPECT_NEAR(b.item[6], x[2].item<double>(), 1e-5);
  // A node added without ratings gets 0.
  const Biases wider = extend_biases(all, trained, 10, 7, s, 10000);
  EXPECT_DOUBLE_EQ(wider.user[9], 0.0);
}

TEST(BiasFit, LeaveOneOutCrossValidationMatchesBruteForce) {
  // With as many folds as ratings each fold is one rating, whatever the shuffle: the table
  // must be the brute-force leave-one-out RMSE of every pair.
  const RatingList r = random_ratings(6, 5, 16, 11);
  ShrinkageGrid grid;
  grid.users = {0.5, 5};
  grid.items = {1, 10, 50};
  grid.sweeps = 10000;
  const auto folds = static_cast<int64_t>(r.size());
  const ShrinkageChoice c = choose_shrinkage_cv(r, 6, 5, grid, folds, 7);
  const ShrinkageChoice other_seed = choose_shrinkage_cv(r, 6, 5, grid, folds, 8);
  double best = 1e300;
  for (size_t a = 0; a < grid.users.size(); ++a)
    for (size_t b = 0; b < grid.items.size(); ++b) {
      double se = 0;
      for (size_t out = 0; out < r.size(); ++out) {
        RatingList rest;
        for (size_t e = 0; e < r.size(); ++e)
          if (e != out) rest.add(r.user[e], r.item[e], r.value[e]);
        const auto [bu, bi] = exact_biases(rest, 6, 5, {grid.users[a], grid.items[b]});
        double mu = 0;
        for (float v : rest.value) mu += v;
        mu /= static_cast<double>(rest.size());
        const double p = std::clamp(
            mu + bu[static_cast<size_t>(r.user[out])] + bi[static_cast<size_t>(r.item[out])], 1.0, 5.0);
        se += (p - r.value[out]) * (p - r.value[out]);
      }
      const double rmse = std::sqrt(se / static_cast<double>(r.size()));
      EXPECT_NEAR(c.table[a][b], rmse, 1e-4) << "pair " << a << "," << b;
      EXPECT_NEAR(other_seed.table[a][b], c.table[a][b], 1e-9);
      best = std::min(best, rmse);
    }
  EXPECT_NEAR(c.figure, best, 1e-4);
}

TEST(BiasFit, AFitIsTheSameAtAnyThreadCountAndAsTheStepsOverTheListInItsOrder) {
  // Enough ratings that each side's step splits into several tasks.
  std::mt19937 rng(4);
  RatingList r;
  for (int e = 0; e < 200000; ++e)
    r.add(static_cast<int64_t>(rng() % 3000), static_cast<int64_t>(rng() % 400),
          static_cast<float>(1 + rng() % 5));
  const Shrinkage s{3, 10};
  // The steps as written in bias_fit.h, summed over the list in its order.
  Biases ref;
  ref.user.assign(3000, 0.0);
  ref.item.assign(400, 0.0);
  for (float v : r.value) ref.mu += v;
  ref.mu /= static_cast<double>(r.size());
  std::vector<double> count_user(3000, 0.0), count_item(400, 0.0);
  for (size_t e = 0; e < r.size(); ++e) {
    count_user[static_cast<size_t>(r.user[e])] += 1;
    count_item[static_cast<size_t>(r.item[e])] += 1;
  }
  for (int sweep = 0; sweep < 5; ++sweep) {
    std::vector<double> acc(400, 0.0);
    for (size_t e = 0; e < r.size(); ++e)
      acc[static_cast<size_t>(r.item[e])] += r.value[e] - ref.mu - ref.user[static_cast<size_t>(r.user[e])];
    for (size_t k = 0; k < 400; ++k) ref.item[k] = acc[k] / (s.item + count_item[k]);
    acc.assign(3000, 0.0);
    for (size_t e = 0; e < r.size(); ++e)
      acc[static_cast<size_t>(r.user[e])] += r.value[e] - ref.mu - ref.item[static_cast<size_t>(r.item[e])];
    for (size_t k = 0; k < 3000; ++k) ref.user[k] = acc[k] / (s.user + count_user[k]);
  }
  const int threads = at::get_num_threads();
  for (int t : {1, 2, 3}) {
    at::set_num_threads(t);
    const Biases b = fit_biases(r, 3000, 400, s, 5);
    EXPECT_EQ(b.sweeps, 5);
    EXPECT_EQ(b.mu, ref.mu);
    EXPECT_EQ(b.user, ref.user) << t << " thread(s)";
    EXPECT_EQ(b.item, ref.item) << t << " thread(s)";
  }
  at::set_num_threads(threads);
}

TEST(BiasFit, TheFinalFitReadsTrainingAndValidationAsTheirConcatenation) {
  // fit_final_biases groups both lists in place of the concatenated copy it once made: the
  // same ratings in the same order, so the same fit to the last bit.
  const Dataset all = symgnn::testing::tiny_dataset(40, 30, 500, false, 7);
  Dataset ds = all;
  ds.train = ds.validation = RatingList{};
  for (size_t e = 0; e < all.train.size(); ++e)
    (e % 5 == 0 ? ds.validation : ds.train).add(all.train.user[e], all.train.item[e], all.train.value[e]);
  const Shrinkage s{2, 5};
  const Biases expected =
      fit_biases(symgnn::models::train_and_validation(ds), ds.users.count, ds.items.count, s, 30);
  const Biases b = symgnn::models::fit_final_biases(ds, s, 30);
  EXPECT_EQ(b.sweeps, expected.sweeps);
  EXPECT_EQ(b.mu, expected.mu);
  EXPECT_EQ(b.user, expected.user);
  EXPECT_EQ(b.item, expected.item);
}

TEST(BiasFit, CrossValidationFitsItsFoldsInTurnUntilTheirHeldOutRatingsReachMaxHeld) {
  const RatingList r = random_ratings(40, 30, 600, 12);
  ShrinkageGrid grid;
  grid.users = {0.5, 5};
  grid.items = {1, 20};
  const int64_t folds = 10;
  const ShrinkageChoice all = choose_shrinkage_cv(r, 40, 30, grid, folds, 3);
  EXPECT_EQ(all.how, "10-fold cross-validation on 600 training ratings");
  grid.max_held = 600;  // the ten folds hold 600: all of them
  const ShrinkageChoice capped_above = choose_shrinkage_cv(r, 40, 30, grid, folds, 3);
  EXPECT_EQ(capped_above.table, all.table);
  // The folds as choose_shrinkage_cv deals them (bias_fit.cpp): a Fisher-Yates shuffle, round-robin.
  std::vector<size_t> order(r.size());
  for (size_t e = 0; e < r.size(); ++e) order[e] = e;
  std::mt19937_64 rng(3);
  for (size_t e = r.size(); e > 1; --e) std::swap(order[e - 1], order[rng() % e]);
  std::vector<size_t> fold(r.size());
  for (size_t k = 0; k < r.size(); ++k) fold[order[k]] = k % folds;
  // 60 ratings a fold: 61 held out need two folds, and the figure is theirs pooled.
  grid.max_held = 61;
  const ShrinkageChoice two = choose_shrinkage_cv(r, 40, 30, grid, folds, 3);
  EXPECT_EQ(two.how,
            "2 of the 10 folds of 10-fold cross-validation (baseline.cv_max_held) on 600 training ratings");
  for (size_t a = 0; a < 2; ++a)
    for (size_t b = 0; b < 2; ++b) {
      double se = 0;
      for (size_t f = 0; f < 2; ++f) {
        RatingList rest;
        for (size_t e = 0; e < r.size(); ++e)
          if (fold[e] != f) rest.add(r.user[e], r.item[e], r.value[e]);
        const Biases fit = fit_biases(rest, 40, 30, {grid.users[a], grid.items[b]}, 10000);
        for (size_t e = 0; e < r.size(); ++e)
          if (fold[e] == f) {
            const double d = std::clamp(fit.predict(r.user[e], r.item[e]), 1.0, 5.0) - r.value[e];
            se += d * d;
          }
      }
      EXPECT_NEAR(two.table[a][b], std::sqrt(se / 120.0), 1e-4) << "pair " << a << "," << b;
    }
}

TEST(BiasFit, ALongCrossValidationSaysEachFoldItFits) {
  std::mt19937 rng(5);
  RatingList r;
  for (int e = 0; e < 2003; ++e)
    r.add(static_cast<int64_t>(rng() % 40), static_cast<int64_t>(rng() % 30),
          static_cast<float>(1 + rng() % 5));
  ShrinkageGrid grid;
  grid.users = {1, 5};
  grid.items = {2, 4, 8};
  grid.sweeps = 20;
  grid.max_held = 450;  // folds of 201 and 200 ratings: the first three reach it
  std::vector<std::string> lines;
  CvProgress progress;
  progress.say = [&](const std::string& line) { lines.push_back(line); };
  progress.after_seconds = 0;  // every fold counts as long here
  const ShrinkageChoice said = choose_shrinkage_cv(r, 40, 30, grid, 10, 3, &progress);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0].rfind("bias baseline: fold 1 of 3 fitted (", 0), 0u) << lines[0];
  EXPECT_NE(lines[2].find("fold 3 of 3 fitted"), std::string::npos) << lines[2];
  EXPECT_NE(lines[2].find("; 6 shrinkage pairs a fold)"), std::string::npos) << lines[2];
  // A quick one says nothing, and saying changes no figure.
  lines.clear();
  progress.after_seconds = 3600;
  const ShrinkageChoice quiet = choose_shrinkage_cv(r, 40, 30, grid, 10, 3, &progress);
  EXPECT_TRUE(lines.empty());
  EXPECT_EQ(quiet.table, said.table);
  EXPECT_EQ(quiet.table, choose_shrinkage_cv(r, 40, 30, grid, 10, 3).table);
}

TEST(BiasFit, ValidationChoiceIsTheSmallestValidationError) {
  const RatingList train = random_ratings(10, 8, 40, 5);
  const RatingList val = random_ratings(10, 8, 12, 6);
  ShrinkageGrid grid;
  grid.users = {0.1, 3, 30};
  grid.items = {0.1, 3, 30};
  const ShrinkageChoice c = choose_shrinkage_on(train, val, 10, 8, grid);
  for (size_t a = 0; a < 3; ++a)
    for (size_t b = 0; b < 3; ++b) {
      const Biases fit = fit_biases(train, 10, 8, {grid.users[a], grid.items[b]}, 10000);
      double se = 0;
      for (size_t e = 0; e < val.size(); ++e) {
        const double d = std::clamp(fit.predict(val.user[e], val.item[e]), 1.0, 5.0) - val.value[e];
        se += d * d;
      }
      EXPECT_NEAR(c.table[a][b], std::sqrt(se / static_cast<double>(val.size())), 1e-4);
      EXPECT_LE(c.figure, c.table[a][b]);
    }
}

TEST(BiasFit, MalformedGridsAndTooFewRatingsAreOneLineErrors) {
  EXPECT_THROW(parse_shrinkages("1,x", "baseline.user_shrinkages"), ConfigError);
  EXPECT_THROW(parse_shrinkages("1,-2", "baseline.user_shrinkages"), ConfigError);
  EXPECT_THROW(parse_shrinkages("", "baseline.item_shrinkages"), ConfigError);
  EXPECT_EQ(parse_shrinkages(" 0, 2.5 ", "k"), (std::vector<double>{0, 2.5}));
  RatingList three;
  three.add(0, 0, 1);
  three.add(0, 1, 2);
  three.add(1, 0, 3);
  ShrinkageGrid grid;
  grid.users = grid.items = {1};
  EXPECT_THROW(choose_shrinkage_cv(three, 2, 2, grid, 10, 1), DataError);
}

TEST(BaselineModel, FitsTrainForValidationAndTrainPlusValidationForTest) {
  Dataset ds = symgnn::testing::tiny_dataset(12, 9, 60, false, 9);
  // The last 10 training ratings become validation, 8 more cells the test.
  for (int k = 0; k < 10; ++k) {
    ds.validation.add(ds.train.user.back(), ds.train.item.back(), ds.train.value.back());
    ds.train.user.pop_back();
    ds.train.item.pop_back();
    ds.train.value.pop_back();
  }
  const RatingList extra = random_ratings(12, 9, 8, 99);
  ds.test = extra;
  BaselineConfig cfg;
  cfg.folds = 5;
  const ModelContext ctx = make_context(ds);
  BaselineModel m(cfg, ctx);
  const ClosedFormFit f = m.fit(ds, at::kCPU, [](const std::string&) {});
  const ShrinkageChoice c = choose_shrinkage(ds, cfg);
  const Biases on_train = fit_biases(ds.train, 12, 9, c.best, cfg.sweeps);
  ASSERT_EQ(f.val_predictions.size(), ds.validation.size());
  for (size_t e = 0; e < ds.validation.size(); ++e)
    EXPECT_NEAR(f.val_predictions[e],
                std::clamp(on_train.predict(ds.validation.user[e], ds.validation.item[e]), 1.0, 5.0), 1e-4);
  const Biases final_fit = fit_final_biases(ds, c.best, cfg.sweeps);
  ASSERT_EQ(f.test_predictions.size(), ds.test.size());
  for (size_t e = 0; e < ds.test.size(); ++e)
    EXPECT_NEAR(f.test_predictions[e],
                std::clamp(final_fit.predict(ds.test.user[e], ds.test.item[e]), 1.0, 5.0), 1e-4);
  // rating_items is forward over every item; the figures beside models are the same fit's.
  const at::Tensor users = torch::tensor({0, 5, 11}, torch::kLong);
  const at::Tensor all = m.rating_items(users, 9);
  for (int64_t b = 0; b < 3; ++b)
    for (int64_t i = 0; i < 9; ++i)
      EXPECT_NEAR(all[b][i].item<double>(),
                  m.forward(users.narrow(0, b, 1), torch::tensor({i}, torch::kLong))[0].item<double>(), 1e-5);
  const BaselineFigures figures = baseline_figures(ds, cfg);
  double se = 0;
  for (size_t e = 0; e < ds.test.size(); ++e) se += std::pow(f.test_predictions[e] - ds.test.value[e], 2);
  EXPECT_NEAR(figures.test.at("test_rmse"), std::sqrt(se / static_cast<double>(ds.test.size())), 1e-4);
  EXPECT_EQ(f.details["user_shrinkage"].get<double>(), c.best.user);
  // The run's cross-validation handed down (fit/prepared_data.h) is the one made here.
  const ShrinkageChoice cv = choose_shrinkage_cv(ds, cfg);
  const BaselineFigures handed = baseline_figures(ds, cfg, &cv);
  EXPECT_EQ(handed.test.at("test_rmse"), figures.test.at("test_rmse"));
  EXPECT_EQ(handed.chosen_by, figures.chosen_by);
  // select = validation chooses on validation, whatever cross-validation is at hand.
  BaselineConfig on_validation = cfg;
  on_validation.select = "validation";
  EXPECT_EQ(baseline_figures(ds, on_validation, &cv).chosen_by,
            baseline_figures(ds, on_validation).chosen_by);
  EXPECT_NE(baseline_figures(ds, on_validation, &cv).chosen_by, cv.how);
}

TEST(OffsetModel, AddsTheCrossValidatedBiasesAndTrainsTheModelOnTheResiduals) {
  const Dataset ds = symgnn::testing::tiny_dataset(10, 8, 40, false, 4);
  ModelContext ctx = make_context(ds);
  RunConfig cfg;
  cfg.lowrank.hidden = 4;
  cfg.lowrank.variant = "G";
  cfg.lowrank.decoder = "auto";
  cfg.lowrank.offset = "baseline";
  cfg.baseline.folds = 4;
  // The offset reads the shrinkage its context carries; none is a caller's mistake.
  EXPECT_THROW(make_model(cfg, ctx), std::logic_error);
  give_offset_shrinkage(ctx, cfg);
  ASSERT_TRUE(ctx.bias_shrinkage);
  auto model = make_model(cfg, ctx);
  EXPECT_EQ(model->name(), "lowrank-G+offset");
  // The residuals have no rating levels: auto picked the dot decoder, not the classes.
  const auto params = model->named_parameters();
  EXPECT_FALSE(params.contains("inner.q"));
  // The offset is the baseline of the training ratings under the CV choice.
  const ShrinkageChoice c =
      choose_shrinkage_cv(ds.train, 10, 8, shrinkage_grid(cfg.baseline), cfg.baseline.folds, 1);
  const Biases b = fit_biases(ds.train, 10, 8, c.best, cfg.baseline.sweeps);
  const auto buffers = model->named_buffers();
  for (int64_t u = 0; u < 10; ++u)
    EXPECT_NEAR(buffers["offset.user_bias"][u].item<double>(), b.user[static_cast<size_t>(u)], 1e-5);
  EXPECT_NEAR(buffers["offset.global_mean"].item<double>(), b.mu, 1e-5);
  // forward = offset + the wrapped model; the loss is the MSE of forward and reaches the
  // wrapped model's parameters.
  auto* offset = static_cast<OffsetModel*>(model.get());
  const at::Tensor users = ctx.train_users, items = ctx.train_items, target = ctx.train_values;
  model->eval();
  at::Tensor pred;
  const at::Tensor loss = model->training_loss(users, items, target, &pred);
  const at::Tensor out = model->forward(users, items);
  EXPECT_TRUE(torch::allclose(pred, out, 1e-5, 1e-5));
  EXPECT_NEAR(loss.item<double>(), torch::mse_loss(out, target).item<double>(), 1e-5);
  loss.backward();
  bool any_grad = false;
  for (const auto& p : model->parameters())
    any_grad = any_grad || (p.grad().defined() && p.grad().abs().sum().item<double>() > 0);
  EXPECT_TRUE(any_grad);
  const at::Tensor inner_part = out - offset->offset(users, items);
  EXPECT_TRUE(torch::allclose(
      model->rating_items(users.narrow(0, 0, 1), 8).squeeze(0).index_select(0, items.narrow(0, 0, 1)),
      out.narrow(0, 0, 1), 1e-4, 1e-4));
  EXPECT_GT(inner_part.abs().sum().item<double>(), 0);
}

TEST(OffsetModel, NodesAddedAfterTrainingGetTheBiasesOfTheirOwnRatings) {
  // The trained model knows users 0..9 and items 0..6; users 10, 11 and item 7 come with
  // --new-ratings, their rows zero after the trained state is loaded (infer/trained_model.cpp).
  const Dataset grown = symgnn::testing::tiny_dataset(12, 8, 70, false, 6);
  Dataset trained = symgnn::testing::tiny_dataset(10, 7, 0, false, 6);
  for (size_t e = 0; e < grown.train.size(); ++e)
    if (grown.train.user[e] < 10 && grown.train.item[e] < 7)
      trained.train.add(grown.train.user[e], grown.train.item[e], grown.train.value[e]);
  RunConfig cfg;
  cfg.lowrank.hidden = 4;
  cfg.lowrank.variant = "G";
  cfg.lowrank.offset = "baseline";
  cfg.baseline.folds = 4;
  ModelContext small_ctx = make_context(trained), ctx = make_context(grown);
  give_offset_shrinkage(small_ctx, cfg);
  give_offset_shrinkage(ctx, cfg);
  auto small = make_model(cfg, small_ctx);
  auto big = make_model(cfg, ctx);
  {
    torch::NoGradGuard no_grad;
    const auto from = small->named_buffers();
    for (auto& item : big->named_buffers()) {
      at::Tensor& t = item.value();
      t.zero_();
      at::Tensor corner = t;
      for (int64_t d = 0; d < t.dim(); ++d) corner = corner.narrow(d, 0, from[item.key()].size(d));
      corner.copy_(from[item.key()]);
    }
  }
  auto* offset = static_cast<OffsetModel*>(big.get());
  offset->nodes_added(ctx, 10, 7);
  const auto before = small->named_buffers(), after = big->named_buffers();
  for (int64_t u = 0; u < 10; ++u)
    EXPECT_FLOAT_EQ(after["offset.user_bias"][u].item<float>(), before["offset.user_bias"][u].item<float>());
  Biases fixed;
  fixed.mu = before["offset.global_mean"].item<double>();
  for (int64_t u = 0; u < 10; ++u) fixed.user.push_back(before["offset.user_bias"][u].item<double>());
  for (int64_t i = 0; i < 7; ++i) fixed.item.push_back(before["offset.item_bias"][i].item<double>());
  const Biases expected = extend_biases(grown.train, fixed, 12, 8, offset->shrinkage(), cfg.baseline.sweeps);
  for (int64_t u = 10; u < 12; ++u) {
    EXPECT_NE(after["offset.user_bias"][u].item<double>(), 0.0) << "user " << u;
    EXPECT_NEAR(after["offset.user_bias"][u].item<double>(), expected.user[static_cast<size_t>(u)], 1e-5);
  }
  EXPECT_NEAR(after["offset.item_bias"][7].item<double>(), expected.item[7], 1e-5);
}

TEST(OffsetModel, ConfigRefusesObjectivesAndDecodersItCannotServe) {
  RunConfig cfg;
  cfg.lowrank.offset = "baseline";
  EXPECT_NO_THROW(check_config(cfg));
  cfg.lowrank.decoder = "classes";
  EXPECT_THROW(check_config(cfg), ConfigError);
  cfg.lowrank.decoder = "dot";
  cfg.train.objective = "ranking";
  EXPECT_THROW(check_config(cfg), ConfigError);
}

TEST(BaselineFigures, StandBesideEveryRatingKindWhateverItsTrainingObjective) {
  RunConfig cfg;
  for (const char* kind : {"lowrank", "base", "sylvester"}) {
    cfg.model = kind;
    EXPECT_TRUE(shows_bias_baseline(cfg)) << kind;
  }
  for (const char* kind : {"popularity", "itemknn", "ease", "sylvester_binary"}) {  // ranking kinds
    cfg.model = kind;
    EXPECT_FALSE(shows_bias_baseline(cfg)) << kind;
  }
  cfg.model = "lowrank";
  cfg.train.objective = "ranking";  // its bias head still predicts ratings, and train prints their RMSE
  EXPECT_TRUE(shows_bias_baseline(cfg));
  cfg.model = "baseline";  // not beside itself
  EXPECT_FALSE(shows_bias_baseline(cfg));
}
