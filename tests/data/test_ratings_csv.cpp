/// @file test_ratings_csv.cpp
/// The generic ratings reader: delimiters, headers, string ids, test files, edge lists, feature
/// tables, and every error it promises (each naming file and line).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "common/test_support.h"
#include "data/data_test_util.h"
#include "data/loaders.h"
#include "data/parsers.h"
#include "symgnn/config.h"
#include "symgnn/dataset.h"

using symgnn::DataConfig;
using symgnn::Dataset;
using symgnn::GraphOrigin;
using symgnn::data::load_ratings_file;
using symgnn::testing::scratch_dir;
using symgnn::testing::write_file;

namespace {

DataConfig with_source(const std::string& path) {
  DataConfig cfg;
  cfg.source = path;
  return cfg;
}

// Looks up the rating of (user id, item id) in any split; -1 if absent.
float rating_of(const Dataset& ds, const std::string& user, const std::string& item) {
  const auto u = std::find(ds.users.ids.begin(), ds.users.ids.end(), user) - ds.users.ids.begin();
  const auto i = std::find(ds.items.ids.begin(), ds.items.ids.end(), item) - ds.items.ids.begin();
  for (const symgnn::RatingList* r : {&ds.train, &ds.validation, &ds.test})
    for (size_t k = 0; k < r->size(); ++k)
      if (r->user[k] == u && r->item[k] == i) return r->value[k];
  return -1;
}

const char* kTrain =
    "user,item,rating,timestamp\n"
    "alice,matrix,5,100\n"
    "bob,matrix,3,101\n"
    "alice,heat,4,102\n"
    "carol,alien,1.5,103\n"
    "bob,alien,2,104\n";

}  // namespace

TEST(RatingsCsv, CommaWithHeaderAndStringIds) {
  const auto dir = scratch_dir("csv");
  auto cfg = with_source(write_file(dir, "r.csv", kTrain));
  cfg.test_fraction = 0.2;
  const Dataset ds = load_ratings_file(cfg.source, cfg);
  EXPECT_EQ(ds.name, "r.csv");
  EXPECT_EQ(ds.users.count, 3);
  EXPECT_EQ(ds.items.count, 3);
  EXPECT_EQ(ds.users.ids, (std::vector<std::string>{"alice", "bob", "carol"}));  // first appearance
  EXPECT_EQ(ds.items.ids, (std::vector<std::string>{"matrix", "heat", "alien"}));
  EXPECT_EQ(ds.train.size() + ds.test.size(), 5u);
  EXPECT_EQ(ds.test.size(), 1u);  // round(0.2 * 5)
  EXPECT_FLOAT_EQ(rating_of(ds, "carol", "alien"), 1.5f);
  EXPECT_EQ(ds.rating_levels, (std::vector<float>{1.5f, 2, 3, 4, 5}));
  EXPECT_FLOAT_EQ(ds.rating_min, 1.5f);
  EXPECT_FLOAT_EQ(ds.rating_max, 5.0f);
  EXPECT_EQ(ds.users.graph_origin, GraphOrigin::None);
  EXPECT_TRUE(ds.users.features.empty());
}

TEST(RatingsCsv, DetectsTabSemicolonAndWhitespace) {
  const auto dir = scratch_dir("csv");
  for (const auto& [file, text] : std::vector<std::pair<std::string, std::string>>{
           {"t.tsv", "1\t10\t4\n2\t10\t5\n1\t11\t3\n"},
           {"s.csv", "1;10;4\n2;10;5\n1;11;3\n"},
           {"w.txt", "1  10 4\n 2\t10   5\n1 11 3  \n"},
           {"crlf.csv", "\xEF\xBB\xBFu,i,r\r\n1,10,4\r\n2,10,5\r\n\r\n# comment\n1,11,3\r\n"},
           {"quoted.csv", "\"1\",\"10\",\"4\"\n2, 10 , 5\n1,11,3\n"},
       }) {
    SCOPED_TRACE(file);
    auto cfg = with_source(write_file(dir, file, text));
    cfg.test_fraction = 0.01;  // rounds to no test rating
    const Dataset ds = load_ratings_file(cfg.source, cfg);
    EXPECT_EQ(ds.users.count, 2);
    EXPECT_EQ(ds.items.count, 2);
    EXPECT_EQ(ds.train.size(), 3u);
    EXPECT_FLOAT_EQ(rating_of(ds, "2", "10"), 5.0f);
  }
}

