// The search loop with a shell script standing in for `symgnn`: resume, failed trials,
// the time limit, best.conf, and that no test figure reaches tune's outputs.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "common/test_support.h"
#include "symgnn/config.h"
#include "symgnn/error.h"
#include "tune/report.h"
#include "tune/search.h"
#include "util/text.h"

namespace fs = std::filesystem;
namespace st = symgnn::testing;
using namespace symgnn::tune;

namespace {

/// A stand-in for `symgnn train`: appends its arguments to calls.txt, writes config.txt
/// (model plus every --set as a config line) and a metrics.json whose validation RMSE
/// depends on lowrank.hidden (64: 0.90, else 0.95; 75 fails after printing a test
/// figure). `pause` seconds of sleep make it slow enough for the time-limit test.
std::string fake_exe(const std::string& dir, const std::string& pause = "0") {
  const std::string path = st::write_file(
      dir, "fake-symgnn.sh",
      "#!/bin/sh\n"
      "echo \"$@\" >> '" +
          dir +
          "/calls.txt'\n"
          "sleep " +
          pause +
          "\n"
          "out=; metrics=; conf=; val=0.95\n"
          "while [ $# -gt 0 ]; do\n"
          "  case \"$1\" in\n"
          "    --out) out=\"$2\"; shift;;\n"
          "    --metrics-out) metrics=\"$2\"; shift;;\n"
          "    --set)\n"
          "      conf=\"$conf$(echo \"$2\" | sed 's/=/ = /')\n\"\n"
          "      case \"$2\" in\n"
          "        lowrank.hidden=64) val=0.90;;\n"
          "        lowrank.hidden=75) echo 'run 1/2: test RMSE 0.5000'; echo 'data.test_fraction is fine';\n"
          "                           echo 'boom: hidden 75'; exit 3;;\n"
          "      esac\n"
          "      shift;;\n"
          "  esac\n"
          "  shift\n"
          "done\n"
          "printf 'model = lowrank\\n%s' \"$conf\" > \"$out/config.txt\"\n"
          "mae=$(awk \"BEGIN { print 1.65 - $val }\")\n"
          "echo \"{\\\"val_rmse\\\": $val, \\\"val_rmse_std\\\": 0.01, \\\"val_mae\\\": $mae, "
          "\\\"val_mae_std\\\": 0, \\\"best_epoch\\\": 4, "
          "\\\"test_rmse\\\": 0.1234}\" > \"$metrics\"\n");
  ::chmod(path.c_str(), 0755);
  return path;
}

int count_lines(const std::string& path) {
  std::ifstream in(path);
  int n = 0;
  for (std::string l; std::getline(in, l);) ++n;
  return n;
}

struct Search {
  std::string root;
  Space space;
  SearchOptions opts;
};

Search make_setup(const std::string& space_text, int64_t budget, const std::string& pause = "0") {
  Search s;
  s.root = st::scratch_dir("tune_search");
  s.space = parse_space(space_text, s.root + "/my.space");
  s.opts.data = "synthetic";
  s.opts.config_file = st::write_file(s.root, "base.conf", "model = lowrank\n[train]\nepochs = 3\n");
  s.opts.out_dir = s.root + "/out";
  s.opts.exe = fake_exe(s.root, pause);
  s.opts.budget = budget;
  s.opts.seed = 5;
  s.opts.sets = {"train.patience=2"};
  return s;
}

const char* kSearchSpace = "lowrank.hidden = choice 32|64\ntrain.lr = loguniform 0.001 0.03\n";

}  // namespace

TEST(TuneSearch, RunsTheTrialsWithTheirValuesAndWritesTheOutputs) {
  Search s = make_setup(kSearchSpace, 4);
  const auto trials = run_search(s.space, s.opts);
  ASSERT_EQ(trials.size(), 4u);
  std::ifstream calls(s.root + "/calls.txt");
  for (const auto& t : trials) {
    EXPECT_EQ(t.status, "ran");
    EXPECT_EQ(t.values, sample_trial(s.space, 5, t.number));
    std::string line;
    std::getline(calls, line);
    // The user's --set comes before the sampled ones (which win), and each trial writes
    // into its own folder.
    EXPECT_NE(line.find("--set train.patience=2 --set lowrank.hidden="), std::string::npos) << line;
    EXPECT_NE(line.find("--out " + s.opts.out_dir + "/trials/" + t.name), std::string::npos) << line;
    EXPECT_NE(line.find("--progress lines"), std::string::npos) << line;
    EXPECT_NE(line.find("--threads "), std::string::npos) << line;
    EXPECT_DOUBLE_EQ(t.score, t.values[0].second == "64" ? 0.90 : 0.95);
    EXPECT_TRUE(fs::exists(s.opts.out_dir + "/trials/" + t.name + "/log.txt"));
  }
  EXPECT_EQ(trial_name(7), "0007");
  const std::string csv = symgnn::read_text_file(s.opts.out_dir + "/trials.csv");
  EXPECT_EQ(csv.substr(0, csv.find('\n')),
            "trial,status,val_rmse,val_rmse_std,best_epoch,seconds,lowrank.hidden,train.lr");
  EXPECT_EQ(count_lines(s.opts.out_dir + "/trials.csv"), 5);
  const std::string md = symgnn::read_text_file(s.opts.out_dir + "/summary.md");
  EXPECT_NE(md.find("| rank | trial | val_rmse |"), std::string::npos) << md;
  // No test figure anywhere in tune's own outputs (the stand-in reports test_rmse 0.1234).
  for (const char* f : {"trials.csv", "summary.md", "best.conf"})
    EXPECT_EQ(symgnn::read_text_file(s.opts.out_dir + "/" + f).find("0.1234"), std::string::npos) << f;
}

