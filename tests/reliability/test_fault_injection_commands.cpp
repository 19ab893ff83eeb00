// The fault-injection suite beyond `train` (docs/reliability.md): `tune` killed with
// SIGKILL leaves no child running and a rerun finishes the same search, removing what the
// killed one left half-written; two `tune` runs
// never share a folder; write failures of `tune`, `blend`, `recommend` and a multi-process
// start-up are one-line errors (exit 2) that leave no temporary file; a killed `recommend`
// leaves the previous list whole.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "common/test_support.h"
#include "reliability/fault_support.h"

namespace fs = std::filesystem;
using symgnn::testing::lines_of;
using symgnn::testing::read_file;
using symgnn::testing::run_command;
using symgnn::testing::run_symgnn;
using symgnn::testing::scratch_dir;
using symgnn::testing::symgnn_binary;
using symgnn::testing::temporaries;
using symgnn::testing::write_file;

namespace {

/// A two-trial search of a few epochs on the synthetic default, into `out`.
std::string tune_command(const std::string& dir, const std::string& out) {
  const std::string base = write_file(dir, "base.conf", "model = lowrank\n[graph]\nknn_k = 5\n");
  const std::string space =
      write_file(dir, "s.space", "train.lr = loguniform 0.001 0.03\nlowrank.hidden = choice 8|16\n");
  return "tune --data synthetic --config " + base + " --space " + space +
         " --budget 2 --set train.epochs=6 --threads 1 --out " + out;
}

/// The processes whose command line names `text` (pgrep -f), as pgrep prints them.
std::string processes_naming(const std::string& text) {
  std::string out;
  run_command("pgrep -af -- '" + text + "' | grep -v pgrep || true", &out);
  return out;
}

/// The one error line of `out` (the last line starting "symgnn: error: ").
std::string error_line(const std::string& out) {
  const size_t at = out.rfind("symgnn: error: ");
  return at == std::string::npos ? "" : out.substr(at);
}

/// best.conf without its comment lines that name its own folder.
std::string settings(const std::string& conf) {
  std::string out;
  size_t at = 0;
  while (at < conf.size()) {
    const size_t nl = conf.find('\n', at);
    const std::string line = conf.substr(at, nl == std::string::npos ? std::string::npos : nl - at + 1);
    if (line.rfind("# best.conf:", 0) != 0 && line.rfind("# use:", 0) != 0) out += line;
    at = nl == std::string::npos ? conf.size() : nl + 1;
  }
  return out;
}

}  // namespace