TEST(RatingsCsv, HeaderMayUseAnotherDelimiter) {
  const auto dir = scratch_dir("csv");
  auto cfg = with_source(write_file(dir, "h.csv", "user item rating\n1,2,3\n2,2,4\n"));
  const std::string text = symgnn::data::read_text_file(cfg.source);  // the views point into it
  const auto raw = symgnn::data::parse_ratings_text(text, "h.csv");
  ASSERT_EQ(raw.size(), 2u);
  EXPECT_EQ(raw[0].user, "1");
  EXPECT_EQ(raw[0].line, 2);
  EXPECT_DOUBLE_EQ(raw[1].value, 4.0);
}

TEST(RatingsCsv, RandomSplitIsSeeded) {
  std::string text;
  for (int u = 0; u < 20; ++u)
    for (int i = 0; i < 10; ++i)
      text += std::to_string(u) + "," + std::to_string(i) + "," + std::to_string(1 + (u + i) % 5) + "\n";
  const auto dir = scratch_dir("csv");
  auto cfg = with_source(write_file(dir, "r.csv", text));
  cfg.test_fraction = 0.25;
  const Dataset a = load_ratings_file(cfg.source, cfg), b = load_ratings_file(cfg.source, cfg);
  EXPECT_EQ(a.test.size(), 50u);
  EXPECT_EQ(a.train.size(), 150u);
  EXPECT_EQ(a.test.user, b.test.user);
  EXPECT_EQ(a.test.item, b.test.item);
  cfg.split_seed = 99;
  const Dataset c = load_ratings_file(cfg.source, cfg);
  EXPECT_TRUE(a.test.user != c.test.user || a.test.item != c.test.item);
}

TEST(RatingsCsv, TestFileFormsTheTestSplit) {
  const auto dir = scratch_dir("csv");
  auto cfg = with_source(write_file(dir, "train.csv", kTrain));
  cfg.test_file = write_file(dir, "test.tsv", "carol\tmatrix\t4\nbob\theat\t2\n");
  const Dataset ds = load_ratings_file(cfg.source, cfg);
  EXPECT_EQ(ds.train.size(), 5u);
  EXPECT_EQ(ds.test.size(), 2u);
  EXPECT_EQ(ds.users.count, 3);
  EXPECT_EQ(ds.test.user[0], 2);  // carol
  EXPECT_EQ(ds.test.item[0], 0);  // matrix
}

TEST(RatingsCsv, TestFileErrors) {
  const auto dir = scratch_dir("csv");
  auto cfg = with_source(write_file(dir, "train.csv", kTrain));
  cfg.unknown_test = "error";  // unknown ids kept apart otherwise (TestRatingsOfUnknownIdsAreKeptApart)
  cfg.test_file = write_file(dir, "t1.csv", "carol,matrix,4\ndave,heat,2\n");
  EXPECT_DATA_ERROR(load_ratings_file(cfg.source, cfg), "t1.csv:2:", "unknown user id 'dave'");
  cfg.test_file = write_file(dir, "t2.csv", "carol,dune,4\n");
  EXPECT_DATA_ERROR(load_ratings_file(cfg.source, cfg), "t2.csv:1:", "unknown item id 'dune'");
  cfg.test_file = write_file(dir, "t3.csv", "carol,matrix,4\nbob,alien,5\n");
  EXPECT_DATA_ERROR(load_ratings_file(cfg.source, cfg), "t3.csv:2:", "duplicate", "train.csv:6");
  cfg.test_file = dir + "/absent.csv";
  EXPECT_DATA_ERROR(load_ratings_file(cfg.source, cfg), "absent.csv", "cannot open");
}

