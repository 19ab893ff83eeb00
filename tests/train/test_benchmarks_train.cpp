// Short end-to-end trainings on the shared benchmarks (skipped when the data is absent):
// a few epochs of the low-rank G model must already beat the global-mean predictor.
#include <gtest/gtest.h>

#include <cmath>

#include "common/test_support.h"
#include "symgnn/graph.h"
#include "train/trainer.h"

using namespace symgnn;

namespace {
double global_mean_rmse(const Dataset& ds) {
  double mean = 0;
  for (float r : ds.train.value) mean += r;
  mean /= static_cast<double>(ds.train.size());
  double se = 0;
  for (float r : ds.test.value) se += (r - mean) * (r - mean);
  return std::sqrt(se / static_cast<double>(ds.test.size()));
}

void expect_beats_global_mean(const std::string& relative, int64_t epochs) {
  RunConfig cfg;
  cfg.data.source = symgnn::testing::data_dir() + "/" + relative;
  cfg.lowrank.variant = "G";
  cfg.train.epochs = epochs;
  cfg.train.threads = 2;
  Dataset ds = load_dataset(cfg.data);
  graph::resolve_graphs(ds, cfg.graph);
  train::TrainerOptions opts;
  const auto s = train::train_sweep(cfg, ds, opts);
  const double baseline = global_mean_rmse(ds);
  EXPECT_LT(s.mean("test_rmse"), baseline)
      << relative << ": " << s.mean("test_rmse") << " vs global mean " << baseline;
  EXPECT_TRUE(std::isfinite(s.runs.front().selected.at("val_rmse")));
}
}  // namespace

TEST(BenchmarkTraining, Ml100kBeatsTheGlobalMean) {
  SYMGNN_REQUIRE_DATA("ml-100k/u.data");
  expect_beats_global_mean("ml-100k", 25);
}

TEST(BenchmarkTraining, DoubanBeatsTheGlobalMean) {
  SYMGNN_REQUIRE_DATA("monti/douban.mat");
  expect_beats_global_mean("monti/douban.mat", 25);
}
