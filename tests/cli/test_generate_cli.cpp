// `symgnn data generate` end to end: a tiny set trains through its data.conf from another
// working directory; bad arguments are one line and exit 2.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "common/test_support.h"

using symgnn::testing::read_file;
using symgnn::testing::run_command;
using symgnn::testing::run_symgnn;
using symgnn::testing::scratch_dir;
using symgnn::testing::symgnn_binary;

namespace {

bool one_line(const std::string& s) {
  return !s.empty() && s.find('\n') == s.size() - 1;
}

}  // namespace

TEST(GenerateCli, ATinySetTrainsThroughItsConfigFromAnyFolder) {
  const std::string dir = scratch_dir("gen_cli") + "/set";
  std::string out;
  ASSERT_EQ(
      run_symgnn("data generate --users 120 --items 80 --ratings 3000 --seed 5 --graph-k 4 --out " + dir,
                 &out),
      0)
      << out;
  EXPECT_NE(out.find("generated 2700 training + 300 test ratings"), std::string::npos) << out;
  // From another folder: the config's paths are absolute.
  const std::string elsewhere = scratch_dir("gen_cli_cwd");
  ASSERT_EQ(
      run_command("cd " + elsewhere + " && " + symgnn_binary() + " train --quiet --no-compare --epochs 2 " +
                      "--runs 1 --threads 1 --config " + dir + "/data.conf",
                  &out),
      0)
      << out;
  // The same arguments again need --overwrite, and give the same bytes.
  const std::string first = read_file(dir + "/ratings.csv");
  EXPECT_EQ(run_symgnn("data generate --users 120 --items 80 --ratings 3000 --seed 5 --out " + dir, &out), 2);
  EXPECT_TRUE(one_line(out)) << out;
  EXPECT_NE(out.find("--overwrite"), std::string::npos) << out;
  ASSERT_EQ(
      run_symgnn(
          "data generate --users 120 --items 80 --ratings 3000 --seed 5 --graph-k 4 --overwrite --out " + dir,
          &out),
      0);
  EXPECT_EQ(read_file(dir + "/ratings.csv"), first);
}

TEST(GenerateCli, BadArgumentsAreOneLineWithExitCode2) {
  const std::string dir = scratch_dir("gen_cli_bad");
  for (const std::string& args :
       {"--users 10 --items 10 --out " + dir,  // no --ratings
        "--users 10 --items 10 --ratings 101 --out " + dir, "--users 10 --items 10 --ratings 5 --out " + dir,
        "--preset imdb --out " + dir, "--users 10 --items 10 --ratings 50 --test-fraction 0 --out " + dir,
        "--users ten --items 10 --ratings 50 --out " + dir}) {
    std::string out;
    EXPECT_EQ(run_symgnn("data generate " + args, &out), 2) << args << ": " << out;
    EXPECT_TRUE(one_line(out)) << args << ": " << out;
  }
  std::string help;
  EXPECT_EQ(run_symgnn("data generate --help", &help), 0);
  EXPECT_NE(help.find("netflix-like"), std::string::npos);
}
