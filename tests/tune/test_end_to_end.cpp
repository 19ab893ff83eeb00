// `symgnn tune` end to end: the built binary (tune runs itself as the child `symgnn
// train` processes) on the embedded synthetic data, two short trials, then a resumed call.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>

#include "common/test_support.h"
#include "symgnn/config.h"

namespace st = symgnn::testing;

namespace {
std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}
}  // namespace

TEST(TuneEndToEnd, SearchesOnSyntheticDataResumesAndWritesAUsableBestConf) {
  const std::string dir = st::scratch_dir("tune_cli");
  const std::string base = st::write_file(dir, "base.conf", "model = lowrank\n[graph]\nknn_k = 5\n");
  const std::string space =
      st::write_file(dir, "s.space", "train.lr = loguniform 0.001 0.03\nlowrank.hidden = choice 8|16\n");
  const std::string out = dir + "/out";
  const std::string cmd = st::symgnn_binary() + " tune --data synthetic --config " + base + " --space " +
                          space + " --budget 2 --set train.epochs=3 --threads 1 --out " + out;
  std::string log;
  ASSERT_EQ(st::run_command(cmd, &log), 0) << log;
  EXPECT_NE(log.find("[2/2] 0002: val_rmse "), std::string::npos) << log;
  EXPECT_NE(log.find("best of 2 trial(s)"), std::string::npos) << log;

  const std::string csv = slurp(out + "/trials.csv");
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 3) << csv;
  EXPECT_EQ(csv.find("failed"), std::string::npos) << csv;
  const std::string md = slurp(out + "/summary.md");
  EXPECT_NE(md.find("| 1 | 000"), std::string::npos) << md;
  // Judged on validation only: tune's own outputs and output hold no test figure.
  for (const std::string& text : {csv, md, log})
    for (const char* word : {"test RMSE", "test_rmse"}) EXPECT_EQ(text.find(word), std::string::npos) << text;

  // best.conf is a config file `symgnn train` accepts, with the base config's settings.
  symgnn::RunConfig cfg;
  symgnn::load_config_file(cfg, out + "/best.conf");
  EXPECT_EQ(cfg.graph.knn_k, 5);
  EXPECT_EQ(cfg.train.epochs, 3);
  EXPECT_TRUE(cfg.lowrank.hidden == 8 || cfg.lowrank.hidden == 16);
  ASSERT_EQ(
      st::run_command(st::symgnn_binary() + " train --quiet --no-compare --epochs 1 --threads 1 --config " +
                          out + "/best.conf",
                      &log),
      0)
      << log;

  // A second call reuses both trials and runs none.
  ASSERT_EQ(st::run_command(cmd, &log), 0) << log;
  EXPECT_NE(log.find("(2 already done"), std::string::npos) << log;
  EXPECT_EQ(log.find("start 000"), std::string::npos) << log;
}
