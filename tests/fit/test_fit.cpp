// symgnn::fit (symgnn/fit.h) against the outputs of the code before it: the fixtures in
// tests/fixtures/fit_v0/ were written by `symgnn train` at 0c1dbf7 (make.sh there says how),
// one small run of each kind on the synthetic data with one thread. fit() must give the
// same predictions/test.csv (ids, count and order exactly; each value within 1e-5, since
// float32 sums differ in their last bits between CPUs and SIMD widths: a CPU model name
// such as "AMD EPYC" does not pin them) and the same metrics.json values (1e-5 relative),
// and the old model directory must load and predict as it did.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "common/test_support.h"
#include "runtime/runtime.h"
#include "symgnn/error.h"
#include "symgnn/fit.h"
#include "symgnn/model_kinds.h"
#include "symgnn/progress.h"
#include "symgnn/recommend.h"
#include "symgnn/trained_model.h"

namespace fs = std::filesystem;
namespace st = symgnn::testing;

namespace {

const std::string kFixtures = std::string(SYMGNN_SOURCE_DIR) + "/tests/fixtures/fit_v0";

/// The rows of a predictions CSV: (user,item) text and the predicted value.
std::vector<std::pair<std::string, double>> prediction_rows(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::pair<std::string, double>> rows;
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    const auto last = line.rfind(',');
    rows.emplace_back(line.substr(0, last), std::stod(line.substr(last + 1)));
  }
  return rows;
}

/// Every number of `expected` (recursively; strings and the run's timings aside) equals the
/// same key of `actual` within `tol` relative.
void expect_same_numbers(const nlohmann::json& expected, const nlohmann::json& actual, const std::string& at,
                         double tol) {
  static const std::vector<std::string> timings = {
      "seconds", "train_seconds", "seconds_per_epoch", "peak_memory_bytes", "version", "config", "dataset"};
  if (expected.is_object()) {
    for (const auto& [key, value] : expected.items()) {
      if (std::find(timings.begin(), timings.end(), key) != timings.end()) continue;
      ASSERT_TRUE(actual.is_object() && actual.contains(key)) << at << "." << key << " missing";
      expect_same_numbers(value, actual[key], at + "." + key, tol);
    }
  } else if (expected.is_array()) {
    ASSERT_TRUE(actual.is_array() && actual.size() == expected.size()) << at;
    for (size_t k = 0; k < expected.size(); ++k)
      expect_same_numbers(expected[k], actual[k], at + "[" + std::to_string(k) + "]", tol);
  } else if (expected.is_number()) {
    ASSERT_TRUE(actual.is_number()) << at;
    const double e = expected.get<double>(), a = actual.get<double>();
    EXPECT_LE(std::fabs(e - a), tol * std::max(1.0, std::fabs(e))) << at << ": " << e << " vs " << a;
  } else if (expected.is_null()) {
    EXPECT_TRUE(actual.is_null()) << at;
  }
}

class FitFixture : public ::testing::TestWithParam<const char*> {};

TEST_P(FitFixture, GivesThePredictionsAndMetricsOfTheCodeBeforeIt) {
  const std::string name = GetParam(), fixture = kFixtures + "/" + name;
  symgnn::RunConfig cfg;
  symgnn::load_config_text(cfg, st::read_file(fixture + "/config.txt"), fixture + "/config.txt");
  // The fixtures predate train.ranker: their rankings are the models' own.
  cfg.train.ranker = "none";
  // and lowrank.encoder_kernels: the encoder's runs drew LibTorch's dropout masks.
  cfg.lowrank.encoder_kernels = cfg.base.encoder_kernels = "composite";
  symgnn::runtime::set_compute_threads(1);
  symgnn::FitOptions fo;
  fo.out_dir = st::scratch_dir("fit_" + name) + "/run";
  const symgnn::FitResult r = symgnn::fit(cfg, fo);

  const auto want = prediction_rows(fixture + "/test.csv");
  const auto got = prediction_rows(fo.out_dir + "/predictions/test.csv");
  ASSERT_EQ(got.size(), want.size());
  for (size_t k = 0; k < want.size(); ++k) {
    ASSERT_EQ(got[k].first, want[k].first) << "row " << k;
    EXPECT_NEAR(got[k].second, want[k].second, 1e-5) << "row " << k;
  }
  const auto expected = nlohmann::json::parse(st::read_file(fixture + "/metrics.json"));
  const auto actual = nlohmann::json::parse(st::read_file(fo.out_dir + "/metrics.json"));
  // Sums taken in another order, or by other SIMD kernels, differ in the last bits at most.
  expect_same_numbers(expected, actual, name, 1e-5);
  // The result in memory is the file's.
  EXPECT_EQ(r.metrics.to_json()["test_rmse"], actual["test_rmse"]);
  ASSERT_NE(r.model, nullptr);
  EXPECT_EQ(r.model->name(), actual["model"].get<std::string>());
}

