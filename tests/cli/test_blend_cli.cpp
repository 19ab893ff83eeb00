// `symgnn blend` end to end: directories made here, Sylvester runs written by
// `symgnn train --model sylvester --out`, exit codes and the files a blend writes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>

#include "common/test_support.h"
#include "data/prediction_file.h"

using symgnn::data::PredictionRow;
using symgnn::testing::run_command;
using symgnn::testing::run_symgnn;
using symgnn::testing::scratch_dir;
using symgnn::testing::symgnn_binary;
using symgnn::testing::write_file;

namespace {

nlohmann::json read_json(const std::string& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

/// A model directory whose predictions are the truth plus seeded Gaussian noise of `sd`
/// (ratings 1..5, 400 validation and 400 test pairs).
std::string noisy_model(const std::string& root, const std::string& name, unsigned seed, double sd) {
  const std::string dir = root + "/" + name;
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> noise(0.0, sd);
  for (const char* split : {"val", "test"}) {
    std::vector<PredictionRow> rows;
    for (int r = 0; r < 400; ++r) {
      const double t = 1 + r % 5;
      rows.push_back({std::string(split) + "u" + std::to_string(r), "i" + std::to_string(r % 13), t,
                      std::clamp(t + noise(rng), 1.0, 5.0), 0});
    }
    symgnn::data::write_predictions_csv(dir + "/predictions/" + split + ".csv", rows);
  }
  write_file(dir, "metrics.json", R"({"dataset": {"rating_min": 1, "rating_max": 5}})");
  return dir;
}

}  // namespace

TEST(BlendCli, BeatsTheBestSingleModelAndWritesABlendableDirectory) {
  const auto root = scratch_dir("blend_cli");
  const auto a = noisy_model(root, "a", 1, 0.6), b = noisy_model(root, "b", 2, 0.7);
  std::string out;
  ASSERT_EQ(run_symgnn("blend --models " + a + " " + b + " --out " + root + "/ab --json " + root + "/ab.json",
                       &out),
            0)
      << out;
  EXPECT_NE(out.find("best single model by validation: " + a), std::string::npos) << out;
  const auto j = read_json(root + "/ab/blend.json");
  EXPECT_EQ(j, read_json(root + "/ab.json"));
  const double best_single = j["models"][0]["test_rmse"];
  EXPECT_LE(j["test_rmse"].get<double>(), best_single);
  EXPECT_LE(j["test_rmse"].get<double>(), j["models"][1]["test_rmse"].get<double>());
  EXPECT_TRUE(j["val_rmse_in_sample"].get<bool>());
  for (const auto& m : j["models"]) EXPECT_GT(m["weight"].get<double>(), 0.2);
  EXPECT_EQ(symgnn::data::read_predictions_csv(root + "/ab/predictions/test.csv").size(), 400u);

  // A blend directory is a model directory: blend it again, with an intercept.
  const auto c = noisy_model(root, "c", 3, 0.9);
  ASSERT_EQ(run_symgnn("blend --intercept --models " + root + "/ab " + c, &out), 0) << out;
  EXPECT_NE(out.find("(intercept)"), std::string::npos) << out;
  EXPECT_NE(out.find("warning: " + root + "/ab is a blend"), std::string::npos) << out;
}

TEST(BlendCli, BadInputExitsTwoNamingTheFile) {
  const auto root = scratch_dir("blend_cli_bad");
  const auto a = noisy_model(root, "a", 1, 0.5), b = noisy_model(root, "b", 2, 0.5);
  std::string out;
  auto expect_two = [&](const std::string& args, const std::string& named) {
    EXPECT_EQ(run_symgnn("blend " + args, &out), 2) << args << "\n" << out;
    EXPECT_NE(out.find(named), std::string::npos) << args << "\n" << out;
    EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1) << out;
  };
  expect_two("--models " + a, "at least 2");
  // A model blended with itself, by another name or as a copy, would only look like a blend.
  expect_two("--models " + a + " " + a + "/.", "are the same model directory");
  std::filesystem::copy(a, root + "/copy", std::filesystem::copy_options::recursive);
  expect_two("--models " + a + " " + root + "/copy", "have the same validation predictions");
  expect_two("--models " + a + " " + root + "/missing", root + "/missing/metrics.json: cannot open");
  // An edited file no longer matches the checksum symgnn listed for it ...
  write_file(b + "/predictions", "test.csv", "user,item,rating,prediction\nx,y,3,3\nx,y,3,3\n");
  expect_two("--models " + a + " " + b, b + "/predictions/test.csv: checksum differs");
  // ... and without the list, it is read as any hand-made file is.
  std::filesystem::remove(b + "/predictions/checksums.sha256");
  write_file(b + "/predictions", "test.csv", "user,item,rating,prediction\nx,y,3,3\nx,y,3,3\n");
  expect_two("--models " + a + " " + b, b + "/predictions/test.csv:3: duplicate");
  write_file(b + "/predictions", "test.csv", "user,item,rating,prediction\nx,y,3,3\n");
  expect_two("--models " + a + " " + b, "differ: pair ('testu0', 'i0') of " + a + "/predictions/test.csv:2");
  EXPECT_NE(run_symgnn("blend", &out), 0);  // --models is required
}

