// `symgnn blend --metric ndcg@10` (src/ranking_blend/ranking_blend.h): the validation scores
// come from models that did not learn from validation (their NDCG equals what the fits
// recorded on validation), a model alone scores on test what evaluate measures, and the
// chosen weights are the best of the grid on validation.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "common/test_support.h"
#include "ranking_blend/ranking_blend.h"
#include "symgnn/error.h"
#include "symgnn/fit.h"

namespace st = symgnn::testing;

namespace {

symgnn::RunConfig small_config(const std::string& model) {
  symgnn::RunConfig cfg = symgnn::preset_config("paper");
  cfg.model = model;
  cfg.data.synthetic_users = 60;
  cfg.data.synthetic_items = 40;
  cfg.data.synthetic_density = 0.25;
  cfg.data.val_fraction = 0.15;
  return cfg;
}

symgnn::FitResult fit_into(const symgnn::RunConfig& cfg, const std::string& dir) {
  symgnn::FitOptions fo;
  fo.out_dir = dir;
  return symgnn::fit(cfg, fo);
}

struct Dirs {
  std::string ease, joint;
  symgnn::RunMetrics ease_metrics, joint_metrics;
};

const Dirs& fitted() {
  static const Dirs dirs = [] {
    Dirs d;
    const std::string root = st::scratch_dir("ranking_blend");
    symgnn::RunConfig ease = small_config("ease");
    ease.ease.lambdas = "2,20,200";
    d.ease = root + "/ease";
    d.ease_metrics = fit_into(ease, d.ease).metrics;
    symgnn::RunConfig joint = small_config("lowrank");
    joint.train.objective = "joint";
    joint.train.epochs = 8;
    joint.train.protocol = "retrain";
    joint.lowrank.hidden = 8;
    d.joint = root + "/joint";
    d.joint_metrics = fit_into(joint, d.joint).metrics;
    return d;
  }();
  return dirs;
}

}  // namespace

TEST(RankingBlend, ValidationScoresComeFromModelsThatDidNotLearnFromValidation) {
  const Dirs& d = fitted();
  const auto r = symgnn::ranking_blend::blend_for_ranking({d.ease, d.joint}, {});
  ASSERT_EQ(r.models.size(), 2u);
  // EASE refit on training alone at its chosen lambda scores on validation what its fit
  // recorded for that lambda; the joint model's selection phase what the trainer recorded
  // at its selected epoch.
  EXPECT_NEAR(r.models[0].val_ndcg, d.ease_metrics.mean("val_ndcg@10"), 1e-5);
  EXPECT_NEAR(r.models[1].val_ndcg, d.joint_metrics.mean("val_ndcg@10"), 1e-5);
  // Alone on test, each ranks as its saved model does (standardising keeps a user's order).
  EXPECT_NEAR(r.models[0].test_ndcg, d.ease_metrics.mean("test_ndcg@10"), 1e-5);
  EXPECT_NEAR(r.models[1].test_ndcg, d.joint_metrics.ranking_at_10["ndcg"].get<double>(), 1e-5)
      << d.joint_metrics.ranking_at_10.dump();
}

TEST(RankingBlend, WeightsAreTheGridsBestOnValidation) {
  const Dirs& d = fitted();
  symgnn::ranking_blend::RankingBlendOptions o;
  o.step = 0.25;
  const auto r = symgnn::ranking_blend::blend_for_ranking({d.ease, d.joint}, o);
  EXPECT_EQ(r.grid_points, 5);
  EXPECT_NEAR(r.models[0].weight + r.models[1].weight, 1.0, 1e-12);
  EXPECT_GE(r.val_ndcg + 1e-12, r.models[0].val_ndcg);
  EXPECT_GE(r.val_ndcg + 1e-12, r.models[1].val_ndcg);
  const double finer = symgnn::ranking_blend::blend_for_ranking({d.ease, d.joint}, {}).val_ndcg;
  EXPECT_GE(finer + 1e-12, r.val_ndcg) << "a finer grid holds the coarse one's points";
  const nlohmann::json j = symgnn::ranking_blend::ranking_blend_json(r);
  EXPECT_EQ(j["models"].size(), 2u);
  EXPECT_EQ(j["metric"], "ndcg@10");
}