INSTANTIATE_TEST_SUITE_P(EveryKind, FitFixture,
                         ::testing::Values("lowrank", "base", "sylvester", "recommended"));

TEST(FitFixture, OldModelDirectoryLoadsAndPredictsAsItDid) {
  const std::string dir = st::scratch_dir("fit_old_dir") + "/model";
  fs::copy(kFixtures + "/model_dir", dir, fs::copy_options::recursive);
  const symgnn::TrainedModel m = symgnn::TrainedModel::load(dir);
  const symgnn::RatingList& test = m.dataset().test;
  const std::vector<float> p = m.predict(test.user, test.item);
  const auto want = prediction_rows(kFixtures + "/model_dir/predictions/test.csv");
  ASSERT_EQ(p.size(), want.size());
  for (size_t k = 0; k < p.size(); ++k) EXPECT_NEAR(p[k], want[k].second, 1e-5) << k;
  // Its metrics.json (no metric names yet) reads as today's.
  const symgnn::RunMetrics metrics = symgnn::RunMetrics::read(dir);
  EXPECT_GT(metrics.mean("test_rmse"), 0.0);
  EXPECT_TRUE(std::isfinite(metrics.mean("val_rmse")));
  EXPECT_EQ(metrics.runs.size(), 1u);
  // And its checkpoint resumes: the finished run continues to the same model.
  symgnn::RunConfig cfg;
  symgnn::load_config_text(cfg, st::read_file(dir + "/config.txt"), dir + "/config.txt");
  symgnn::FitOptions fo;
  fo.out_dir = dir;
  fo.resume = true;
  const symgnn::FitResult r = symgnn::fit(cfg, fo);
  EXPECT_NEAR(r.metrics.mean("test_rmse"), metrics.mean("test_rmse"), 1e-6);
}

TEST(Fit, PopularityKindIsTheEvaluatePopularityBaseline) {
  symgnn::RunConfig cfg = symgnn::preset_config("paper");
  cfg.model = "popularity";
  cfg.data.synthetic_users = 60;
  cfg.data.synthetic_items = 40;
  cfg.data.synthetic_density = 0.2;
  symgnn::FitOptions fo;
  fo.out_dir = st::scratch_dir("fit_popularity") + "/run";
  const symgnn::FitResult r = symgnn::fit(cfg, fo);
  EXPECT_EQ(r.model->name(), "popularity");
  const symgnn::TrainedModel m = symgnn::TrainedModel::load(fo.out_dir);
  symgnn::EvaluateOptions eo;
  // evaluate ranks the kind's score rows user by user; evaluate_popularity ranks the shared
  // row once and takes each user's first unrated items: the same lists, so every figure is
  // the same, up to the whole catalogue (40: past every user's candidates).
  eo.ks = {1, 5, 10, 40};
  const symgnn::Evaluation own = symgnn::evaluate(m, eo), baseline = symgnn::evaluate_popularity(m, eo);
  EXPECT_DOUBLE_EQ(own.errors.at("rmse"), baseline.errors.at("rmse"));
  EXPECT_DOUBLE_EQ(own.errors.at("mae"), baseline.errors.at("mae"));
  EXPECT_EQ(own.ranking.users_evaluated, baseline.ranking.users_evaluated);
  ASSERT_EQ(own.ranking.at_k.size(), 4u);
  ASSERT_EQ(baseline.beyond.size(), own.beyond.size());
  for (size_t k = 0; k < own.ranking.at_k.size(); ++k) {
    for (const char* metric : {"precision", "recall", "ndcg", "map", "hit_rate", "coverage"})
      EXPECT_DOUBLE_EQ(symgnn::eval::metric_value(own.ranking.at_k[k], metric),
                       symgnn::eval::metric_value(baseline.ranking.at_k[k], metric))
          << metric << " at k " << eo.ks[k];
    for (const std::string& figure : symgnn::eval::beyond_accuracy_names())
      EXPECT_DOUBLE_EQ(symgnn::eval::beyond_accuracy_value(own.beyond[k], figure),
                       symgnn::eval::beyond_accuracy_value(baseline.beyond[k], figure))
          << figure << " at k " << eo.ks[k];
  }
  // The metrics file holds what the run printed and the model predicts what it wrote.
  const symgnn::RunMetrics read = symgnn::RunMetrics::read(fo.out_dir);
  EXPECT_DOUBLE_EQ(read.mean("test_rmse"), own.errors.at("rmse"));
  EXPECT_EQ(read.runs.size(), 1u);
  // The items ranked first are the most rated ones, for every user.
  const auto recs = symgnn::recommend(m, {0, 1}, {3, false});
  ASSERT_EQ(recs.size(), 2u);
}