TEST(TuneSearch, JudgesTrialsOnTheNamedValidationMetric) {
  // The stand-in's val_mae is 1.65 - val_rmse: the order of the trials turns over.
  Search s = make_setup(kSearchSpace, 4);
  s.opts.metric = "val_mae";
  const auto trials = run_search(s.space, s.opts);
  for (const auto& t : trials) EXPECT_NEAR(t.score, t.values[0].second == "64" ? 0.75 : 0.70, 1e-9);
  const int b = best_trial(trials);
  ASSERT_GE(b, 0);
  EXPECT_EQ(trials[static_cast<size_t>(b)].values[0].second, "32");
  const std::string csv = symgnn::read_text_file(s.opts.out_dir + "/trials.csv");
  EXPECT_EQ(csv.substr(0, csv.find('\n')),
            "trial,status,val_mae,val_mae_std,best_epoch,seconds,lowrank.hidden,train.lr");
  // The default is the BASE config's train.select; a test metric is refused.
  SearchOptions o = s.opts;
  o.metric = "";
  o.sets.push_back("train.select=val_mae");
  resolve_metric(o);
  EXPECT_EQ(o.metric, "val_mae");
  o.metric = "test_rmse";
  EXPECT_THROW(resolve_metric(o), symgnn::UsageError);
}

TEST(TuneSearch, ResumesFromFinishedTrialsAndRerunsWhenTheBaseConfigChanges) {
  Search s = make_setup(kSearchSpace, 3);
  run_search(s.space, s.opts);
  EXPECT_EQ(count_lines(s.root + "/calls.txt"), 3);
  auto again = run_search(s.space, s.opts);  // a second call runs nothing
  EXPECT_EQ(count_lines(s.root + "/calls.txt"), 3);
  ASSERT_EQ(again.size(), 3u);
  for (const auto& t : again) EXPECT_EQ(t.status, "cached");
  EXPECT_TRUE(std::isfinite(again[0].seconds));  // recorded by the first call

  s.opts.budget = 5;  // a larger budget continues with trials 4 and 5
  again = run_search(s.space, s.opts);
  EXPECT_EQ(count_lines(s.root + "/calls.txt"), 5);
  EXPECT_EQ(again[2].status, "cached");
  EXPECT_EQ(again[4].status, "ran");

  s.opts.threads = 3;  // a runtime setting: still reused
  run_search(s.space, s.opts);
  EXPECT_EQ(count_lines(s.root + "/calls.txt"), 5);

  st::write_file(s.root, "base.conf", "model = lowrank\n[train]\nepochs = 4\n");  // edited: all rerun
  again = run_search(s.space, s.opts);
  EXPECT_EQ(count_lines(s.root + "/calls.txt"), 10);
  for (const auto& t : again) EXPECT_EQ(t.status, "ran");

  // An interrupted trial (folder without metrics.json) runs again, the others do not.
  fs::remove(s.opts.out_dir + "/trials/0002/metrics.json");
  again = run_search(s.space, s.opts);
  EXPECT_EQ(count_lines(s.root + "/calls.txt"), 11);
  EXPECT_EQ(again[1].status, "ran");
}

TEST(TuneSearch, AFailedTrialIsRecordedAndTheSearchGoesOn) {
  Search s = make_setup("lowrank.hidden = choice 64|75\n", 6);
  int expected_failures = 0;
  for (int i = 1; i <= 6; ++i) expected_failures += sample_trial(s.space, 5, i)[0].second == "75";
  ASSERT_GT(expected_failures, 0);
  ASSERT_LT(expected_failures, 6);
  std::string err;  // the search's lines, to its log callback
  s.opts.log = [&err](const std::string& line) { err += line + "\n"; };
  const auto trials = run_search(s.space, s.opts);
  ASSERT_EQ(trials.size(), 6u);
  int failed = 0;
  for (const auto& t : trials) {
    if (t.values[0].second != "75") {
      EXPECT_EQ(t.status, "ran");
      continue;
    }
    ++failed;
    EXPECT_EQ(t.status, "failed");
    EXPECT_EQ(t.error, "exit status 3");
    ASSERT_GE(t.log_tail.size(), 2u);
    EXPECT_EQ(t.log_tail.back(), "boom: hidden 75");
    EXPECT_EQ(t.log_tail[t.log_tail.size() - 2], "data.test_fraction is fine");  // only test figures go
  }
  EXPECT_EQ(failed, expected_failures);
  EXPECT_NE(err.find("FAILED (exit status 3)"), std::string::npos) << err;
  EXPECT_NE(err.find("| boom: hidden 75"), std::string::npos) << err;
  // The failed child printed a test figure: tune shows validation figures only.
  EXPECT_EQ(err.find("test RMSE"), std::string::npos) << err;
  const std::string csv = symgnn::read_text_file(s.opts.out_dir + "/trials.csv");
  EXPECT_NE(csv.find(",failed,,,,"), std::string::npos) << csv;
  const std::string md = symgnn::read_text_file(s.opts.out_dir + "/summary.md");
  EXPECT_NE(md.find("failed: exit status 3"), std::string::npos) << md;
  EXPECT_EQ(md.find("test RMSE"), std::string::npos) << md;
}

