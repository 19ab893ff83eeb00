/// @file parsers.h
/// The parsers of every text format. The generic formats read from a LineReader, which
/// streams a file of any size or splits text in memory; the *_text forms take the whole
/// text (the fuzzer, fuzz/fuzz_text_parsers.cpp, calls them on arbitrary bytes, and small
/// files). Each throws DataError "<name>:<line>: <what>" on bad input.
/// Generic formats (ratings CSV, edge lists, features) live in ratings_csv.cpp; the MovieLens
/// formats in movielens.cpp.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "data/text_reader.h"
#include "symgnn/dataset.h"
#include "symgnn/delta.h"

namespace symgnn::data {

/// The original ids of a side (NodeSet::id_of of each index) as an IdIndex: what the id
/// columns of a file are looked up in after loading (predict, recommend, new ratings).
/// Defined in dataset.cpp, outside the fuzzer's sources.
IdIndex id_index(const NodeSet& side);

// ---- Generic "user,item,rating" files (ratings_csv.cpp) ----

/// One rating with its original ids; the views point into the parsed text (or, from
/// read_ratings, into the reader's buffer for the time of the call).
struct RawRating {
  std::string_view user;
  std::string_view item;
  double value;
  long line;
  double time = std::numeric_limits<double>::quiet_NaN();  // unix seconds; NaN: the file has no times
};

/// Whether a header's name of the 4th column names the ratings' times (timestamp, time, ts,
/// datetime, date, unix_time, any case).
bool is_time_column_name(std::string_view field);

/// A ratings CSV/TSV: delimiter detected from the first data line (tab, comma, semicolon or
/// whitespace); optional header (first line whose third field is not a number); columns
/// user, item, rating, then the time (a 4th column, where a header names it as one, or where
/// a file without a header has one: to_time's unix seconds or UTC date, on every line),
/// then any ignored ones; '#' comment lines. Ratings must be finite.
/// `feedback` (data.feedback resolved, data/feedback.h): "ratings" as above; "counts" the
/// same columns, the third a positive count; "implicit" two columns (user, item), each line
/// an interaction of value 1, a header where the first field names the user column, the
/// times in the third column where the header names it so, other columns ignored.
/// read_ratings hands each rating to `sink` in file order as its line is read;
/// parse_ratings_text collects them from text in memory.
void read_ratings(LineReader& in, const std::function<void(const RawRating&)>& sink,
                  const std::string& feedback = "ratings");
std::vector<RawRating> parse_ratings_text(const std::string& text, const std::string& name,
                                          const std::string& feedback = "ratings");

/// One (user, item) pair of a pairs file (`symgnn predict --pairs`); views into the text.
struct RawPair {
  std::string_view user;
  std::string_view item;
  long line;
};

/// A pairs file "user,item[,...]": the ratings reader's lines and delimiters (tab, comma,
/// semicolon or whitespace, detected from the first line; '#' comments; a UTF-8 BOM is
/// dropped by read_text_file), columns after the second ignored. A header is the caller's
/// to recognise (the ids are known there).
std::vector<RawPair> parse_pairs_text(const std::string& text, const std::string& name);

/// Whether a first-line id is a header's name for the user column (user, user_id, userId):
/// files of user ids or (user, item) pairs may start with one.
bool is_user_column_name(std::string_view field);

/// A list of user ids (`recommend --users`): one id per line, its first field; '#' comments;
/// an optional header naming the user column. Returns the indices of the ids in `users`;
/// an unknown id is an error naming the line, as is a list without ids.
std::vector<int64_t> parse_user_list_text(const std::string& text, const std::string& name,
                                          const IdIndex& users);

/// Maps ratings to dense indices as they are read, appending them to `out`. With `add_new`,
/// unknown ids are appended to the indices; without, they are a DataError ("unknown user
/// id"). Duplicate pairs (also against the pairs already in `seen`) are a DataError naming
/// both places. Errors wait for finish(), so that a parse error later in the file is
/// still the one reported, as when a file was parsed whole before its ids were looked up;
/// of the indexing errors the first in file order is reported. Given `unknown` (and without
/// `add_new`), a rating with an unknown id goes there instead, by original id; a pair
/// repeated there is a DataError as well.
class RatingIndexer {
 public:
  RatingIndexer(const std::string& name, IdIndex& users, IdIndex& items, bool add_new, PairRegistry& seen,
                RatingList& out, UnknownRatings* unknown = nullptr);
  void add(const RawRating& r);
  /// Throws the file's first unknown id or duplicate pair, if any.
  void finish();
  /// Interactions (`feedback`, data.feedback resolved: implicit or counts): a pair given
  /// again within this indexer's rows is the same interaction, not an error; its value is
  /// added to the first's under counts, else dropped. Pairs repeated across files still are
  /// errors. Ratings: nothing changes.
  void merge_repeats(const std::string& feedback);