// Issue 30, "data as users have it": a test file with ids the training file lacks, as an own
// random split gives, is not an error; those ratings are kept by original id and scored apart.
TEST(RatingsCsv, TestRatingsOfUnknownIdsAreKeptApart) {
  const auto dir = scratch_dir("csv");
  auto cfg = with_source(write_file(dir, "train.csv", kTrain));
  cfg.test_file = write_file(dir, "t.csv", "carol,matrix,4\ndave,heat,2\nbob,dune,5\ndave,dune,1\n");
  const Dataset ds = load_ratings_file(cfg.source, cfg);
  EXPECT_EQ(ds.users.count, 3);  // no node is added for dave or dune
  EXPECT_EQ(ds.items.count, 3);
  ASSERT_EQ(ds.test.size(), 1u);
  const symgnn::UnknownRatings& u = ds.test_unknown;
  EXPECT_EQ(u.user, (std::vector<std::string>{"dave", "bob", "dave"}));
  EXPECT_EQ(u.item, (std::vector<std::string>{"heat", "dune", "dune"}));
  EXPECT_EQ(u.value, (std::vector<float>{2, 5, 1}));
  EXPECT_EQ(u.line, (std::vector<long>{2, 3, 4}));
  EXPECT_EQ(ds.num_ratings(), 9u);
  EXPECT_NO_THROW(symgnn::validate_dataset(ds, "test"));

  // What is really wrong stays a loud error: a repeat among them, or a file of which no
  // rating names known ids (another id scheme).
  cfg.test_file = write_file(dir, "t2.csv", "carol,matrix,4\ndave,heat,2\ndave,heat,3\n");
  EXPECT_DATA_ERROR(load_ratings_file(cfg.source, cfg),
                    "t2.csv:3:", "duplicate (user, item) pair ('dave', 'heat')", "t2.csv:2");
  cfg.test_file = write_file(dir, "t3.csv", "u9,i9,4\nu8,i8,2\n");
  EXPECT_DATA_ERROR(load_ratings_file(cfg.source, cfg), "t3.csv:1:", "none of its 2 test ratings");
  cfg.test_file = write_file(dir, "t4.csv", "carol,matrix,4\nda,ve,heat,2\n");
  EXPECT_DATA_ERROR(load_ratings_file(cfg.source, cfg), "t4.csv:2:", "rating 'heat' is not a number");
}

// Feature and graph rows of ids without ratings (a catalogue's feature table) become nodes
// without ratings, kept for cold-start; a test rating naming them is a test rating like any.
TEST(RatingsCsv, GraphAndFeatureRowsOfUnratedIdsBecomeNodes) {
  const auto dir = scratch_dir("csv");
  auto cfg = with_source(write_file(dir, "r.csv", kTrain));
  cfg.item_graph_file = write_file(dir, "ig.csv", "matrix,dune\nheat,alien\n");
  cfg.item_features_file =
      write_file(dir, "if.csv", "id,year\nmatrix,1999\ndune,1984\nheat,1995\nalien,1979\nbrazil,1985\n");
  cfg.user_graph_file = write_file(dir, "ug.csv", "alice,dave,2\n");
  cfg.test_file = write_file(dir, "t.csv", "dave,dune,4\ncarol,brazil,3\nerin,heat,2\n");
  const Dataset ds = load_ratings_file(cfg.source, cfg);
  EXPECT_EQ(ds.items.ids, (std::vector<std::string>{"matrix", "heat", "alien", "dune", "brazil"}));
  EXPECT_EQ(ds.users.ids, (std::vector<std::string>{"alice", "bob", "carol", "dave"}));
  EXPECT_EQ(ds.items.graph.num_nodes, 5);  // counted after the features added brazil
  EXPECT_EQ(ds.users.graph.num_nodes, 4);
  ASSERT_EQ(ds.items.features.rows, 5);
  EXPECT_FLOAT_EQ(ds.items.features.at(4, 0), 1985);
  EXPECT_EQ(ds.test.size(), 2u);          // (dave, dune) and (carol, brazil): nodes without ratings
  ASSERT_EQ(ds.test_unknown.size(), 1u);  // erin is in no file
  EXPECT_EQ(ds.test_unknown.user[0], "erin");
  EXPECT_NO_THROW(symgnn::validate_dataset(ds, "test"));
  // A graph's new id without a feature row is refused, naming it.
  cfg.item_graph_file = write_file(dir, "ig2.csv", "matrix,zardoz\n");
  EXPECT_DATA_ERROR(load_ratings_file(cfg.source, cfg), "if.csv", "no row for item id 'zardoz'");
}

