// `symgnn tune`'s argument and space-file errors, in-process (tests/tune/test_end_to_end.cpp
// runs a real search with the built binary).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "common/test_support.h"

namespace fs = std::filesystem;
namespace st = symgnn::testing;

namespace {
/// In-process, as main() runs it. Only for calls that start no trial: a trial would run
/// this test executable, not symgnn.
int run_cli(std::vector<std::string> args, std::string* err = nullptr) {
  args.insert(args.begin(), "symgnn");
  std::vector<const char*> argv;
  for (const auto& a : args) argv.push_back(a.c_str());
  ::testing::internal::CaptureStderr();
  const int code = symgnn::cli::run(static_cast<int>(argv.size()), argv.data());
  const std::string captured = ::testing::internal::GetCapturedStderr();
  if (err) *err = captured;
  return code;
}

}  // namespace

TEST(TuneCli, BadSpaceFileExitsTwoWithOneLineNamingFileAndLine) {
  const std::string dir = st::scratch_dir("tune_cli_bad");
  const std::string base = st::write_file(dir, "base.conf", "model = lowrank\n");
  const std::string space = st::write_file(dir, "bad.space", "# comment\nlowrank.hidden = uniform 8 16\n");
  std::string err;
  EXPECT_EQ(run_cli({"tune", "--data", "synthetic", "--config", base, "--space", space, "--budget", "1",
                     "--out", dir + "/out"},
                    &err),
            2);
  EXPECT_NE(err.find("bad.space:2: lowrank.hidden is an integer key"), std::string::npos) << err;
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
  EXPECT_FALSE(fs::exists(dir + "/out"));
  // Neither --budget nor --minutes: refused before the default --out (tune-out, in the
  // working directory) is made.
  const std::string ok = st::write_file(dir, "ok.space", "lowrank.hidden = choice 8|16\n");
  fs::remove_all("tune-out");  // a run of this test before the check moved
  EXPECT_EQ(run_cli({"tune", "--data", "synthetic", "--config", base, "--space", ok}, &err), 2);
  EXPECT_NE(err.find("--budget N, --minutes M or both"), std::string::npos) << err;
  EXPECT_FALSE(fs::exists("tune-out"));
  EXPECT_EQ(
      run_cli({"tune", "--data", dir + "/missing.csv", "--config", base, "--space", ok, "--budget", "1"},
              &err),
      2);
  EXPECT_NE(err.find("missing.csv: data not found"), std::string::npos) << err;
}