TEST(Fit, KeepsTheFittedModelInMemoryWithoutAnOutputFolder) {
  symgnn::RunConfig cfg = symgnn::preset_config("paper");
  cfg.data.synthetic_users = 40;
  cfg.data.synthetic_items = 30;
  cfg.train.epochs = 3;
  cfg.lowrank.hidden = 8;
  symgnn::FitOptions fo;
  const symgnn::FitResult r = symgnn::fit(cfg, fo);
  ASSERT_NE(r.model, nullptr);
  const symgnn::RatingList& test = r.model->dataset().test;
  const std::vector<float> p = r.model->predict(test.user, test.item);
  double se = 0;
  for (size_t k = 0; k < p.size(); ++k) se += (p[k] - test.value[k]) * (p[k] - test.value[k]);
  // The model in memory is the one the run scored.
  EXPECT_NEAR(std::sqrt(se / static_cast<double>(p.size())), r.metrics.mean("test_rmse"), 1e-5);
  EXPECT_TRUE(r.metrics.evaluation.is_null());  // ranked only where a model directory is written
}

TEST(Fit, ReportsToItsCallbacksAndPrintsNothing) {
  symgnn::RunConfig cfg = symgnn::preset_config("paper");
  cfg.data.synthetic_users = 40;
  cfg.data.synthetic_items = 30;
  cfg.train.epochs = 4;
  cfg.train.runs = 2;
  cfg.lowrank.hidden = 8;
  symgnn::FitOptions fo;
  fo.out_dir = st::scratch_dir("fit_callbacks") + "/run";
  std::vector<symgnn::ProgressEvent> events;
  std::vector<std::string> lines;
  fo.on_epoch = [&](const symgnn::ProgressEvent& e) { events.push_back(e); };
  fo.log = [&](const std::string& line) { lines.push_back(line); };
  ::testing::internal::CaptureStdout();
  ::testing::internal::CaptureStderr();
  const symgnn::FitResult r = symgnn::fit(cfg, fo);
  const std::string out = ::testing::internal::GetCapturedStdout(),
                    err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(out, "");
  EXPECT_EQ(err, "");
  // Every epoch of both runs, in order, with its run's place.
  ASSERT_EQ(events.size(), 8u);
  for (size_t k = 0; k < events.size(); ++k) {
    EXPECT_EQ(events[k].run, static_cast<int64_t>(k / 4));
    EXPECT_EQ(events[k].runs, 2);
    EXPECT_EQ(events[k].epoch, static_cast<int64_t>(k % 4) + 1);
    EXPECT_EQ(events[k].max_epochs, 4);
    EXPECT_EQ(events[k].select, "val_rmse");
    EXPECT_GE(events[k].seconds, 0.0);
  }
  // The lines for people: the data's, and each run's summary.
  int run_summaries = 0;
  for (const std::string& l : lines) run_summaries += l.find("test RMSE") != std::string::npos;
  EXPECT_GE(run_summaries, 2);
  EXPECT_FALSE(r.summary.empty());
}

TEST(Fit, RefusesWhatAKindCannotDo) {
  symgnn::RunConfig cfg = symgnn::preset_config("paper");
  cfg.model = "popularity";
  cfg.data.synthetic_users = 30;
  cfg.data.synthetic_items = 20;
  symgnn::FitOptions fo;
  fo.out_dir = st::scratch_dir("fit_refuse") + "/run";
  symgnn::fit(cfg, fo);
  // Popularity gives every user the same list: a new user gets it, their rated item left out.
  const std::string ratings = st::write_file(st::scratch_dir("fit_refuse_new"), "new.csv", "newcomer,1,4\n");
  const symgnn::TrainedModel popular = symgnn::TrainedModel::load(fo.out_dir, "cpu", ratings);
  const std::vector<float> row = popular.score_all_items({popular.user_index("newcomer")});
  const std::vector<float> trained = popular.score_all_items({0});
  EXPECT_EQ(row, trained);
  // The bias baseline's biases are fitted to the training users: new users are refused,
  // naming the kinds that place them.
  cfg.model = "baseline";
  fo.out_dir = st::scratch_dir("fit_refuse_baseline") + "/run";
  symgnn::fit(cfg, fo);
  try {
    symgnn::TrainedModel::load(fo.out_dir, "cpu", ratings);
    FAIL() << "new ratings accepted";
  } catch (const symgnn::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot place users or items"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("ease, elsa"), std::string::npos) << e.what();
  }
  // An unknown kind names the table's choices.
  cfg.model = "svd";
  try {
    symgnn::fit(cfg, {});
    FAIL() << "svd accepted";
  } catch (const symgnn::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find(symgnn::model_kind_choices()), std::string::npos) << e.what();
  }
  // A folder already holding a run is refused without overwrite.
  cfg.model = "baseline";
  EXPECT_THROW(symgnn::fit(cfg, fo), symgnn::UsageError);
  fo.overwrite = true;
  EXPECT_NO_THROW(symgnn::fit(cfg, fo));
}

}  // namespace
