/// @file test_line_reader.cpp
/// The streaming line reader (LineReader) and what the loaders built on it promise: the same
/// lines from a file read in tiny chunks as from the text in memory (no trailing newline,
/// CRLF, byte-order mark, lines longer than a chunk, a file many chunks long), and repeats
/// reported with both places and in the order the line-by-line readers reported them.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/test_support.h"
#include "data/data_test_util.h"
#include "data/loaders.h"
#include "data/parsers.h"
#include "symgnn/config.h"

using namespace symgnn::data;
using symgnn::DataConfig;
using symgnn::testing::scratch_dir;
using symgnn::testing::write_file;

namespace {

struct Seen {
  long number;
  std::string text;
  bool operator==(const Seen& o) const { return number == o.number && text == o.text; }
};

std::vector<Seen> all_lines(LineReader& in) {
  std::vector<Seen> out;
  TextLine ln;
  while (in.next(ln)) out.push_back({ln.number, std::string(ln.text)});
  return out;
}

std::vector<Seen> from_file(const std::string& text, size_t chunk, bool comments = true) {
  const std::string path = write_file(scratch_dir("line_reader"), "f.txt", text);
  LineReader in(path, comments, chunk);
  return all_lines(in);
}

std::vector<Seen> from_memory(const std::string& text, bool comments = true) {
  LineReader in(std::string_view(text), "mem", comments);
  return all_lines(in);
}

}  // namespace

TEST(LineReader, FileInTinyChunksGivesTheLinesOfTheTextInMemory) {
  const std::string long_line = std::string(5000, 'x') + ",y,3";
  const std::vector<std::string> texts = {
      "a,b,1\nc,d,2\n",
      "a,b,1\nc,d,2",  // no trailing newline
      "a,b,1\r\nc,d,2\r\n\r\n",
      "\xEF\xBB\xBFuser,item,rating\n1,2,3\n",
      "\n\n  \n# comment\na,b,1\n\t\n# another\nc,d,2\n   \n",
      "first\n" + long_line + "\nlast",
      "x",
  };
  for (const std::string& t : texts)
    for (size_t chunk : {size_t{1}, size_t{2}, size_t{3}, size_t{7}, size_t{64}, LineReader::kDefaultChunk}) {
      EXPECT_EQ(from_file(t, chunk), from_memory(t)) << "chunk " << chunk << " text " << t.substr(0, 30);
      EXPECT_EQ(from_file(t, chunk, false), from_memory(t, false)) << "chunk " << chunk;
    }
  EXPECT_EQ(from_memory("\xEF\xBB\xBF"
                        "a\r\n\nb"),
            (std::vector<Seen>{{1, "a"}, {3, "b"}}));
  EXPECT_EQ(from_file(long_line, 16), (std::vector<Seen>{{1, long_line}}));
}

TEST(LineReader, EmptyAndMissingFilesSayWhich) {
  const auto dir = scratch_dir("line_reader");
  const std::string empty = write_file(dir, "empty.csv", "");
  EXPECT_DATA_ERROR(LineReader(empty, true), "empty.csv", "file is empty");
  const std::string blank = write_file(dir, "blank.csv", "\n \n#c\n");
  LineReader in(blank, true, 2);
  TextLine ln;
  EXPECT_DATA_ERROR(in.next(ln), "blank.csv", "file is empty (no data lines)");
  EXPECT_DATA_ERROR(LineReader(dir + "/absent.csv", true), "absent.csv", "cannot open");
}

TEST(LineReader, ManyChunksOfRatingsParseAsTheTextDoes) {
  std::string text = "user,item,rating\n";
  for (int k = 0; k < 3000; ++k)
    text +=
        "u" + std::to_string(k % 97) + ",i" + std::to_string(k) + "," + std::to_string(1 + k % 5) + "\r\n";
  const std::string path = write_file(scratch_dir("line_reader"), "r.csv", text);
  LineReader in(path, true, 100);  // ~ 600 refills
  std::vector<std::string> streamed;
  read_ratings(in, [&](const RawRating& r) {
    streamed.push_back(std::string(r.user) + "|" + std::string(r.item) + "|" + std::to_string(r.value) + "|" +
                       std::to_string(r.line));
  });
  std::vector<std::string> whole;
  for (const RawRating& r : parse_ratings_text(text, "r.csv"))
    whole.push_back(std::string(r.user) + "|" + std::string(r.item) + "|" + std::to_string(r.value) + "|" +
                    std::to_string(r.line));
  EXPECT_EQ(streamed, whole);
  EXPECT_EQ(streamed.size(), 3000u);
  EXPECT_GT(in.estimated_lines(), 2900u);
}