TEST(RatingsCsv, RatingErrorsNameFileAndLine) {
  const auto dir = scratch_dir("csv");
  const auto load = [&](const std::string& name, const std::string& text) {
    return load_ratings_file(write_file(dir, name, text), with_source(dir + "/" + name));
  };
  EXPECT_DATA_ERROR(load("few.csv", "1,2,3\n1,3\n"), "few.csv:2:", "expected at least 3 fields", "found 2");
  EXPECT_DATA_ERROR(load("text.csv", "u,i,r\n1,2,3\n1,3,good\n"),
                    "text.csv:3:", "rating 'good' is not a number");
  EXPECT_DATA_ERROR(load("nan.csv", "1,2,3\n1,3,nan\n"), "nan.csv:2:", "not a finite number");
  EXPECT_DATA_ERROR(load("inf.csv", "1,2,3\n1,3,-inf\n"), "inf.csv:2:", "not a finite number");
  EXPECT_DATA_ERROR(load("big.csv", "1,2,3\n1,3,1e300\n"), "big.csv:2:", "not a finite number");
  // Beyond a double's range is still a number: an error on either line, never a header.
  EXPECT_DATA_ERROR(load("huge1.csv", "1,2,1e400\n1,3,4\n"), "huge1.csv:1:", "not a finite number");
  EXPECT_DATA_ERROR(load("huge2.csv", "1,2,4\n1,3,-1e400\n"), "huge2.csv:2:", "not a finite number");
  EXPECT_DATA_ERROR(load("dup.csv", "1,2,3\n\n1,3,4\n1,2,5\n"),
                    "dup.csv:4:", "duplicate (user, item) pair ('1', '2')", "dup.csv:1");
  EXPECT_DATA_ERROR(load("noid.csv", "1,2,3\n,3,4\n"), "noid.csv:2:", "empty user id");
  EXPECT_DATA_ERROR(load("noitem.csv", "1,2,3\n1,,4\n"), "noitem.csv:2:", "empty item id");
  EXPECT_DATA_ERROR(load("empty.csv", ""), "empty.csv", "file is empty");
  EXPECT_DATA_ERROR(load("blank.csv", "\n  \n# only a comment\n"), "blank.csv", "file is empty");
  EXPECT_DATA_ERROR(load("header.csv", "user,item,rating\n"), "header.csv", "header line but no ratings");
  EXPECT_DATA_ERROR(load_ratings_file(dir + "/missing.csv", with_source(dir + "/missing.csv")), "missing.csv",
                    "cannot open");
  // Ids the CSV files symgnn writes could not hold as one field: refused when read, not after
  // training (a quoted field keeps its quotes: the reader splits on every separator).
  EXPECT_DATA_ERROR(load("quoted.csv", "1,2,3\n\"a,b\",1,4\n"),
                    "quoted.csv:2:", "user id '\"a' holds a double quote");
  EXPECT_DATA_ERROR(load("comma.tsv", "1\t2\t3\n1\ta,b\t4\n"), "comma.tsv:2:", "item id 'a,b' holds a comma");
  std::filesystem::create_directories(dir + "/adir");
  EXPECT_DATA_ERROR(load_ratings_file(dir + "/adir", with_source(dir + "/adir")), "adir",
                    "is a directory, not a file");
}

