// Blending (blend/blend.h, blend/model_predictions.h): known weights are recovered, the
// test split never moves them, files are aligned by pair, and mismatches are named.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "blend/blend.h"
#include "blend/model_predictions.h"
#include "common/test_support.h"
#include "data/prediction_file.h"
#include "symgnn/error.h"

using symgnn::blend::blend_models;
using symgnn::blend::ModelPredictions;
using symgnn::data::PredictionRow;

namespace {

/// A model whose predictions are f(truth, row) on n validation and n test rows.
template <class F>
ModelPredictions model(const std::string& name, size_t n, F f, double lo = -100, double hi = 100) {
  ModelPredictions m;
  m.dir = name;
  m.val_file = name + "/predictions/val.csv";
  m.test_file = name + "/predictions/test.csv";
  m.rating_min = lo;
  m.rating_max = hi;
  for (size_t r = 0; r < n; ++r) {
    const double t = static_cast<double>(r % 5) + 1.0;
    m.val.push_back({"u" + std::to_string(r), "i" + std::to_string(r % 7), t, f(t, r, false), 0});
    m.test.push_back({"v" + std::to_string(r), "i" + std::to_string(r % 7), t, f(t, r, true), 0});
  }
  return m;
}

/// The DataError message of blending, or "".
std::string error_of(const std::vector<ModelPredictions>& models) {
  try {
    blend_models(models, false);
  } catch (const symgnn::Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(Blend, RecoversKnownWeightsExactly) {
  // truth = 0.7 a + 0.3 b exactly, with a and b far from the truth on their own.
  auto a = model("a", 200, [](double t, size_t r, bool) { return t + std::sin(static_cast<double>(r)); });
  auto b = model("b", 200,
                 [](double t, size_t r, bool) { return t - 0.7 / 0.3 * std::sin(static_cast<double>(r)); });
  const auto res = blend_models({a, b}, false);
  EXPECT_NEAR(res.models[0].weight, 0.7, 1e-10);
  EXPECT_NEAR(res.models[1].weight, 0.3, 1e-10);
  EXPECT_NEAR(res.figures.at("val_rmse"), 0.0, 1e-10);
  EXPECT_NEAR(res.figures.at("test_rmse"), 0.0, 1e-10);
  EXPECT_GT(res.models[0].figures.at("test_rmse"), 0.5);
  EXPECT_EQ(res.best_single, 0u);  // a's errors are smaller than b's
}

TEST(Blend, InterceptIsFittedUnconstrained) {
  auto a = model("a", 100, [](double t, size_t, bool) { return 2.0 * t + 3.0; });
  auto b = model("b", 100, [](double t, size_t r, bool) { return t + std::cos(static_cast<double>(r)); });
  const auto res = blend_models({a, b}, true);
  EXPECT_NEAR(res.weights.w[0], 0.5, 1e-10);
  EXPECT_NEAR(res.weights.w[1], 0.0, 1e-10);
  EXPECT_NEAR(res.weights.intercept, -1.5, 1e-10);
  EXPECT_NEAR(res.figures.at("test_rmse"), 0.0, 1e-10);
}

TEST(Blend, TestSplitNeverMovesTheWeights) {
  auto noisy = [](unsigned seed) {
    return [seed](double t, size_t r, bool) {
      std::mt19937_64 rng(seed * 100003 + r);
      return t + std::normal_distribution<double>(0.0, 0.5)(rng);
    };
  };
  auto a = model("a", 300, noisy(1)), b = model("b", 300, noisy(2));
  const auto before = blend_models({a, b}, false);
  for (auto* m : {&a, &b})
    for (auto& row : m->test) row.prediction = -row.prediction + 17.0;
  const auto after = blend_models({a, b}, false);
  EXPECT_EQ(before.weights.w, after.weights.w);
  EXPECT_NE(before.figures.at("test_rmse"), after.figures.at("test_rmse"));
}

TEST(Blend, AlignsByPairNotLineOrderAndClips) {
  auto a = model(
      "a", 50, [](double t, size_t, bool) { return t + 0.2; }, 1.0, 5.0);
  auto b = model(
      "b", 50, [](double t, size_t, bool) { return t - 0.2; }, 1.0, 5.0);
  std::reverse(b.val.begin(), b.val.end());
  std::reverse(b.test.begin(), b.test.end());
  const auto res = blend_models({a, b}, false);
  EXPECT_NEAR(res.weights.w[0], 0.5, 1e-9);
  EXPECT_NEAR(res.weights.w[1], 0.5, 1e-9);
  for (double p : res.test_prediction) {
    EXPECT_GE(p, 1.0);
    EXPECT_LE(p, 5.0);
  }
  EXPECT_NEAR(res.figures.at("test_rmse"), 0.0, 1e-9);
}

TEST(Blend, MismatchesNameBothFilesAndThePair) {
  auto f = [](double t, size_t, bool) { return t; };
  const auto a = model("a", 10, f);
  auto b = model("b", 10, f);
  b.val[3].user = "other";
  std::string e = error_of({a, b});
  EXPECT_NE(e.find("b/predictions/val.csv and a/predictions/val.csv differ: pair ('u3', 'i3')"),
            std::string::npos)
      << e;
  b = model("b", 10, f);
  b.test[4].rating = 9;
  e = error_of({a, b});
  EXPECT_NE(e.find("pair ('v4', 'i4') has rating 9"), std::string::npos) << e;
  b = model("b", 11, f);  // one pair more than a
  e = error_of({a, b});
  EXPECT_NE(e.find("pair ('u10', 'i3') of b/predictions/val.csv"), std::string::npos) << e;
  EXPECT_NE(e.find("is missing from a/predictions/val.csv"), std::string::npos) << e;
  b = model("b", 10, f, -100, 50);
  e = error_of({a, b});
  EXPECT_NE(e.find("b/metrics.json: rating range differs from that of a/metrics.json"), std::string::npos)
      << e;
  e = error_of({a});
  EXPECT_NE(e.find("at least 2"), std::string::npos) << e;
  auto empty_a = a, empty_b = model("b", 10, f);
  empty_a.val.clear();
  empty_b.val.clear();
  e = error_of({empty_a, empty_b});
  EXPECT_NE(e.find("a/predictions/val.csv: no validation ratings"), std::string::npos) << e;
}

TEST(Blend, LoadsAModelDirectoryAndNamesBadFiles) {
  const auto dir = symgnn::testing::scratch_dir("blend_load");
  const std::string h = "user,item,rating,prediction\n";
  auto expect_error = [&](const std::string& what) {
    try {
      symgnn::blend::load_model_predictions(dir);
      ADD_FAILURE() << "no error, expected " << what;
    } catch (const symgnn::DataError& e) {
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
  };
  expect_error(dir + "/metrics.json: cannot open");
  symgnn::testing::write_file(dir, "metrics.json", "{\"dataset\": ");
  expect_error(dir + "/metrics.json: not valid JSON");
  symgnn::testing::write_file(dir, "metrics.json", "{\"dataset\": {\"rating_min\": 1}}");
  expect_error(dir + "/metrics.json: no number at dataset.rating_max");
  symgnn::testing::write_file(dir, "metrics.json", "{\"dataset\": {\"rating_min\": 1, \"rating_max\": 5}}");
  expect_error(dir + "/predictions/val.csv: cannot open");
  symgnn::testing::write_file(dir + "/predictions", "val.csv", h + "a,b,4,3.5\n");
  symgnn::testing::write_file(dir + "/predictions", "test.csv", h + "a,c,4,3.5\na,c,2,2\n");
  expect_error(dir + "/predictions/test.csv:3: duplicate");
  symgnn::testing::write_file(dir + "/predictions", "test.csv", h + "a,c,4,3.5\n");
  const auto m = symgnn::blend::load_model_predictions(dir);
  EXPECT_EQ(m.rating_min, 1.0);
  EXPECT_EQ(m.rating_max, 5.0);
  EXPECT_EQ(m.val.size(), 1u);
  EXPECT_EQ(m.dataset["rating_max"], 5);
}