TEST(TuneSearch, BestConfIsTheLowestValidationRmseAndLoads) {
  Search s = make_setup(kSearchSpace, 6);
  const auto trials = run_search(s.space, s.opts);
  int64_t expected = 0;  // the first trial with hidden 64 (0.90; ties: the lower number)
  for (const auto& t : trials)
    if (expected == 0 && t.values[0].second == "64") expected = t.number;
  ASSERT_NE(expected, 0);
  const int b = best_trial(trials);
  ASSERT_GE(b, 0);
  EXPECT_EQ(trials[b].number, expected);

  const std::string path = s.opts.out_dir + "/best.conf";
  const std::string text = symgnn::read_text_file(path);
  EXPECT_NE(text.find("# trial " + trial_name(expected) + ": val_rmse 0.900000"), std::string::npos) << text;
  symgnn::RunConfig cfg;
  ASSERT_NO_THROW(symgnn::load_config_file(cfg, path));
  EXPECT_EQ(cfg.lowrank.hidden, 64);
  symgnn::RunConfig expected_cfg;
  symgnn::set_config_value(expected_cfg, "train.lr", trials[b].values[1].second);
  EXPECT_EQ(cfg.train.lr, expected_cfg.train.lr);
  EXPECT_EQ(cfg.train.patience, 2);  // the user's --set
  EXPECT_EQ(cfg.train.threads, 0);   // tune's --threads is not part of the result

  // summary.md lists the trials by validation RMSE: the best first.
  const std::string md = symgnn::read_text_file(s.opts.out_dir + "/summary.md");
  EXPECT_NE(md.find("| 1 | " + trial_name(expected) + " | 0.9000 |"), std::string::npos) << md;
}

TEST(TuneSearch, MinutesStopNewTrialsAndRunningOnesFinish) {
  // Each stand-in trial takes 0.6 s; the limit (180 ms) passes while the first two run.
  Search s = make_setup(kSearchSpace, 0, "0.6");
  s.opts.minutes = 0.003;
  s.opts.jobs = 2;
  const auto trials = run_search(s.space, s.opts);
  ASSERT_EQ(trials.size(), 2u);
  for (const auto& t : trials) EXPECT_EQ(t.status, "ran");
  // Budget and minutes together: whichever comes first (here the budget).
  Search b = make_setup(kSearchSpace, 2);
  b.opts.minutes = 10;
  EXPECT_EQ(run_search(b.space, b.opts).size(), 2u);
}

TEST(TuneSearch, DryRunWritesNothingAndBadOptionsAreRejected) {
  Search s = make_setup(kSearchSpace, 3);
  s.opts.dry_run = true;
  std::string err;  // the search's lines, to its log callback (it prints nothing itself)
  s.opts.log = [&err](const std::string& line) { err += line + "\n"; };
  ::testing::internal::CaptureStderr();
  EXPECT_TRUE(run_search(s.space, s.opts).empty());
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
  EXPECT_NE(err.find("0003: " + s.opts.exe + " train --data synthetic"), std::string::npos) << err;
  EXPECT_FALSE(fs::exists(s.opts.out_dir));
  EXPECT_FALSE(fs::exists(s.root + "/calls.txt"));

  s.opts.dry_run = false;
  SearchOptions o = s.opts;
  o.sets = {"lowrank.hidden=16"};  // also searched: ambiguous
  EXPECT_THROW(run_search(s.space, o), symgnn::UsageError);
  o = s.opts;
  o.budget = 0;
  EXPECT_THROW(run_search(s.space, o), symgnn::UsageError);
  o = s.opts;
  o.sets = {"train.epochz=3"};
  EXPECT_THROW(run_search(s.space, o), symgnn::ConfigError);
  o = s.opts;
  o.sets = {"data.val_fraction=0"};  // no validation split: nothing to judge on
  EXPECT_THROW(run_search(s.space, o), symgnn::UsageError);
  EXPECT_FALSE(fs::exists(s.root + "/calls.txt"));
}