TEST(RatingsCsv, BinaryGarbageGivesOneLineMessage) {
  const auto dir = scratch_dir("csv");
  const std::string text = std::string("1,2,3\n1,3,\x01\xff\x00z\n", 15);
  const auto path = write_file(dir, "bin.csv", text);
  EXPECT_DATA_ERROR(load_ratings_file(path, with_source(path)), "bin.csv:2:", "\\x01\\xFF\\x00z");
}

TEST(RatingsCsv, GraphFilesAreSymmetrisedAndKeepTheirDirection) {
  const auto dir = scratch_dir("csv");
  auto cfg = with_source(write_file(dir, "r.csv", kTrain));
  // Directed, as trust networks are: bob -> alice repeats alice -> bob with another weight
  // (the pair keeps the larger), carol -> bob has no reverse.
  cfg.user_graph_file =
      write_file(dir, "users.csv", "src,dst,weight\nalice,bob,2\nbob,alice,0.5\ncarol,bob\n");
  cfg.item_graph_file = write_file(dir, "items.tsv", "matrix\talien\nheat\tmatrix\t0.5\nalien\theat\t0\n");
  const Dataset ds = load_ratings_file(cfg.source, cfg);
  ASSERT_EQ(ds.users.graph_origin, GraphOrigin::File);
  const auto& g = ds.users.graph;
  EXPECT_EQ(g.num_nodes, 3);
  // alice(0)-bob(1) w 2 and bob(1)-carol(2) w 1, both directions, sorted.
  EXPECT_EQ(g.src, (std::vector<int64_t>{0, 1, 1, 2}));
  EXPECT_EQ(g.dst, (std::vector<int64_t>{1, 0, 2, 1}));
  EXPECT_EQ(g.weight, (std::vector<float>{2, 2, 1, 1}));
  // matrix(0)-alien(2) and heat(1)-matrix(0) both ways, the zero-weight edge dropped.
  const auto& h = ds.items.graph;
  EXPECT_EQ(h.src, (std::vector<int64_t>{0, 0, 1, 2}));
  EXPECT_EQ(h.dst, (std::vector<int64_t>{1, 2, 0, 0}));
  EXPECT_EQ(h.weight, (std::vector<float>{0.5f, 1, 0.5f, 1}));
  EXPECT_NO_THROW(symgnn::validate_dataset(ds, "test"));
  // The user file's own direction is kept beside (carol -> bob alone), each row once.
  const auto& d = ds.users.directed;
  EXPECT_EQ(d.src, (std::vector<int64_t>{0, 1, 2}));
  EXPECT_EQ(d.dst, (std::vector<int64_t>{1, 0, 1}));
  EXPECT_EQ(d.weight, (std::vector<float>{2, 0.5f, 1}));
  EXPECT_EQ(d.num_nodes, 3);
  // A file giving every nonzero pair both ways has no direction to keep.
  cfg.user_graph_file = write_file(dir, "both.csv", "alice,bob\nbob,alice\nbob,carol,2\ncarol,bob,2\n");
  EXPECT_EQ(load_ratings_file(cfg.source, cfg).users.directed.size(), 0u);
}