TEST(RankingBlend, Refusals) {
  const Dirs& d = fitted();
  EXPECT_THROW(symgnn::ranking_blend::blend_for_ranking({d.ease}, {}), symgnn::UsageError);
  symgnn::ranking_blend::RankingBlendOptions o;
  o.step = 0.3;
  EXPECT_THROW(symgnn::ranking_blend::blend_for_ranking({d.ease, d.joint}, o), symgnn::UsageError);
  // Other data: a model of a different synthetic set.
  symgnn::RunConfig other = small_config("ease");
  other.data.synthetic_users = 70;
  const std::string dir = st::scratch_dir("ranking_blend_other") + "/ease";
  fit_into(other, dir);
  EXPECT_THROW(symgnn::ranking_blend::blend_for_ranking({d.ease, dir}, {}), symgnn::DataError);
  EXPECT_THROW(symgnn::ranking_blend::blend_for_ranking({d.ease, dir + "/absent"}, {}), symgnn::DataError);
  // A kind whose choice the blend cannot rebuild says so (RatingModel::pin_chosen_setting).
  const std::string sylvester = st::scratch_dir("ranking_blend_sylvester") + "/sylvester";
  fit_into(small_config("sylvester"), sylvester);
  try {
    symgnn::ranking_blend::blend_for_ranking({d.ease, sylvester}, {});
    FAIL() << "blended the Sylv. baseline";
  } catch (const symgnn::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("model = sylvester cannot be blended"), std::string::npos)
        << e.what();
  }
}

TEST(RankingBlend, BlendsEachRunOfATrainedModel) {
  const Dirs& d = fitted();
  symgnn::RunConfig joint = small_config("lowrank");
  joint.train.objective = "joint";
  joint.train.epochs = 6;
  joint.train.runs = 2;
  joint.train.protocol = "retrain";
  joint.lowrank.hidden = 8;
  const std::string dir = st::scratch_dir("ranking_blend_runs") + "/joint";
  const symgnn::RunMetrics m = fit_into(joint, dir).metrics;
  ASSERT_EQ(m.runs.size(), 2u);
  std::vector<symgnn::ranking_blend::RankingBlendResult> runs;
  for (const int64_t k : {0, 1}) {
    symgnn::ranking_blend::RankingBlendOptions o;
    o.run = k;
    runs.push_back(symgnn::ranking_blend::blend_for_ranking({d.ease, dir}, o));
    // Run k's selection model scores on validation what the trainer recorded for run k.
    EXPECT_NEAR(runs.back().models[1].val_ndcg, m.runs[static_cast<size_t>(k)].metrics.at("val_ndcg@10"),
                1e-5)
        << "run " << k;
    // EASE is deterministic: the same in every run's blend.
    EXPECT_DOUBLE_EQ(runs.back().models[0].val_ndcg, runs.front().models[0].val_ndcg);
  }
  EXPECT_NE(runs[0].models[1].test_ndcg, runs[1].models[1].test_ndcg) << "run 1 scores with its own model";
  symgnn::ranking_blend::RankingBlendOptions absent;
  absent.run = 2;
  EXPECT_THROW(symgnn::ranking_blend::blend_for_ranking({d.ease, dir}, absent), symgnn::DataError);

  // The record of several runs: their mean and spread, as a trained cell's over its seeds.
  const std::string out = st::scratch_dir("ranking_blend_runs") + "/blend";
  symgnn::ranking_blend::write_ranking_blend(runs, out);
  const symgnn::RunMetrics w = symgnn::RunMetrics::read(out);
  EXPECT_NEAR(w.mean("test_ndcg@10"), (runs[0].test_ndcg + runs[1].test_ndcg) / 2, 1e-12);
  EXPECT_NEAR(w.ranking_at_10["ndcg"].get<double>(), w.mean("test_ndcg@10"), 1e-12);
  EXPECT_NEAR(w.ranking_at_10["ndcg_std"].get<double>(),
              std::fabs(runs[0].test_ndcg - runs[1].test_ndcg) / std::sqrt(2.0), 1e-12);
  EXPECT_EQ(w.runs.size(), 2u);
}

// The bias baseline ranks by its predicted ratings (its item biases, within a user's list):
// refit on the training ratings alone, without a progress log, as any closed-form kind (it
// called the empty log and stopped with bad_function_call).
TEST(RankingBlend, BlendsTheBiasBaselinesPredictedRatings) {
  const Dirs& d = fitted();
  symgnn::RunConfig baseline = small_config("baseline");
  baseline.train.ranker = "none";
  const std::string dir = st::scratch_dir("ranking_blend_baseline") + "/baseline";
  const symgnn::RunMetrics m = fit_into(baseline, dir).metrics;
  const auto r = symgnn::ranking_blend::blend_for_ranking({d.ease, dir}, {});
  ASSERT_EQ(r.models.size(), 2u);
  EXPECT_NE(r.models[1].validation_from.find("refit on the training ratings alone"), std::string::npos)
      << r.models[1].validation_from;
  EXPECT_GT(r.models[1].val_ndcg, 0.0);
  // Alone on test it ranks as its saved fit did (the run's figure of its lists).
  ASSERT_TRUE(m.metrics.count("test_ndcg@10"));
  EXPECT_NEAR(r.models[1].test_ndcg, m.mean("test_ndcg@10"), 1e-5);
}