TEST(BlendCli, BlendsTwoSylvesterRunsOnSynthetic) {
  const auto root = scratch_dir("blend_cli_sylvester");
  std::string out;
  for (const char* alpha : {"0.5", "0.9"})
    ASSERT_EQ(
        run_symgnn(std::string("train --quiet --model sylvester --data synthetic --set sylvester.alphas=") +
                       alpha + " --out " + root + "/sylv" + alpha,
                   &out),
        0)
        << out;
  const std::string dir = root + "/sylv0.5";
  for (const char* file : {"config.txt", "metrics.json", "predictions/val.csv", "predictions/test.csv"})
    EXPECT_TRUE(std::ifstream(dir + "/" + file).good()) << file;
  // The files agree with the metrics: the test predictions score the reported test RMSE.
  const auto metrics = read_json(dir + "/metrics.json");
  const auto test = symgnn::data::read_predictions_csv(dir + "/predictions/test.csv");
  ASSERT_EQ(test.size(), metrics["dataset"]["test"].get<size_t>());
  double se = 0;
  for (const auto& r : test) se += (r.prediction - r.rating) * (r.prediction - r.rating);
  EXPECT_NEAR(std::sqrt(se / static_cast<double>(test.size())), metrics["test_rmse"].get<double>(), 1e-6);
  const auto val = symgnn::data::read_predictions_csv(dir + "/predictions/val.csv");
  ASSERT_EQ(val.size(), metrics["dataset"]["validation"].get<size_t>());
  se = 0;
  for (const auto& r : val) se += (r.prediction - r.rating) * (r.prediction - r.rating);
  EXPECT_NEAR(std::sqrt(se / static_cast<double>(val.size())), metrics["val_rmse"].get<double>(), 1e-6);

  ASSERT_EQ(
      run_symgnn("blend --models " + root + "/sylv0.5 " + root + "/sylv0.9 --json " + root + "/b.json", &out),
      0)
      << out;
  const auto j = read_json(root + "/b.json");
  EXPECT_LE(
      j["val_rmse"].get<double>(),
      std::min(j["models"][0]["val_rmse"].get<double>(), j["models"][1]["val_rmse"].get<double>()) + 1e-12);
}

// docs/reliability.md, "No silent wrong answer": the ranking blend reads no predictions to
// compare, so a copy of one model is found by its model.pt (the same sealed bytes).
TEST(BlendCli, TheRankingBlendRefusesACopyOfOneModel) {
  const auto root = scratch_dir("blend_cli_ranking_copy");
  std::string out;
  ASSERT_EQ(run_symgnn("train --model ease --quiet --no-compare --out " + root + "/ease", &out), 0) << out;
  std::filesystem::copy(root + "/ease", root + "/copy", std::filesystem::copy_options::recursive);
  EXPECT_EQ(run_symgnn("blend --metric ndcg@10 --models " + root + "/ease " + root + "/copy", &out), 2)
      << out;
  EXPECT_NE(out.find("hold the same model.pt"), std::string::npos) << out;
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1) << out;
}
