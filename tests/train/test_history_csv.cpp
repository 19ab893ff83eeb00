// history.csv: format 2 written and read back by column name; format 1 (the first release's
// fixed columns, no comment line) reads the same; damaged rows and newer formats are
// DataErrors naming the file and line.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "common/test_support.h"
#include "symgnn/error.h"
#include "train/history_csv.h"
#include "train/run_state.h"

using namespace symgnn;
namespace st = symgnn::testing;

namespace {

std::vector<train::EpochRecord> two_epochs() {
  train::EpochRecord a{1,    0.5,  0.01,
                       1.25, 1000, {{"train_rmse", 1.1}, {"val_rmse", 1.05}, {"test_rmse", 1.06}}};
  train::EpochRecord b{2, 0.4, 0.005, 1.5, 2000, {{"train_rmse", 1.0}, {"val_ndcg@10", 0.25}}};
  return {a, b};
}

double cell(const train::HistoryTable& t, size_t row, const std::string& name) {
  const int c = t.column(name);
  EXPECT_GE(c, 0) << name;
  return c < 0 ? NAN : t.rows.at(row).at(static_cast<size_t>(c));
}

}  // namespace

TEST(HistoryCsv, WritesFormatTwoAndReadsItBackByName) {
  const std::string dir = st::scratch_dir("history");
  const std::string path = dir + "/history.csv";
  train::write_history_csv(path, two_epochs());
  const std::string text = st::read_file(path);
  EXPECT_EQ(text.rfind("# symgnn history.csv, format 2", 0), 0u) << text;

  const train::HistoryTable t = train::read_history_csv(path);
  EXPECT_EQ(t.format, train::kHistoryFormat);
  ASSERT_EQ(t.rows.size(), 2u);
  EXPECT_EQ(cell(t, 0, "epoch"), 1);
  EXPECT_EQ(cell(t, 1, "peak_memory_bytes"), 2000);
  EXPECT_DOUBLE_EQ(cell(t, 0, "seconds"), 1.25);
  EXPECT_DOUBLE_EQ(cell(t, 0, "val_rmse"), 1.05);
  EXPECT_TRUE(std::isnan(cell(t, 1, "val_rmse")));  // not evaluated that epoch
  EXPECT_DOUBLE_EQ(cell(t, 1, "val_ndcg@10"), 0.25);
  EXPECT_TRUE(std::isnan(cell(t, 0, "val_ndcg@10")));
  // A ranking figure no epoch measured gets no column; every prediction figure does.
  EXPECT_EQ(t.column("test_ndcg@10"), -1);
  EXPECT_GE(t.column("test_mae"), 0);
}

TEST(HistoryCsv, ReadsTheFirstReleasesFormatByName) {
  const std::string dir = st::scratch_dir("history-v1");
  const std::string path =
      st::write_file(dir, "history.csv",
                     "epoch,loss,train_rmse,val_rmse,test_rmse,lr,seconds,peak_memory_bytes,val_mae\n"
                     "1,1,1.1,1.05,1.06,0.01,2.5,7,0.8\n2,0.9,1.0,nan,1.01,0.01,3,7,0.7\n");
  const train::HistoryTable t = train::read_history_csv(path);
  EXPECT_EQ(t.format, 1);
  ASSERT_EQ(t.rows.size(), 2u);
  EXPECT_DOUBLE_EQ(cell(t, 0, "seconds"), 2.5);
  EXPECT_DOUBLE_EQ(cell(t, 0, "val_rmse"), 1.05);
  EXPECT_TRUE(std::isnan(cell(t, 1, "val_rmse")));
  EXPECT_DOUBLE_EQ(cell(t, 1, "val_mae"), 0.7);
}

TEST(HistoryCsv, DamageAndNewerFormatsAreDataErrorsNamingTheLine) {
  const std::string dir = st::scratch_dir("history-bad");
  const auto message = [&](const std::string& name, const std::string& text) {
    const std::string path = st::write_file(dir, name, text);
    try {
      train::read_history_csv(path);
    } catch (const DataError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(
      message("short.csv", "epoch,loss\n1,2\n3\n").find("short.csv:3: 1 cells where the header names 2"),
      std::string::npos);
  EXPECT_NE(message("word.csv", "epoch,loss\n1,abc\n").find("word.csv:2: loss is no number"),
            std::string::npos);
  EXPECT_NE(message("new.csv", "# symgnn history.csv, format 9: later\nepoch\n1\n")
                .find("new.csv:1: history format 9 is newer than this release's (2)"),
            std::string::npos);
}