TEST(FaultInjectionCommands, TuneKilledThenRerunFinishesTheSameSearchAndLeavesNoChild) {
  const std::string dir = scratch_dir("fault_tune_kill");
  std::string out;
  ASSERT_EQ(run_symgnn(tune_command(dir, dir + "/reference"), &out), 0) << out;
  const std::string best = read_file(dir + "/reference/best.conf");

  // SIGKILL of tune itself at several moments: its `symgnn train` children die with it (the
  // parent-death signal), and a rerun finishes the same two trials to the same best.
  int killed = 0;
  for (const double seconds : {0.6, 1.5, 3.0}) {
    const std::string k = dir + "/k" + std::to_string(killed);
    const int rc = run_command("cd " + dir + " && (" + symgnn_binary() + " " + tune_command(dir, k) +
                                   " > /dev/null 2>&1 & pid=$!; sleep " + std::to_string(seconds) +
                                   "; kill -9 $pid; wait $pid; exit 0)",
                               &out);
    ASSERT_EQ(rc, 0) << out;
    std::string left;
    for (int tries = 0; tries < 50; ++tries) {
      left = processes_naming(k + "/");
      if (left.empty()) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    EXPECT_EQ(left, "") << "children of a killed tune still run after 5 s";
    ASSERT_EQ(run_symgnn(tune_command(dir, k), &out), 0) << out;
    EXPECT_EQ(read_file(k + "/trials.csv").find("failed"), std::string::npos) << read_file(k + "/trials.csv");
    EXPECT_EQ(settings(read_file(k + "/best.conf")), settings(best)) << "killed after " << seconds << " s";
    EXPECT_TRUE(temporaries(k).empty()) << temporaries(k).front();
    ++killed;
  }
}

TEST(FaultInjectionCommands, ATuneRerunRemovesTheTemporariesOfADeadTuneAndKeepsALiveWritersOnes) {
  // The temporaries a tune killed while writing its own files leaves (the kills above land
  // there only by chance): one of a process that is gone, one of this (live) process.
  const std::string dir = scratch_dir("fault_tune_temporaries");
  const std::string out = dir + "/out";
  std::string log;
  ASSERT_EQ(run_symgnn(tune_command(dir, out), &log), 0) << log;
  const std::string dead = write_file(out, "checksums.sha256.tmp.999999999", "half a manifest");
  const std::string live = write_file(out, "trials.csv.tmp." + std::to_string(::getpid()), "being written");
  ASSERT_EQ(run_symgnn(tune_command(dir, out), &log), 0) << log;
  EXPECT_FALSE(fs::exists(dead));
  EXPECT_TRUE(fs::exists(live));
  fs::remove(live);
  EXPECT_TRUE(temporaries(out).empty()) << temporaries(out).front();
}

TEST(FaultInjectionCommands, TwoTunesOnOneFolderNeverShareIt) {
  const std::string dir = scratch_dir("fault_tune_twice");
  const std::string out_dir = dir + "/out";
  std::string first_out;
  int first_rc = -1;
  std::thread first([&] { first_rc = run_symgnn(tune_command(dir, out_dir), &first_out); });
  for (int tries = 0; tries < 300 && !fs::exists(out_dir + "/.symgnn.lock"); ++tries)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  std::string second_out;
  const int second_rc = run_symgnn(tune_command(dir, out_dir), &second_out);
  first.join();
  EXPECT_EQ(second_rc, 2) << second_out;
  EXPECT_NE(error_line(second_out).find(out_dir), std::string::npos) << second_out;
  EXPECT_EQ(lines_of(error_line(second_out)), 1) << second_out;
  ASSERT_EQ(first_rc, 0) << first_out;
  EXPECT_EQ(read_file(out_dir + "/trials.csv").find("failed"), std::string::npos);
  EXPECT_NE(first_out.find("best of 2 trial(s)"), std::string::npos) << first_out;
}

TEST(FaultInjectionCommands, WriteFailuresOfTuneBlendRecommendAndTheLauncherAreOneLineErrors) {
  const std::string dir = scratch_dir("fault_commands");
  std::string out;
  // Two models to blend and to recommend from.
  ASSERT_EQ(run_symgnn("train --epochs 4 --no-compare --threads 1 --quiet --out " + dir + "/a", &out), 0)
      << out;
  ASSERT_EQ(run_symgnn("train --model sylvester --quiet --out " + dir + "/b", &out), 0) << out;

  struct Case {
    std::string args, file;
  };
  const std::vector<Case> cases = {
      {tune_command(dir, dir + "/tune"), "trials.csv"},
      {tune_command(dir, dir + "/tune2"), "best.conf"},
      {"blend --models " + dir + "/a " + dir + "/b --out " + dir + "/blend", "blend/"},
      {"recommend --model " + dir + "/a --all --k 3 --out " + dir + "/recs.csv", "recs.csv"},
      {"train --epochs 2 --no-compare --threads 1 --quiet --nproc 2 --out " + dir + "/dist", "config.txt"},
  };
  for (const Case& c : cases)
    for (const char* error : {"ENOSPC", "EACCES"}) {
      const int rc =
          run_symgnn(c.args, &out, "SYMGNN_FAULT_INJECT=write:" + std::string(error) + ":" + c.file);
      const std::string what = c.args + " with " + error + " on " + c.file;
      EXPECT_EQ(rc, 2) << what << "\n" << out;
      const std::string line = error_line(out);
      EXPECT_EQ(lines_of(line), 1) << what << "\n" << out;
      EXPECT_NE(line.find("cannot write"), std::string::npos) << what << "\n" << out;
      EXPECT_NE(line.find(c.file), std::string::npos) << what << "\n" << out;
      // A tune or launcher stopped by its error leaves no child behind.
      EXPECT_EQ(processes_naming(dir + "/tune"), "") << what;
      EXPECT_EQ(processes_naming(dir + "/dist"), "") << what;
    }
  EXPECT_TRUE(temporaries(dir).empty()) << temporaries(dir).front();
}

TEST(FaultInjectionCommands, AKilledRecommendLeavesThePreviousListWhole) {
  const std::string dir = scratch_dir("fault_recommend");
  std::string out;
  ASSERT_EQ(run_symgnn("train --epochs 3 --no-compare --threads 1 --quiet --out " + dir + "/m", &out), 0)
      << out;
  const std::string recs = dir + "/recs.csv";
  ASSERT_EQ(run_symgnn("recommend --model " + dir + "/m --all --k 2 --out " + recs, &out), 0) << out;
  const std::string before = read_file(recs);
  // Points 1 and 2: before and after the rename of the list's atomic write.
  for (const int point : {1, 2}) {
    const int rc = run_symgnn("recommend --model " + dir + "/m --all --k 5 --out " + recs, &out,
                              "SYMGNN_FAULT_INJECT=kill:" + std::to_string(point));
    EXPECT_TRUE(rc == 128 + SIGKILL || rc == -1) << "exit " << rc << "\n" << out;
    const std::string now = read_file(recs);
    // Either list, whole: the old one (killed before the rename) or the new one (after).
    EXPECT_TRUE(now == before || lines_of(now) == 1 + (lines_of(before) - 1) / 2 * 5) << now.substr(0, 200);
    EXPECT_EQ(now.back(), '\n');
  }
  // A killed writer cannot remove its temporary; the next recommend into the file does.
  ASSERT_EQ(run_symgnn("recommend --model " + dir + "/m --all --k 2 --out " + recs, &out), 0) << out;
  EXPECT_EQ(read_file(recs), before);
  EXPECT_TRUE(temporaries(dir).empty()) << temporaries(dir).front();
}
