// The search-space file: every form it accepts and every error, each naming file and line.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "common/test_support.h"
#include "symgnn/error.h"
#include "tune/space.h"

using namespace symgnn::tune;

TEST(TuneSpace, ParsesEveryForm) {
  const Space s = parse_space(
      "# the low-rank model\n"
      "\n"
      "train.lr = loguniform 0.001 0.03   # log scale\n"
      "lowrank.hidden = choice 32|64|75\n"
      "lowrank.dropout=uniform 0 0.7\n"
      "lowrank.layers = int 1 3\n"
      "lowrank.activation = choice relu | elu\n"
      "lowrank.biases = choice true|false\n"
      "model = choice lowrank|base\n"
      "train.epochs = int 5 5\n",
      "my.space");
  EXPECT_EQ(s.file, "my.space");
  ASSERT_EQ(s.params.size(), 8u);
  const Param& lr = s.params[0];
  EXPECT_EQ(lr.key, "train.lr");
  EXPECT_EQ(lr.kind, Kind::loguniform);
  EXPECT_DOUBLE_EQ(lr.lo, 0.001);
  EXPECT_DOUBLE_EQ(lr.hi, 0.03);
  EXPECT_EQ(lr.line, 3);
  EXPECT_EQ(s.params[1].kind, Kind::choice);
  EXPECT_EQ(s.params[1].choices, (std::vector<std::string>{"32", "64", "75"}));
  EXPECT_EQ(s.params[2].kind, Kind::uniform);
  EXPECT_EQ(s.params[3].kind, Kind::integer);
  EXPECT_EQ(s.params[3].lo, 1);
  EXPECT_EQ(s.params[3].hi, 3);
  EXPECT_EQ(s.params[4].choices, (std::vector<std::string>{"relu", "elu"}));
  EXPECT_EQ(describe(s.params[1]), "choice 32|64|75");
  EXPECT_EQ(describe(s.params[3]), "int 1 3");
  EXPECT_EQ(describe(s.params[0]), "loguniform 0.001 0.03");
}

TEST(TuneSpace, EveryErrorNamesFileAndLine) {
  // {line 2 of the file, what the message must say}
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"train.lr loguniform 0.001 0.03", "expected 'key = choice"},
      {"= choice 1|2", "missing key"},
      {"train.lr =", "missing distribution"},
      {"train.lr = normal 0 1", "unknown distribution 'normal'"},
      {"train.lrate = uniform 0.001 0.01", "unknown key 'train.lrate'"},
      {"trian.lr = choice 0.1", "unknown section 'trian'"},
      {"lowrank.activation = choice relu|bogus", "lowrank.activation = 'bogus': must be one of"},
      {"lowrank.hidden = choice 32||64", "empty value"},
      {"lowrank.hidden = choice 32|32", "listed twice"},
      {"lowrank.hidden = choice", "choice needs values"},
      {"lowrank.hidden = choice 32 64", "'32 64': separate choice values with '|'"},
      {"lowrank.dropout = uniform 0 0.99", "lowrank.dropout = '0.99': must be in [0, 0.95]"},
      {"train.lr = loguniform 0 0.1", "loguniform needs LO > 0"},
      {"train.lr = uniform 0.1 0.01", "must be below HI"},
      {"train.lr = uniform 0.1", "needs two bounds"},
      {"train.lr = uniform a 0.1", "'a' is not a finite number"},
      {"lowrank.layers = int 1 2.5", "int bounds must be integers"},
      {"lowrank.layers = int 3 1", "is above HI"},
      {"lowrank.layers = int 0 20", "lowrank.layers = '20': must be in [0, 16]"},
      {"lowrank.hidden = uniform 16 64", "integer key: use 'int LO HI'"},
      {"lowrank.activation = uniform 0 1", "takes words"},
      {"data.val_fraction = uniform 0.05 0.1", "data.val_fraction cannot be searched"},
      {"train.threads = int 1 4", "runtime setting"},
      {"train.lr = uniform 0.001 0.01", "train.lr is already searched above"},
  };
  for (const auto& [line, what] : cases) {
    try {
      parse_space("train.lr = loguniform 0.001 0.03\n" + line + "\n", "dir/my.space");
      ADD_FAILURE() << "accepted: " << line;
    } catch (const symgnn::DataError& e) {
      const std::string msg = e.what();
      EXPECT_EQ(msg.rfind("dir/my.space:2: ", 0), 0u) << msg;
      EXPECT_NE(msg.find(what), std::string::npos) << line << " -> " << msg;
      EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
    }
  }
}

TEST(TuneSpace, EmptyAndMissingFiles) {
  EXPECT_THROW(parse_space("# nothing\n\n", "empty.space"), symgnn::DataError);
  try {
    load_space_file("/nonexistent/x.space");
    ADD_FAILURE();
  } catch (const symgnn::DataError& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/x.space"), std::string::npos);
  }
  const std::string dir = symgnn::testing::scratch_dir("tune_space");
  const std::string path = symgnn::testing::write_file(dir, "a.space", "lowrank.hidden = choice 8|16\n");
  EXPECT_EQ(load_space_file(path).params.size(), 1u);
}

TEST(TuneSpace, TheExampleSpaceOfTheRepositoryParses) {
  const Space s = load_space_file(std::string(SYMGNN_SOURCE_DIR) + "/configs/spaces/lowrank.space");
  EXPECT_EQ(s.params.size(), 5u);
}