TEST(RatingsCsv, GraphFileErrors) {
  const auto dir = scratch_dir("csv");
  auto cfg = with_source(write_file(dir, "r.csv", kTrain));
  const auto try_graph = [&](const std::string& name, const std::string& text) {
    cfg.user_graph_file = write_file(dir, name, text);
    return load_ratings_file(cfg.source, cfg);
  };
  EXPECT_DATA_ERROR(try_graph("g2.csv", "alice,bob,1\nbob,carol,-1\n"),
                    "g2.csv:2:", "negative or not finite");
  EXPECT_DATA_ERROR(try_graph("g3.csv", "alice,bob,1\nbob,carol,nan\n"),
                    "g3.csv:2:", "negative or not finite");
  EXPECT_DATA_ERROR(try_graph("g4.csv", "alice,bob,1\nbob,carol,heavy\n"),
                    "g4.csv:2:", "weight 'heavy' is not a number");
  cfg.graph_self_loops = "error";
  EXPECT_DATA_ERROR(try_graph("g5.csv", "alice,bob,1\ncarol,carol\n"),
                    "g5.csv:2:", "self-loop ('carol', 'carol')");
  cfg.graph_self_loops = "drop";
  // A graph row's new id passes the one id rule (data/id_rule.h), as a rating's does.
  EXPECT_DATA_ERROR(try_graph("g11.csv", "alice,bob\nalice,\"dan\n"),
                    "g11.csv:2:", "user id '\"dan' holds a double quote");
  EXPECT_DATA_ERROR(try_graph("g10.csv", "user,item,rating\nalice,heat,4\n"),
                    "g10.csv:1:", "names a ratings file");
  EXPECT_DATA_ERROR(try_graph("g6.csv", "alice,bob,1\nalice\n"), "g6.csv:2:", "expected 2 or 3 fields");
  EXPECT_DATA_ERROR(try_graph("g7.csv", "alice,bob,1,2\n"), "g7.csv:1:", "expected 2 or 3 fields");
  EXPECT_DATA_ERROR(try_graph("g8.csv", "alice,bob,1\nalice,bob,2\n"), "g8.csv:2:", "given again");
  EXPECT_DATA_ERROR(try_graph("g9.csv", ""), "g9.csv", "file is empty");
  cfg.user_graph_file = dir + "/none.csv";
  EXPECT_DATA_ERROR(load_ratings_file(cfg.source, cfg), "none.csv", "cannot open");
}

TEST(RatingsCsv, SelfLoopsAndExactRepeatsOfARealExportAreDroppedAndCounted) {
  // Real trust exports hold rows where people trust themselves, and rows given twice: read
  // as the graph without them, counted on the summary line (data.graph_self_loops = drop,
  // the default); a repeat with another weight stays refused (it is ambiguous).
  const auto dir = scratch_dir("csv_loops");
  auto cfg = with_source(write_file(dir, "r.csv", kTrain));
  cfg.user_graph_file =
      write_file(dir, "trust.csv", "alice,bob\ncarol,carol\nbob,carol\nalice,alice\nalice,bob\nbob,carol\n");
  const Dataset ds = load_ratings_file(cfg.source, cfg);
  const auto& g = ds.users.graph;
  EXPECT_EQ(g.src, (std::vector<int64_t>{0, 1, 1, 2}));
  EXPECT_EQ(g.dst, (std::vector<int64_t>{1, 0, 2, 1}));
  EXPECT_EQ(ds.users.graph_note, "2 self-loops and 2 repeated rows dropped");
  // The same graph as the file without those rows.
  cfg.user_graph_file = write_file(dir, "clean.csv", "alice,bob\nbob,carol\n");
  const Dataset clean = load_ratings_file(cfg.source, cfg);
  EXPECT_EQ(clean.users.graph.src, g.src);
  EXPECT_EQ(clean.users.graph.weight, g.weight);
  EXPECT_EQ(clean.users.graph_note, "");
  // Strict: the first self-loop is the error, naming its line and the key.
  cfg.user_graph_file = dir + "/trust.csv";
  cfg.graph_self_loops = "error";
  EXPECT_DATA_ERROR(load_ratings_file(cfg.source, cfg), "trust.csv:2:", "data.graph_self_loops = error");
  // A repeat with another weight is refused under either value.
  cfg.graph_self_loops = "drop";
  cfg.user_graph_file = write_file(dir, "conflict.csv", "alice,bob,1\nalice,alice\nalice,bob,2\n");
  EXPECT_DATA_ERROR(load_ratings_file(cfg.source, cfg), "conflict.csv:3:", "given again");
}