TEST(LineReader, TheLoaderKeepsOrderIdsAndIndices) {
  const auto dir = scratch_dir("line_reader");
  std::string train, test;
  std::vector<int64_t> users, items;
  for (int k = 0; k < 2000; ++k) {
    if (k == 1957 || k == 1908) continue;  // (7, 39) and (8, 38): left for the test file
    train += std::to_string(k % 50) + "," + std::to_string(k / 50) + ",3\n";
    users.push_back(k % 50);  // ids "0".."49" are indices 0..49 in first-seen order
    items.push_back(k / 50);
  }
  for (int k = 0; k < 20; ++k) test += std::to_string(k) + "," + std::to_string(100 + k) + ",4\n";
  DataConfig cfg;
  cfg.unknown_test = "error";  // the loud error, for the line it names
  cfg.source = write_file(dir, "train.csv", train);
  cfg.test_file = write_file(dir, "test.csv", "user,item,rating\n" + test);
  EXPECT_DATA_ERROR(load_ratings_file(cfg.source, cfg), "test.csv:2:", "unknown item id '100'");
  cfg.test_file = write_file(dir, "test2.csv", "7,39,1\n8,38,2\n");
  const symgnn::Dataset ds = load_ratings_file(cfg.source, cfg);
  EXPECT_EQ(ds.train.user, users);
  EXPECT_EQ(ds.train.item, items);
  EXPECT_EQ(ds.test.user, (std::vector<int64_t>{7, 8}));
  EXPECT_EQ(ds.test.item, (std::vector<int64_t>{39, 38}));
}

TEST(PairRegistry, RepeatsAreReportedWithBothPlacesInReadingOrder) {
  const auto dir = scratch_dir("registry");
  DataConfig cfg;
  cfg.unknown_test = "error";  // unknown ids as errors, to order them against repeats
  const auto load = [&](const std::string& name, const std::string& text) {
    cfg.source = write_file(dir, name, text);
    return load_ratings_file(cfg.source, cfg);
  };
  // The earliest repeat in file order, not the smallest pair.
  EXPECT_DATA_ERROR(load("d1.csv", "9,9,1\n1,1,1\n2,2,1\n1,1,2\n9,9,3\n"),
                    "d1.csv:4:", "duplicate (user, item) pair ('1', '1')", "d1.csv:2");
  // A parse error anywhere in the file wins over a repeat, as when files were parsed whole first.
  EXPECT_DATA_ERROR(load("d2.csv", "1,1,1\n1,1,2\n1,2,x\n"), "d2.csv:3:", "not a number");
  // Across files: a test rating repeating a training one names the training line.
  cfg.test_file = write_file(dir, "t.csv", "2,2,5\n1,1,4\n");
  EXPECT_DATA_ERROR(load("d3.csv", "1,1,1\n2,2,1\n3,3,1\n"), "t.csv:1:", "duplicate", "d3.csv:2");
  // An unknown id before a repeat is the error; a repeat before an unknown id is.
  cfg.test_file = write_file(dir, "t2.csv", "5,5,1\n1,1,4\n");
  EXPECT_DATA_ERROR(load("d4.csv", "1,1,1\n5,2,1\n"), "t2.csv:1:", "unknown item id '5'");
  cfg.test_file = write_file(dir, "t3.csv", "1,1,4\n5,5,1\n");
  EXPECT_DATA_ERROR(load("d5.csv", "1,1,1\n5,2,1\n"), "t3.csv:1:", "duplicate", "d5.csv:1");
  cfg.test_file.clear();

  PairRegistry r;
  r.add(1, 2, "a", 10);
  r.add(2, 1, "a", 11);
  EXPECT_FALSE(r.first_duplicate());
  r.add(3, 3, "b", 1);
  r.add(2, 1, "b", 2);
  r.add(1, 2, "b", 3);
  const auto d = r.first_duplicate();
  ASSERT_TRUE(d);
  EXPECT_EQ(d->a, 2u);
  EXPECT_EQ(d->b, 1u);
  EXPECT_EQ(d->file, "b");
  EXPECT_EQ(d->line, 2);
  EXPECT_EQ(d->first_at, "a:11");
}

