// `symgnn sylvester`, and the Sylv. baseline fitted as a model kind by symgnn::fit (symgnn/fit.h), run
// in-process.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "common/test_support.h"
#include "symgnn/error.h"
#include "symgnn/fit.h"

namespace {

int run_cli(std::vector<std::string> args) {
  args.insert(args.begin(), "symgnn");
  std::vector<const char*> argv;
  for (const auto& a : args) argv.push_back(a.c_str());
  return symgnn::cli::run(static_cast<int>(argv.size()), argv.data());
}

std::vector<std::string> read_lines(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  return lines;
}

/// 12 users (u0..u11) x 10 items (i0..i9) in two communities, with friend and similarity
/// edge lists in original ids.
struct Files {
  std::string dir, ratings, users, items;
};

Files make_files() {
  Files f;
  f.dir = symgnn::testing::scratch_dir("sylvester_cli");
  std::ostringstream r, u, it;
  r << "user,item,rating\n";
  for (int i = 0; i < 12; ++i)
    for (int j = 0; j < 10; ++j)
      if ((i * 7 + j * 3) % 4 == 0) r << "u" << i << ",i" << j << "," << (i % 2 == j % 2 ? 5 : 1) << "\n";
  for (int i = 0; i + 2 < 12; ++i) u << "u" << i << ",u" << i + 2 << "\n";
  for (int j = 0; j + 2 < 10; ++j) it << "i" << j << ",i" << j + 2 << "\n";
  f.ratings = symgnn::testing::write_file(f.dir, "ratings.csv", r.str());
  f.users = symgnn::testing::write_file(f.dir, "friends.csv", u.str());
  f.items = symgnn::testing::write_file(f.dir, "similar.csv", it.str());
  return f;
}

}  // namespace

TEST(SylvesterCli, WritesXWithIds) {
  const Files f = make_files();
  const std::string out = f.dir + "/X.csv";
  ASSERT_EQ(run_cli({"sylvester", "--ratings", f.ratings, "--user-graph", f.users, "--item-graph", f.items,
                     "--alpha", "0.5", "--solver", "cg", "--out", out}),
            0);
  const auto lines = read_lines(out);
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines[0].rfind("user,", 0), 0u) << lines[0];
  EXPECT_EQ(std::count(lines[0].begin(), lines[0].end(), ','), 10) << lines[0];  // user + 10 item ids
  EXPECT_GE(lines.size(), 2u);
  EXPECT_EQ(lines[1].rfind("u", 0), 0u) << lines[1];
}

TEST(SylvesterCli, EverySolverWritesTheSameTopK) {
  const Files f = make_files();
  std::vector<std::vector<std::string>> outputs;
  for (const std::string solver : {"fixed_point", "cg", "cr", "exact"}) {
    const std::string out = f.dir + "/top_" + solver + ".csv";
    ASSERT_EQ(run_cli({"sylvester", "--ratings", f.ratings, "--user-graph", f.users, "--item-graph", f.items,
                       "--solver", solver, "--tol", "1e-12", "--top-k", "3", "--out", out}),
              0)
        << solver;
    outputs.push_back(read_lines(out));
  }
  ASSERT_FALSE(outputs[0].empty());
  EXPECT_EQ(outputs[0][0], "user,item,score");
  EXPECT_GT(outputs[0].size(), 3u);
  // The same scores, row by row, from every solver (items with tied scores may swap places).
  for (size_t s = 1; s < outputs.size(); ++s) {
    ASSERT_EQ(outputs[s].size(), outputs[0].size());
    for (size_t k = 1; k < outputs[0].size(); ++k) {
      const double sa = std::stod(outputs[0][k].substr(outputs[0][k].rfind(',') + 1));
      const double sb = std::stod(outputs[s][k].substr(outputs[s][k].rfind(',') + 1));
      EXPECT_NEAR(sa, sb, 1e-6) << outputs[0][k] << " vs " << outputs[s][k];
    }
  }
}

TEST(SylvesterCli, SyntheticSourceWithoutOutput) {
  EXPECT_EQ(run_cli({"sylvester", "--data", "synthetic", "--alpha", "0.9", "--solver", "exact"}), 0);
}

TEST(SylvesterCli, BadArgumentsExitWithTwo) {
  const Files f = make_files();
  EXPECT_EQ(run_cli({"sylvester", "--ratings", f.ratings, "--alpha", "1.0"}), 2);
  EXPECT_EQ(run_cli({"sylvester", "--ratings", f.ratings, "--alpha", "-0.2"}), 2);
  EXPECT_EQ(run_cli({"sylvester", "--ratings", f.ratings, "--alpha", "abc"}), 2);
  EXPECT_EQ(run_cli({"sylvester", "--ratings", f.ratings, "--solver", "gmres"}), 2);
  EXPECT_EQ(run_cli({"sylvester", "--ratings", f.dir + "/missing.csv"}), 2);
  EXPECT_EQ(run_cli({"sylvester", "--ratings", f.ratings, "--user-graph", f.dir + "/missing.csv"}), 2);
  EXPECT_EQ(run_cli({"sylvester", "--ratings", f.ratings, "--data", "synthetic"}), 2);
  EXPECT_EQ(run_cli({"sylvester", "--user-graph", f.users}), 2);
  EXPECT_EQ(run_cli({"sylvester", "--ratings", f.ratings, "--top-k", "-1", "--out", f.dir + "/t.csv"}), 2);
  EXPECT_EQ(run_cli({"sylvester", "--ratings", f.ratings, "--prior", "weird"}), 2);
}

TEST(SylvesterCli, HelpHasWorkedExamples) {
  testing::internal::CaptureStdout();
  EXPECT_EQ(run_cli({"sylvester", "--help"}), 0);
  const std::string help = testing::internal::GetCapturedStdout();
  EXPECT_NE(help.find("symgnn sylvester --data"), std::string::npos);
  EXPECT_NE(help.find("--top-k"), std::string::npos);
}

TEST(TrainSylvester, WritesMetrics) {
  const Files f = make_files();
  symgnn::RunConfig cfg;
  cfg.model = "sylvester";
  cfg.data.source = f.ratings;
  cfg.data.user_graph_file = f.users;
  cfg.data.item_graph_file = f.items;
  cfg.data.val_fraction = 0.2;
  cfg.sylvester.alphas = "0.5,0.9";
  const std::string out = f.dir + "/metrics.json";
  symgnn::FitOptions fo;
  fo.metrics_out = out;
  symgnn::fit(cfg, fo);
  std::ifstream in(out);
  const nlohmann::json j = nlohmann::json::parse(in);
  for (const char* key : {"test_rmse", "val_rmse", "alpha", "shrinkage", "candidates", "centred_literal",
                          "solves", "seconds", "config", "dataset"})
    EXPECT_TRUE(j.contains(key)) << key;
  EXPECT_TRUE(j["alpha"] == 0.5 || j["alpha"] == 0.9);
  EXPECT_NE(j["config"].get<std::string>().find("sylvester.alphas"), std::string::npos);
}

TEST(TrainSylvester, RejectsBadAlphas) {
  const Files f = make_files();
  symgnn::RunConfig cfg;
  cfg.data.source = f.ratings;
  cfg.sylvester.alphas = "0.5,1.2";
  cfg.model = "sylvester";
  EXPECT_THROW(symgnn::fit(cfg, {}), symgnn::ConfigError);
  cfg.sylvester.alphas = "0.5";
  cfg.train.device = "tpu";
  EXPECT_THROW(symgnn::fit(cfg, {}), symgnn::ConfigError);
}