 private:
  std::string name_;
  IdIndex& users_;
  IdIndex& items_;
  bool add_new_;
  PairRegistry& seen_;
  RatingList& out_;
  UnknownRatings* unknown_;
  std::unordered_map<std::string, long> unknown_pairs_;  // "user\0item" -> line, of `unknown_`
  bool merge_ = false, sum_ = false;                     // merge_repeats
  std::unordered_map<uint64_t, size_t> at_;              // merge_: (user << 32 | item) -> position in out_
  std::string error_;                                    // the first unknown id's message
};

/// All of `raw` through a RatingIndexer (repeated pairs merged as merge_repeats(feedback)
/// merges them: in the order of their first rows).
RatingList index_ratings(const std::vector<RawRating>& raw, const std::string& name, IdIndex& users,
                         IdIndex& items, bool add_new, PairRegistry& seen,
                         const std::string& feedback = "ratings");

/// The rows of an edge list read_edge_list left out: rows joining a node to itself (where
/// asked to drop them) and rows repeating an earlier row exactly.
struct EdgeRowsLeftOut {
  int64_t self_loops = 0;
  int64_t repeats = 0;
  /// "2 self-loops and 1 repeated row dropped"; "" when none.
  std::string text() const;
};

/// The rules of an edge list's rows, whatever holds them (a file's lines, Delta rows in
/// memory), on original ids of one side (`side` is "user" or "item" in messages): a weight
/// finite and >= 0, known ids (ids absent from `ids` appended to it where `add_new`), no
/// self-loop (counted in `left_out` instead where given), a repeated row with the same weight
/// or else a DataError naming both lines. Errors name `name` and the row's line.
class EdgeListBuilder {
 public:
  EdgeListBuilder(std::string name, IdIndex& ids, const char* side, bool add_new, EdgeRowsLeftOut* left_out);
  /// One row (a, b, w); `weight_text` is the weight as written, for messages.
  void add(std::string_view a, std::string_view b, double w, std::string_view weight_text, long line);
  /// Throws the earliest row that repeats an edge with another weight (a reader calls it before
  /// it rethrows an error of a later line, so that the earliest problem is the one reported).
  void check_repeats();
  /// The symmetric graph of the rows: (a, b) alone gets (b, a) added; a pair given both ways
  /// with different weights keeps the larger; zero weights dropped. `directed`, where given,
  /// receives the nonzero rows as directed edges (a -> b, each once, sorted) if some pair is
  /// given one way only, and no edge else (NodeSet::directed).
  EdgeList finish(EdgeList* directed);

 private:
  struct Directed {
    uint64_t key;  // a << 32 | b
    float weight;
    uint32_t line;
  };
  std::string name_;
  IdIndex& ids_;
  const char* side_;
  bool add_new_;
  EdgeRowsLeftOut* left_out_;
  std::vector<Directed> directed_;
};

/// An edge list file "a,b[,w]": weight 1 when absent; optional header; exact repeats of a row
/// dropped; the rows' rules as EdgeListBuilder's (without `left_out` a self-loop is a DataError
/// naming its line; data.graph_self_loops = drop gives one).
EdgeList read_edge_list(LineReader& in, const IdIndex& ids, const char* side,
                        EdgeRowsLeftOut* left_out = nullptr, EdgeList* directed = nullptr);
/// read_edge_list that appends ids absent from `ids` to it (nodes without ratings, kept
/// for cold-start) instead of refusing them.
EdgeList read_edge_list_adding(LineReader& in, IdIndex& ids, const char* side,
                               EdgeRowsLeftOut* left_out = nullptr, EdgeList* directed = nullptr);
EdgeList parse_edge_list_text(const std::string& text, const std::string& name, const IdIndex& ids,
                              const char* side, EdgeList* directed = nullptr);
/// Edge rows given in memory (their sides and ops are the caller's: each is an added row
/// (a, b, weight)), by the file's rules; row k is line k + 1 of `name`.
EdgeList edge_list_of_rows(const std::vector<Delta::Edge>& rows, const std::string& name, IdIndex& ids,
                           const char* side, bool add_new, EdgeRowsLeftOut* left_out = nullptr,
                           EdgeList* directed = nullptr);

/// The rules of a features table's rows, whatever holds them: `cols` values per row (the
/// first row's count; `first_line` names it), each finite, one row per id (ids absent from
/// `ids` appended where `add_new`, unknown ids refused else), and in finish() a row for every
/// id of the (grown) index.
class FeatureRowsBuilder {
 public:
  FeatureRowsBuilder(std::string name, IdIndex& ids, const char* side, bool add_new, size_t cols,
                     long first_line);
  /// Throws unless a row of `fields` fields (the id and its values) fits the table.
  void check_fields(size_t fields, long line) const;
  /// The node of a row's id (checked, registered as having its row).
  int64_t node(std::string_view id, long line);
  /// Value `v` of column `column` (from 0) as stored; `as_written` for messages.
  float value(double v, std::string_view as_written, size_t column, long line) const;
  void set(int64_t node, std::vector<float> row);
  FeatureMatrix finish(std::vector<std::string> names);