TEST(RatingsCsv, FeatureFiles) {
  const auto dir = scratch_dir("csv");
  auto cfg = with_source(write_file(dir, "r.csv", kTrain));
  cfg.user_features_file =
      write_file(dir, "uf.csv", "id,age,height\ncarol,30,1.6\nalice,20,1.7\nbob,40,1.8\n");
  cfg.item_features_file = write_file(dir, "if.tsv", "heat\t1\nalien\t2\nmatrix\t3\n");
  const Dataset ds = load_ratings_file(cfg.source, cfg);
  const auto& f = ds.users.features;
  ASSERT_EQ(f.rows, 3);
  ASSERT_EQ(f.cols, 2);
  EXPECT_EQ(f.names, (std::vector<std::string>{"age", "height"}));
  EXPECT_FLOAT_EQ(f.at(0, 0), 20);  // alice is index 0
  EXPECT_FLOAT_EQ(f.at(2, 1), 1.6f);
  EXPECT_NE(ds.users.features_origin.find("uf.csv"), std::string::npos);
  EXPECT_EQ(ds.items.features.names, (std::vector<std::string>{"f1"}));
  EXPECT_FLOAT_EQ(ds.items.features.at(0, 0), 3);  // matrix
}

TEST(RatingsCsv, FeatureFileErrors) {
  const auto dir = scratch_dir("csv");
  auto cfg = with_source(write_file(dir, "r.csv", kTrain));
  const auto try_features = [&](const std::string& name, const std::string& text) {
    cfg.item_features_file = write_file(dir, name, text);
    return load_ratings_file(cfg.source, cfg);
  };
  EXPECT_DATA_ERROR(try_features("f1.csv", "matrix,1\nheat,2\n"), "f1.csv", "no row for item id 'alien'");
  EXPECT_DATA_ERROR(try_features("f2.csv", "matrix,1,2\nheat,2\nalien,3,4\n"),
                    "f2.csv:2:", "expected 3 fields");
  EXPECT_DATA_ERROR(try_features("f3.csv", "id,a\nmatrix,1\nheat,x\nalien,3\n"), "f3.csv:3:", "'x'",
                    "not a number");
  EXPECT_DATA_ERROR(try_features("f4.csv", "matrix,1\nheat,inf\nalien,3\n"),
                    "f4.csv:2:", "not a finite number");
  // An id without ratings becomes a node; the rated ones still need their rows.
  EXPECT_DATA_ERROR(try_features("f5.csv", "matrix,1\ndune,2\n"), "f5.csv", "no row for item id 'heat'");
  EXPECT_DATA_ERROR(try_features("f6.csv", "matrix,1\nheat,2\nmatrix,3\n"), "f6.csv:3:", "second row",
                    "line 1");
  EXPECT_DATA_ERROR(try_features("f7.csv", "matrix\n"),
                    "f7.csv:1:", "expected an id and at least one feature");
}

TEST(RatingsCsv, LoadDatasetCarvesValidationAndValidates) {
  std::string text = "u,i,r\n";
  for (int u = 0; u < 30; ++u)
    for (int i = 0; i < 10; ++i)
      text +=
          "u" + std::to_string(u) + ",i" + std::to_string(i) + "," + std::to_string(1 + (u * i) % 5) + "\n";
  const auto dir = scratch_dir("csv");
  auto cfg = with_source(write_file(dir, "r.csv", text));
  cfg.test_fraction = 0.1;
  cfg.val_fraction = 0.1;
  const Dataset ds = symgnn::load_dataset(cfg);
  EXPECT_EQ(ds.test.size(), 30u);
  EXPECT_EQ(ds.validation.size(), 27u);  // round(0.1 * 270)
  EXPECT_EQ(ds.train.size(), 243u);
  EXPECT_EQ(ds.source, cfg.source);
}
