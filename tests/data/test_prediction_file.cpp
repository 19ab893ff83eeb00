/// @file test_prediction_file.cpp
/// The prediction-file format (data/prediction_file.h): writer/reader round trip, the
/// trainer's Dataset overload, and every error the reader and writer promise.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include "common/test_support.h"
#include "data/prediction_file.h"
#include "symgnn/error.h"

using symgnn::DataError;
using symgnn::data::parse_predictions_text;
using symgnn::data::PredictionRow;
using symgnn::data::read_predictions_csv;
using symgnn::data::write_predictions_csv;
using symgnn::testing::scratch_dir;
using symgnn::testing::write_file;

namespace {

std::string read(const std::string& path) {
  return symgnn::testing::read_file(path);
}

/// The DataError message of parsing `text`, or "" when it parses.
std::string error_of(const std::string& text) {
  try {
    parse_predictions_text(text, "p.csv");
  } catch (const DataError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(PredictionFile, RoundTripsRowsExactly) {
  const auto dir = scratch_dir("pred_roundtrip");
  const std::vector<PredictionRow> rows = {{"alice", "matrix", 4.5, 4.123456789012345, 0},
                                           {"bob", "heat", 1, 1.0 / 3.0, 0},
                                           {"u 3", "i-7", 0.1, -2.5e-300, 0}};
  const std::string path = dir + "/predictions/val.csv";  // the parent is created
  write_predictions_csv(path, rows);
  const auto back = read_predictions_csv(path);
  ASSERT_EQ(back.size(), rows.size());
  for (size_t k = 0; k < rows.size(); ++k) {
    EXPECT_EQ(back[k].user, rows[k].user);
    EXPECT_EQ(back[k].item, rows[k].item);
    EXPECT_EQ(back[k].rating, rows[k].rating);
    EXPECT_EQ(back[k].prediction, rows[k].prediction);  // bit for bit
    EXPECT_EQ(back[k].line, static_cast<long>(k) + 2);
  }
  EXPECT_EQ(read(path).substr(0, 28), "user,item,rating,prediction\n");
}

TEST(PredictionFile, DatasetOverloadWritesOriginalIdsAndShortRatings) {
  const auto dir = scratch_dir("pred_dataset");
  symgnn::Dataset ds;
  ds.users.count = 2;
  ds.users.ids = {"alice", "bob"};
  ds.items.count = 3;  // implicit ids: the index itself
  symgnn::RatingList split;
  split.add(1, 2, 0.1f);
  split.add(0, 0, 5.0f);
  const std::string path = dir + "/test.csv";
  write_predictions_csv(path, ds, split, {0.25, 4.75});
  EXPECT_EQ(read(path), "user,item,rating,prediction\nbob,2,0.1,0.25\nalice,0,5,4.75\n");
  EXPECT_THROW(write_predictions_csv(path, ds, split, {1.0}), DataError);
}

TEST(PredictionFile, HeaderOnlyIsAnEmptySplit) {
  EXPECT_TRUE(parse_predictions_text("user,item,rating,prediction\n", "p.csv").empty());
}

TEST(PredictionFile, EveryReadErrorNamesFileAndLine) {
  const std::string h = "user,item,rating,prediction\n";
  EXPECT_NE(error_of("").find("p.csv: file is empty"), std::string::npos);
  EXPECT_NE(error_of("user,item,rating\na,b,1\n").find("p.csv:1: expected the header"), std::string::npos);
  EXPECT_NE(error_of(h + "a,b,1,2\na,c,1\n").find("p.csv:3: expected 4 comma-separated fields"),
            std::string::npos);
  EXPECT_NE(error_of(h + "a,b,1,2,3\n").find("p.csv:2: expected 4"), std::string::npos);
  EXPECT_NE(error_of(h + "a\tb\t1\t2\n").find("p.csv:2: expected 4"), std::string::npos);
  EXPECT_NE(error_of(h + ",b,1,2\n").find("p.csv:2: empty user id"), std::string::npos);
  EXPECT_NE(error_of(h + "a,,1,2\n").find("p.csv:2: empty item id"), std::string::npos);
  EXPECT_NE(error_of(h + "a,b,x,2\n").find("p.csv:2: rating 'x' is not a number"), std::string::npos);
  EXPECT_NE(error_of(h + "a,b,1,2.5.1\n").find("p.csv:2: prediction '2.5.1' is not a number"),
            std::string::npos);
  EXPECT_NE(error_of(h + "a,b,1,nan\n").find("p.csv:2: prediction 'nan' is not finite"), std::string::npos);
  EXPECT_NE(error_of(h + "a,b,inf,1\n").find("p.csv:2: rating 'inf' is not finite"), std::string::npos);
  EXPECT_NE(error_of(h + "a,b,1,2\n\na,c,1,2\na,b,3,4\n")
                .find("p.csv:5: duplicate (user, item) pair ('a', "
                      "'b'), first at p.csv:2"),
            std::string::npos);
  // Blank lines and CRLF endings are fine; (a, b) and (b, a) are different pairs.
  EXPECT_EQ(error_of(h + "a,b,1,2\r\n\r\nb,a,1,2\r\n"), "");
}

TEST(PredictionFile, MissingFileIsNamed) {
  try {
    read_predictions_csv("/nonexistent/predictions/val.csv");
    FAIL();
  } catch (const DataError& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/predictions/val.csv: cannot open"), std::string::npos);
  }
}

TEST(PredictionFile, WriterRefusesWhatTheReaderWouldMisread) {
  const auto dir = scratch_dir("pred_bad_ids");
  for (const std::string id : {"", "a,b", "say \"hi\"", "line\nbreak", " padded"})
    EXPECT_THROW(write_predictions_csv(dir + "/p.csv", {{id, "i", 1, 1, 0}}), DataError) << id;
  EXPECT_THROW(write_predictions_csv(dir + "/p.csv", {{"u", "i", 1, std::nan(""), 0}}), DataError);
  EXPECT_FALSE(std::ifstream(dir + "/p.csv").good());  // nothing half-written
}