TEST(PairRegistry, EdgeRepeatsWithOtherWeightsNameTheEarliestLine) {
  IdIndex ids;
  for (const char* id : {"a", "b", "c"}) ids.add(id);
  EXPECT_DATA_ERROR(parse_edge_list_text("b,c,1\na,b,1\nb,c,1\na,b,2\nb,c,3\n", "g.csv", ids, "user"),
                    "g.csv:4:", "edge ('a', 'b') given again with weight 2, line 2 has 1");
  // A repeat with another weight before a bad line is still the error reported.
  EXPECT_DATA_ERROR(parse_edge_list_text("a,b,1\na,b,2\nzz,b\n", "g.csv", ids, "user"),
                    "g.csv:2:", "given again");
  EXPECT_DATA_ERROR(parse_edge_list_text("a,b,1\nzz,b\na,b,2\n", "g.csv", ids, "user"),
                    "g.csv:2:", "unknown user id 'zz'");
}

// Rows given in memory (symgnn/delta.h) go through the rules of the files' readers
// (EdgeListBuilder, FeatureRowsBuilder) without being printed as text: the same graph and
// table as the file holding the same rows, and the same errors at the same row numbers.
TEST(RowsInMemory, EdgeAndFeatureRowsReadAsTheFileOfTheSameLines) {
  IdIndex ids;
  for (const char* id : {"a", "b", "c"}) ids.add(id);
  using symgnn::Delta;
  const std::vector<Delta::Edge> edges = {{"a", "b", 2.5}, {"b", "c", 1.0}, {"c", "a", 0.125}};
  symgnn::EdgeList file_directed, rows_directed;
  const symgnn::EdgeList from_file =
      parse_edge_list_text("a,b,2.5\nb,c,1\nc,a,0.125\n", "g.csv", ids, "user", &file_directed);
  IdIndex same = ids;
  const symgnn::EdgeList from_rows =
      edge_list_of_rows(edges, "rows", same, "user", false, nullptr, &rows_directed);
  EXPECT_EQ(from_rows.src, from_file.src);
  EXPECT_EQ(from_rows.dst, from_file.dst);
  EXPECT_EQ(from_rows.weight, from_file.weight);
  EXPECT_EQ(rows_directed.src, file_directed.src);
  EXPECT_EQ(rows_directed.dst, file_directed.dst);
  EXPECT_DATA_ERROR((edge_list_of_rows({{"a", "b", 1.0}, {"a", "zz", 1.0}}, "rows", same, "user", false)),
                    "rows:2:", "unknown user id 'zz'");
  EXPECT_DATA_ERROR((edge_list_of_rows({{"a", "b", 1.0}, {"a", "b", 2.0}}, "rows", same, "user", false)),
                    "rows:2:", "edge ('a', 'b') given again with weight 2, line 1 has 1");
  EXPECT_DATA_ERROR((edge_list_of_rows({{"a", "b", -1.0}}, "rows", same, "user", false)),
                    "rows:1:", "weight '-1' is negative or not finite");

  const std::vector<Delta::Features> rows = {{"b", {1.5, -2.0}}, {"a", {0.0, 3.0}}, {"c", {7.0, 8.0}}};
  LineReader in(std::string_view("b,1.5,-2\na,0,3\nc,7,8\n"), "f.csv", true);
  const symgnn::FeatureMatrix file_table = read_features(in, ids, "item");
  const symgnn::FeatureMatrix row_table = feature_matrix_of_rows(rows, "rows", same, "item", false);
  EXPECT_EQ(row_table.values, file_table.values);
  EXPECT_EQ(row_table.names, file_table.names);
  EXPECT_DATA_ERROR((feature_matrix_of_rows({{"a", {1.0, 2.0}}, {"b", {1.0}}}, "rows", same, "item", false)),
                    "rows:2:", "expected 3 fields (id and 2 features, as on line 1), found 2");
  EXPECT_DATA_ERROR((feature_matrix_of_rows({{"a", {1.0}}, {"a", {2.0}}}, "rows", same, "item", false)),
                    "rows:2:", "second row for item id 'a' (first on line 1)");
  EXPECT_DATA_ERROR((feature_matrix_of_rows({{"a", {1.0}}, {"b", {2.0}}}, "rows", same, "item", false)),
                    "rows", "no row for item id 'c'");
}
