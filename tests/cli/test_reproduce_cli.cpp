// `symgnn reproduce --quick` end to end on the shared benchmark data: the built binary
// (reproduce runs itself as the child `symgnn train` processes), every table and figure.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "common/test_support.h"

namespace fs = std::filesystem;
namespace st = symgnn::testing;

namespace {
std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}
}  // namespace

TEST(ReproduceCli, QuickRunWritesEveryTableAndFigure) {
  SYMGNN_REQUIRE_DATA("monti/douban.mat");
  SYMGNN_REQUIRE_DATA("ml-100k/u1.base");
  const std::string out = st::scratch_dir("reproduce_cli") + "/out";
  const std::string publish = out + "-docs";
  const std::string cmd = st::symgnn_binary() + " reproduce --quick --jobs 2 --data-dir '" + st::data_dir() +
                          "' --configs '" + SYMGNN_SOURCE_DIR + "/configs' --out '" + out + "' --publish '" +
                          publish + "'";
  std::string log;
  ASSERT_EQ(st::run_command(cmd, &log), 0) << log;
  const std::string md = slurp(out + "/results.md");
  for (const char* title :
       {"## Table 2", "## Table 3", "## Table 4", "## Figure 2", "## Figure 3", "Quick run"})
    EXPECT_NE(md.find(title), std::string::npos) << title;
  for (const char* f :
       {"table2.csv", "table3.csv", "table4.csv", "fig2_layers.csv", "fig3_knn.csv", "runs.csv",
        "fig2_layers.svg", "fig3_knn.svg", "curves_tables23.svg", "curves_table4.svg"}) {
    EXPECT_TRUE(fs::exists(out + "/results/" + f)) << f;
    EXPECT_TRUE(fs::exists(publish + "/results/" + f)) << f;
  }
  EXPECT_EQ(slurp(publish + "/results.md"), md);
  EXPECT_EQ(md.find("not run"), std::string::npos) << "every cell of the quick sweep must finish";

  // A second invocation reuses every cell and the blends made of them, and only rewrites the
  // report.
  ASSERT_EQ(st::run_command(cmd, &log), 0) << log;
  EXPECT_NE(log.find("0 to run"), std::string::npos) << log;
  EXPECT_NE(log.find("ranking blend of EASE and the item-based ranker, test NDCG@10"), std::string::npos)
      << log;
  EXPECT_NE(log.find("(made before from the same cells)"), std::string::npos) << log;
  EXPECT_EQ(slurp(out + "/results.md").substr(md.find("## Ranking")),
            md.substr(md.find("## Ranking")));  // the same figures

  // Fault injection (docs/reliability.md): a full disk while the report is written is one
  // line naming the file, exit 2, and the report written before is left as it was.
  const std::string before = slurp(out + "/results.md");  // the second call's (its date)
  ASSERT_EQ(st::run_command("SYMGNN_FAULT_INJECT=write:ENOSPC:results.md " + cmd, &log), 2) << log;
  EXPECT_NE(log.find("results.md: cannot write"), std::string::npos) << log;
  EXPECT_EQ(slurp(out + "/results.md"), before);
}

TEST(ReproduceCli, BadArgumentsExitWithTwo) {
  std::string log;
  EXPECT_EQ(st::run_command(st::symgnn_binary() + " reproduce --data-dir /nonexistent/dir --dry-run", &log),
            2)
      << log;
  EXPECT_NE(log.find("/nonexistent/dir: data directory not found"), std::string::npos) << log;
  const std::string d = st::scratch_dir("reproduce_cli_bad");
  EXPECT_EQ(
      st::run_command(st::symgnn_binary() + " reproduce --data-dir " + d + " --only table9 --dry-run", &log),
      2);
  EXPECT_NE(log.find("unknown part 'table9'"), std::string::npos) << log;
}

TEST(ReproduceCli, Ml1mJoinsTable3WhenItsFilesArePresent) {
  // A small ML-1M directory (30 users x 20 movies, two taste groups) and nothing else.
  const std::string data = st::scratch_dir("reproduce_ml1m");
  const std::string dir = data + "/ml-1m";
  fs::create_directories(dir);
  std::ostringstream users, movies, ratings;
  for (int u = 1; u <= 30; ++u)
    users << u << "::" << (u % 2 ? "F" : "M") << "::25::" << u % 20 << "::12345\n";
  for (int m = 1; m <= 20; ++m)
    movies << m << "::Movie " << m << " (1999)::" << (m % 2 ? "Comedy" : "Drama") << "\n";
  for (int u = 1; u <= 30; ++u)
    for (int m = 1; m <= 20; ++m)
      if ((u * 7 + m * 3) % 5 < 3)
        ratings << u << "::" << m << "::" << (u % 2 == m % 2 ? 5 : 2) << "::978300760\n";
  st::write_file(dir, "users.dat", users.str());
  st::write_file(dir, "movies.dat", movies.str());
  st::write_file(dir, "ratings.dat", ratings.str());
  const std::string out = data + "/out";
  std::string log;
  ASSERT_EQ(st::run_command(st::symgnn_binary() + " reproduce --quick --only table3 --data-dir '" + data +
                                "' --configs '" + SYMGNN_SOURCE_DIR + "/configs' --out '" + out + "'",
                            &log),
            0)
      << log;
  const std::string md = slurp(out + "/results.md");
  EXPECT_NE(md.find("| model | ML-1M |"), std::string::npos) << md;
  EXPECT_NE(md.find("Not run, data absent: ML-100K"), std::string::npos);
  EXPECT_EQ(md.find("| not run |"), std::string::npos) << md;
  EXPECT_NE(slurp(out + "/results/table3.csv").find("ml1m,lowrank,G,1,"), std::string::npos);
}