 private:
  std::string name_;
  IdIndex& ids_;
  const char* side_;
  bool add_new_;
  size_t cols_;
  long first_line_;
  std::vector<long> row_line_;  // per id: the line of its row, 0 before
  std::vector<std::pair<int64_t, std::vector<float>>> rows_;
};

/// Side features "id,f1,f2,..." with an optional header (a first line with a non-numeric
/// feature; its fields name the columns). Every id in `ids` needs exactly one row.
FeatureMatrix read_features(LineReader& in, const IdIndex& ids, const char* side);
/// read_features that appends ids absent from `ids` to it (nodes without ratings, kept for
/// cold-start) instead of refusing them; every id of the grown index still needs a row.
FeatureMatrix read_features_adding(LineReader& in, IdIndex& ids, const char* side);
/// Feature rows given in memory (columns f1, f2, ...), by the file's rules; row k is line
/// k + 1 of `name`.
FeatureMatrix feature_matrix_of_rows(const std::vector<Delta::Features>& rows, const std::string& name,
                                     IdIndex& ids, const char* side, bool add_new);

// ---- MovieLens (movielens.cpp) ----

/// A rating with original 1-based MovieLens ids.
struct IdRating {
  int64_t user;
  int64_t item;
  float value;
  long line;
  double time = 0;  // the timestamp, unix seconds
};

/// u.data, <split>.base/.test (Delimiter::Tab) and ratings.dat (Delimiter::DoubleColon):
/// "user item rating timestamp", positive integer ids, integer ratings 1..5. Ids above
/// max_user / max_item (when > 0) are errors, as are pairs already in `seen`.
std::vector<IdRating> parse_movielens_ratings(const std::string& text, const std::string& name, Delimiter d,
                                              int64_t max_user, int64_t max_item, PairRegistry& seen);

/// u.info: "943 users", "1682 items" (other lines ignored). Returns {users, items}.
std::pair<int64_t, int64_t> parse_ml100k_info(const std::string& text, const std::string& name);

/// u.occupation (one name a line) or u.genre ("name|index", index = row order).
std::vector<std::string> parse_ml100k_vocabulary(const std::string& text, const std::string& name);

/// Largest id in the first '|'-separated field (sizes ML-100K without u.info).
int64_t parse_ml100k_max_id(const std::string& text, const std::string& name);

/// u.user "id|age|gender|occupation|zip" -> [age / max age, gender one-hot (M, F),
/// occupation one-hot]; `occupations` empty: the sorted distinct values. One row per id 1..n.
FeatureMatrix parse_ml100k_users(const std::string& text, const std::string& name, int64_t num_users,
                                 const std::vector<std::string>& occupations);

/// u.item "id|title|date|video date|url|genre flags" -> the genre flags (0/1), taken as the
/// last genres.size() fields (default: the 19 ML-100K genres). One row per id 1..n.
FeatureMatrix parse_ml100k_items(const std::string& text, const std::string& name, int64_t num_items,
                                 const std::vector<std::string>& genres);

/// A side of ML-1M: original ids in ascending order (row k of `features` is ids[k]).
struct NodeTable {
  std::vector<int64_t> ids;
  FeatureMatrix features;
};

/// users.dat "UserID::Gender::Age::Occupation::Zip" -> gender one-hot (2), age-code one-hot
/// (7 codes: 1, 18, 25, 35, 45, 50, 56), occupation one-hot (0..20).
NodeTable parse_ml1m_users(const std::string& text, const std::string& name);

/// movies.dat "MovieID::Title::Genres" -> multi-hot over the 18 ML-1M genres.
NodeTable parse_ml1m_movies(const std::string& text, const std::string& name);

}  // namespace symgnn::data
