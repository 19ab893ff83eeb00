// Arguments are checked before any work (issue 13): an option out of its config key's
// range, an empty --only, a config "file" that is a directory, a data file key that the
// source would ignore, and a mistyped flag each exit 2 with one line naming the option or
// key, instead of being replaced, ignored or reported on two lines.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "common/test_support.h"

using symgnn::testing::run_symgnn;
using symgnn::testing::scratch_dir;
using symgnn::testing::write_file;

TEST(ArgumentChecks, OutOfRangeOrIgnoredArgumentsExitTwoWithOneLine) {
  const std::string dir = scratch_dir("cli_arguments");
  const std::string pairs = write_file(dir, "pairs.csv", "0,0\n");
  const std::string conf = write_file(dir, "base.conf", "model = lowrank\n");
  const std::string space = write_file(dir, "s.space", "lowrank.hidden = choice 8|16\n");
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"train --epochs 0", "train.epochs"},
      {"train --epochs -5", "train.epochs"},
      {"train --runs 0", "train.runs"},
      {"train --seed -1", "train.seed"},
      {"train --threads -1", "train.threads"},
      {"predict --model " + dir + " --pairs " + pairs + " --threads -3", "train.threads"},
      {"recommend --model " + dir + " --all --threads -1", "train.threads"},
      {"evaluate --model " + dir + " --threads -1", "train.threads"},
      {"sylvester --top-k 0 --out " + dir + "/x.csv", "--top-k"},
      {"reproduce --only '' --dry-run", "--only"},
      {"reproduce --only ' , ' --dry-run", "--only"},
      {"train --config " + dir, "is a directory"},
      {"train --set data.user_graph_file=/nonexistent", "data.user_graph_file"},
      {"train --set data.test_file=t.csv --data synthetic", "synthetic generator"},
      {"train --epochz 3", "--epochz"},
      // A device this build or machine does not have: one line, not LibTorch's trace.
      {"train --device cuda:99", "cuda:99"},
      {"train --set train.device=cuda:99", "cuda:99"},
      {"recommend --model " + dir + " --all --device cuda:99", "cuda:99"},
      // --resume keeps the recorded run: a flag that would change it is refused.
      {"train --resume " + dir + " --epochs 5", "drop --epochs"},
      {"train --resume " + dir + " --set train.lr=0.1 --data synthetic", "drop --data, --set"},
      // Output paths, before the data is read or a model loaded.
      {"train --out " + pairs, "is a file"},
      {"train --metrics-out " + dir + "/no/such/m.json", "does not exist"},
      {"train --metrics-out " + dir, "is a directory"},
      {"predict --model " + dir + " --pairs " + pairs + " --out " + dir, "is a directory"},
      {"evaluate --model " + dir + " --json " + dir + "/nowhere/e.json", "does not exist"},
      {"tune --data synthetic --config " + conf + " --space " + space + " --budget 1 --out " + pairs,
       "is a file"},
      {"blend --models " + dir + "/a " + dir + "/b --out " + pairs, "is a file"},
      // Numbers that are no numbers: refused, not read as "no limit" or "nothing relevant".
      {"tune --data synthetic --config " + conf + " --space " + space + " --minutes nan", "--minutes"},
      {"tune --data synthetic --config " + conf + " --space " + space + " --minutes inf", "--minutes"},
      {"evaluate --model " + dir + " --relevant-min inf", "--relevant-min"},
      {"evaluate --model " + dir + " --relevant-min nan", "--relevant-min"},
      {"evaluate --model " + dir + " --relevant-min -inf", "--relevant-min"},
  };
  for (const auto& [args, needle] : cases) {
    std::string out;
    EXPECT_EQ(run_symgnn(args, &out), 2) << args << "\n" << out;
    EXPECT_NE(out.find(needle), std::string::npos) << args << "\n" << out;
    EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1) << args << "\n" << out;
  }
}

TEST(ArgumentChecks, InRangeValuesStillWork) {
  std::string out;
  EXPECT_EQ(run_symgnn("config --set train.epochs=3", &out), 0) << out;
  EXPECT_EQ(run_symgnn("train --epochs 1 --runs 1 --seed 0 --threads 1 --quiet --no-compare", &out), 0)
      << out;
}
