/// @file ratings_csv.cpp
/// The generic "user,item,rating" reader (load_ratings_file) for users' own data, with its
/// optional test file, edge lists and feature tables over original string ids. Ids become
/// dense indices in order of first appearance in the training file (kept in NodeSet::ids).
#include <algorithm>
#include <cctype>
#include <climits>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <string>
#include <tuple>

#include "data/feedback.h"
#include "data/id_rule.h"
#include "data/loaders.h"
#include "data/parsers.h"
#include "data/random_split.h"
#include "data/time_split.h"
#include "symgnn/error.h"

namespace symgnn::data {

namespace {

std::string count_text(size_t n) {
  return std::to_string(n);
}

bool is_numeric(std::string_view s) {
  double v;
  return to_double(s, v);
}

std::string format_weight(double w) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", w);
  return buf;
}

/// A ratings or pairs line's fields: at least `columns` of them (`names` says which, e.g.
/// "user, item, rating"), the two ids not empty.
void check_fields(const std::vector<std::string_view>& f, size_t columns, const char* names, Delimiter d,
                  const std::string& name, long line) {
  if (f.size() < columns)
    throw DataError(name, line,
                    "expected at least " + count_text(columns) + " fields (" + names + ") separated by " +
                        delimiter_name(d) + ", found " + count_text(f.size()));
  if (f[0].empty()) throw DataError(name, line, "empty user id");
  if (f[1].empty()) throw DataError(name, line, "empty item id");
}

}  // namespace

bool is_time_column_name(std::string_view field) {
  std::string t(field);
  for (char& c : t) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return t == "timestamp" || t == "time" || t == "ts" || t == "datetime" || t == "date" || t == "unix_time";
}

namespace {

/// Whether a first field names the user column of a header: is_user_column_name's names and
/// others interaction logs use (any case).
bool names_user_column(std::string_view field) {
  std::string t(field);
  for (char& c : t) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const char* name : {"user", "user_id", "userid", "uid", "users", "customer", "customer_id", "visitor",
                           "visitor_id", "visitorid", "session", "session_id"})
    if (t == name) return true;
  return false;
}

}  // namespace

void read_ratings(LineReader& in, const std::function<void(const RawRating&)>& sink,
                  const std::string& feedback) {
  const std::string& name = in.name();
  const bool pairs = feedback == "implicit", counts = feedback == "counts";
  const size_t need = pairs ? 2 : 3;
  const char* names = pairs ? "user, item" : counts ? "user, item, count" : "user, item, rating";
  TextLine ln;
  in.next(ln);  // "file is empty (no data lines)" when there is none
  std::vector<std::string_view> f;
  // A header is the first line when its third field is not a number (interactions: when its
  // first field names the user column); the delimiter then comes from the first data line,
  // as a header may be written differently.
  Delimiter d = detect_delimiter(ln.text);
  split_fields(ln.text, d, f);
  if (f.size() < need)
    throw DataError(name, ln.number,
                    std::string("expected at least ") + count_text(need) + " fields (" + names +
                        ") separated by " + delimiter_name(d) + ", found " + count_text(f.size()) +
                        (f.size() == 2 ? " (a file of user, item pairs is implicit feedback: data.feedback = "
                                         "implicit or auto)"
                                       : ""));
  // The times: the column after the value (interactions: after the two ids) where the header
  // names it so, or where a ratings file without a header has one (a header naming it
  // otherwise keeps it an ignored column, as before times were read).
  const size_t time_col = pairs ? 2 : 3;
  bool timed = !pairs && f.size() >= 4;
  const bool header = pairs ? names_user_column(f[0]) : !is_numeric(f[2]);
  if (header) {
    timed = f.size() > time_col && is_time_column_name(f[time_col]);
    if (!in.next(ln)) throw DataError(name, 0, "file has a header line but no ratings");
    d = detect_delimiter(ln.text);
  }
  do {
    split_fields(ln.text, d, f);
    const char* with_time = pairs    ? "user, item, time"
                            : counts ? "user, item, count, time"
                                     : "user, item, rating, time";
    check_fields(f, timed ? time_col + 1 : need, timed ? with_time : names, d, name, ln.number);
    double v = 1.0;
    if (!pairs) {
      const char* what = counts ? "count " : "rating ";
      if (!to_double(f[2], v)) throw DataError(name, ln.number, what + quote(f[2]) + " is not a number");
      if (!std::isfinite(v) || !std::isfinite(static_cast<float>(v)))
        throw DataError(name, ln.number, what + quote(f[2]) + " is not a finite number");
      // Counts are kept as 32-bit floats: one below the smallest of those (1e-302) would be 0.
      if (counts && !(static_cast<float>(v) > 0))
        throw DataError(name, ln.number,
                        "count " + quote(f[2]) + " is not positive" + (v > 0 ? " as a 32-bit float" : "") +
                            " (data.feedback = counts: a row is an interaction counted at least once; leave "
                            "out rows of count 0)");
    }
    RawRating r{f[0], f[1], v, ln.number};
    if (timed && !to_time(f[time_col], r.time))
      throw DataError(
          name, ln.number,
          "time " + quote(f[time_col]) +
              " is not a time (the time column is the rating's time: unix seconds up to "
              "253402300799, the last second of the year 9999, or a UTC date YYYY-MM-DD[THH:MM:SS])");
    sink(r);
  } while (in.next(ln));
}

std::vector<RawRating> parse_ratings_text(const std::string& text, const std::string& name,
                                          const std::string& feedback) {
  LineReader in(std::string_view(text), name, true);
  std::vector<RawRating> out;
  read_ratings(
      in, [&](const RawRating& r) { out.push_back(r); }, feedback);  // views into `text`
  return out;
}

bool is_user_column_name(std::string_view field) {
  return field == "user" || field == "user_id" || field == "userId";
}

std::vector<RawPair> parse_pairs_text(const std::string& text, const std::string& name) {
  const std::vector<TextLine> lines = split_lines(text, name, true);
  const Delimiter d = detect_delimiter(lines.front().text);
  std::vector<RawPair> out;
  out.reserve(lines.size());
  std::vector<std::string_view> f;
  for (const TextLine& ln : lines) {
    split_fields(ln.text, d, f);
    check_fields(f, 2, "user, item", d, name, ln.number);
    out.push_back({f[0], f[1], ln.number});
  }
  return out;
}

std::vector<int64_t> parse_user_list_text(const std::string& text, const std::string& name,
                                          const IdIndex& users) {
  std::vector<int64_t> out;
  std::vector<std::string_view> fields;
  for (const TextLine& line : split_lines(text, name, /*comments=*/true)) {
    split_fields(line.text, detect_delimiter(line.text), fields);
    const std::string_view id = fields.empty() ? std::string_view{} : fields[0];
    const int64_t u = users.find(id);
    if (u < 0) {
      if (out.empty() && line.number == 1 && is_user_column_name(id)) continue;
      throw DataError(name, line.number, "unknown user " + quote(id) + " (not in the model's training data)");
    }
    out.push_back(u);
  }
  if (out.empty()) throw DataError(name + ": no users listed");
  return out;
}

RatingIndexer::RatingIndexer(const std::string& name, IdIndex& users, IdIndex& items, bool add_new,
                             PairRegistry& seen, RatingList& out, UnknownRatings* unknown)
    : name_(name),
      users_(users),
      items_(items),
      add_new_(add_new),
      seen_(seen),
      out_(out),
      unknown_(unknown) {}

void RatingIndexer::add(const RawRating& r) {
  if (!error_.empty()) return;  // the file is failing: only a parse error could still come first
  // The one id rule (data/id_rule.h), for ids that become nodes or are kept by name.
  for (const auto& [what, id] : {std::pair{"user", r.user}, std::pair{"item", r.item}})
    if (const std::string bad = add_new_ || unknown_ ? id_problem(id) : std::string(); !bad.empty()) {
      error_ = DataError(name_, r.line, id_refusal(what, id, bad)).what();
      return;
    }
  const int64_t u = add_new_ ? users_.add(r.user) : users_.find(r.user);
  const int64_t i = add_new_ ? items_.add(r.item) : items_.find(r.item);
  if (unknown_ && (u < 0 || i < 0)) {
    std::string key(r.user);
    key += '\0';
    key += r.item;
    const auto [at, fresh] = unknown_pairs_.emplace(std::move(key), r.line);
    if (!fresh && merge_) return;  // the same interaction again
    if (!fresh) {
      error_ = DataError(name_, r.line,
                         "duplicate (user, item) pair (" + quote(r.user) + ", " + quote(r.item) +
                             "), first at " + name_ + ":" + std::to_string(at->second))
                   .what();
      return;
    }
    unknown_->user.emplace_back(r.user);
    unknown_->item.emplace_back(r.item);
    unknown_->value.push_back(static_cast<float>(r.value));
    unknown_->line.push_back(r.line);
    return;
  }
  if (u < 0) {
    error_ = DataError(name_, r.line, "unknown user id " + quote(r.user) + " (not in the training ratings)")
                 .what();
    return;
  }
  if (i < 0) {
    error_ = DataError(name_, r.line, "unknown item id " + quote(r.item) + " (not in the training ratings)")
                 .what();
    return;
  }
  if (merge_) {
    const auto [at, fresh] =
        at_.emplace(static_cast<uint64_t>(u) << 32 | static_cast<uint64_t>(i), out_.size());
    if (!fresh) {
      if (sum_) out_.value[at->second] += static_cast<float>(r.value);
      return;
    }
  }
  seen_.add(static_cast<uint64_t>(u), static_cast<uint64_t>(i), name_, r.line);
  out_.add(u, i, static_cast<float>(r.value));
}

void RatingIndexer::merge_repeats(const std::string& feedback) {
  merge_ = feedback != "ratings";
  sum_ = feedback == "counts";
}

void RatingIndexer::finish() {
  // Pairs stop being recorded at an unknown id, so any repeat found lies before it.
  seen_.throw_first_duplicate(
      [&](uint64_t a, uint64_t b) { return quote(users_.ids()[a]) + ", " + quote(items_.ids()[b]); });
  if (!error_.empty()) throw DataError(error_);
}

RatingList index_ratings(const std::vector<RawRating>& raw, const std::string& name, IdIndex& users,
                         IdIndex& items, bool add_new, PairRegistry& seen, const std::string& feedback) {
  RatingList out;
  out.user.reserve(raw.size());
  out.item.reserve(raw.size());
  out.value.reserve(raw.size());
  RatingIndexer indexer(name, users, items, add_new, seen, out);
  indexer.merge_repeats(feedback);
  for (const RawRating& r : raw) indexer.add(r);
  indexer.finish();
  return out;
}

// EdgeListBuilder: the rules of an edge list's rows, whatever holds them (a file's lines, rows
// in memory). Each directed row is kept as (a << 32 | b, weight, line): 16 bytes, sorted once
// at the end instead of a tree node per edge. The key does not depend on the node count, which
// grows as the rows name new ids.

namespace {
constexpr uint64_t kLow = 0xffffffffULL;
uint64_t key_of(uint64_t a, uint64_t b) {
  return a << 32 | b;
}
}  // namespace

EdgeListBuilder::EdgeListBuilder(std::string name, IdIndex& ids, const char* side, bool add_new,
                                 EdgeRowsLeftOut* left_out)
    : name_(std::move(name)), ids_(ids), side_(side), add_new_(add_new), left_out_(left_out) {}

void EdgeListBuilder::check_repeats() {
  const auto by_key_then_line = [](const Directed& x, const Directed& y) {
    return x.key != y.key ? x.key < y.key : x.line < y.line;
  };
  // The earliest line that repeats an edge with another weight than its first occurrence, as
  // the line-by-line check found it; throws it. `directed_` is left sorted by key.
  std::sort(directed_.begin(), directed_.end(), by_key_then_line);
  const Directed* bad = nullptr;
  const Directed* bad_first = nullptr;
  for (size_t k = 0; k < directed_.size();) {
    size_t e = k + 1;
    for (; e < directed_.size() && directed_[e].key == directed_[k].key; ++e)
      if (directed_[e].weight != directed_[k].weight && (!bad || directed_[e].line < bad->line)) {
        bad = &directed_[e], bad_first = &directed_[k];
        break;
      }
    while (e < directed_.size() && directed_[e].key == directed_[k].key) ++e;
    k = e;
  }
  if (bad)
    throw DataError(name_, bad->line,
                    "edge (" + quote(ids_.ids()[bad->key >> 32]) + ", " + quote(ids_.ids()[bad->key & kLow]) +
                        ") given again with weight " + format_weight(bad->weight) + ", line " +
                        std::to_string(bad_first->line) + " has " + format_weight(bad_first->weight));
}

void EdgeListBuilder::add(std::string_view a_id, std::string_view b_id, double w,
                          std::string_view weight_text, long line) {
  if (!std::isfinite(w) || !std::isfinite(static_cast<float>(w)) || w < 0)
    throw DataError(name_, line, "weight " + quote(weight_text) + " is negative or not finite");
  int64_t a = ids_.find(a_id), b = ids_.find(b_id);
  for (const auto& [at, id] : {std::pair{&a, a_id}, std::pair{&b, b_id}}) {
    if (!add_new_ || *at >= 0) continue;
    if (const std::string bad = id_problem(id); !bad.empty())
      throw DataError(name_, line, id_refusal(side_, id, bad));
    *at = ids_.add(id);
  }
  if (ids_.size() > static_cast<int64_t>(kLow))
    throw DataError(name_, line, std::string("more than 4294967295 ") + side_ + "s");
  if (a < 0) throw DataError(name_, line, std::string("unknown ") + side_ + " id " + quote(a_id));
  if (b < 0) throw DataError(name_, line, std::string("unknown ") + side_ + " id " + quote(b_id));
  if (a == b) {
    // Real exports hold them (people trust themselves); the graph layers keep each node's own
    // row themselves, so the row says nothing: counted and dropped where asked.
    if (left_out_) {
      ++left_out_->self_loops;
      return;
    }
    // The training files' key names the way out; edges given later (new nodes) have none.
    throw DataError(
        name_, line,
        "self-loop (" + quote(a_id) + ", " + quote(b_id) + "): an edge joins two different " + side_ + "s" +
            (add_new_ ? " (data.graph_self_loops = error; drop them with data.graph_self_loops = drop)"
                      : ""));
  }
  if (static_cast<uint64_t>(line) > UINT32_MAX) throw DataError(name_, line, "more than 4294967295 lines");
  directed_.push_back({key_of(static_cast<uint64_t>(a), static_cast<uint64_t>(b)), static_cast<float>(w),
                       static_cast<uint32_t>(line)});
}

EdgeList EdgeListBuilder::finish(EdgeList* directed_out) {
  check_repeats();
  // First occurrence of each directed edge (all repeats agree by now).
  const size_t rows = directed_.size();
  directed_.erase(std::unique(directed_.begin(), directed_.end(),
                              [](const Directed& x, const Directed& y) { return x.key == y.key; }),
                  directed_.end());
  if (left_out_) left_out_->repeats += static_cast<int64_t>(rows - directed_.size());
  // The rows' own direction, where they have one: some nonzero pair given one way only.
  if (directed_out) {
    *directed_out = EdgeList{};
    directed_out->num_nodes = ids_.size();
    std::vector<uint64_t> keys;
    keys.reserve(directed_.size());
    for (const Directed& e : directed_)
      if (e.weight != 0.0f) keys.push_back(e.key);  // sorted by key already
    const bool one_way = std::any_of(keys.begin(), keys.end(), [&](uint64_t k) {
      return !std::binary_search(keys.begin(), keys.end(), key_of(k & kLow, k >> 32));
    });
    if (one_way)
      for (const Directed& e : directed_)
        if (e.weight != 0.0f)
          directed_out->add(static_cast<int64_t>(e.key >> 32), static_cast<int64_t>(e.key & kLow), e.weight);
  }
  // Both directions of every nonzero edge, each once, sorted by (src, dst). A directed file
  // (trustor, trustee: a follows b, b need not follow a) is read as the undirected graph of
  // its pairs; where both directions are given with different weights, the pair keeps the
  // larger (the stronger tie).
  std::vector<std::pair<uint64_t, float>> all;
  all.reserve(2 * directed_.size());
  for (const Directed& e : directed_) {
    if (e.weight == 0.0f) continue;
    const uint64_t a = e.key >> 32, b = e.key & kLow;
    all.emplace_back(e.key, e.weight);
    all.emplace_back(key_of(b, a), e.weight);
  }
  directed_ = std::vector<Directed>();
  // Sorted by key, then by weight descending: the first of each key is its largest weight.
  std::sort(all.begin(), all.end(), [](const auto& x, const auto& y) {
    return x.first != y.first ? x.first < y.first : x.second > y.second;
  });
  all.erase(
      std::unique(all.begin(), all.end(), [](const auto& x, const auto& y) { return x.first == y.first; }),
      all.end());
  EdgeList g;
  g.num_nodes = ids_.size();
  g.src.reserve(all.size());
  g.dst.reserve(all.size());
  g.weight.reserve(all.size());
  for (const auto& [key, w] : all)
    g.add(static_cast<int64_t>(key >> 32), static_cast<int64_t>(key & kLow), w);
  return g;
}

namespace {

/// read_edge_list, appending ids absent from `ids` to it where `add_new`: the file's lines
/// (delimiter, fields, header, the weight's number) made rows of an EdgeListBuilder.
EdgeList read_edges(LineReader& in, IdIndex& ids, const char* side, bool add_new, EdgeRowsLeftOut* left_out,
                    EdgeList* directed_out) {
  const std::string& name = in.name();
  EdgeListBuilder rows(name, ids, side, add_new, left_out);
  TextLine ln;
  in.next(ln);
  const Delimiter d = detect_delimiter(ln.text);
  std::vector<std::string_view> f;
  bool first = true;
  try {
    do {
      split_fields(ln.text, d, f);
      if (f.size() < 2 || f.size() > 3)
        throw DataError(name, ln.number,
                        std::string("expected 2 or 3 fields (a, b[, weight]) separated by ") +
                            delimiter_name(d) + ", found " + count_text(f.size()));
      double w = 1.0;
      const bool weight_ok = f.size() < 3 || to_double(f[2], w);
      // Header: a non-numeric weight, or two unknown non-numeric ids ("src,dst"), on line one.
      const bool header =
          first && (!weight_ok || (f.size() == 2 && ids.find(f[0]) < 0 && ids.find(f[1]) < 0 &&
                                   !is_numeric(f[0]) && !is_numeric(f[1])));
      first = false;
      if (header) {
        // A ratings file given as a graph ("user,item,rating"): its items would join the
        // users as nodes, silently.
        const auto lower = [](std::string_view v) {
          std::string t(v);
          for (char& c : t) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
          return t;
        };
        if (lower(f[0]) == "user" || lower(f[1]) == "item")
          throw DataError(
              name, ln.number,
              "header '" + std::string(ln.text) +
                  "' names a ratings file (user, item, rating): a graph file holds edges 'a,b[,w]' "
                  "between two " +
                  side + "s");
        continue;
      }
      if (!weight_ok) throw DataError(name, ln.number, "weight " + quote(f[2]) + " is not a number");
      rows.add(f[0], f[1], w, f.size() < 3 ? std::string_view("1") : f[2], ln.number);
    } while (in.next(ln));
  } catch (const DataError&) {
    rows.check_repeats();  // a repeat with another weight on an earlier line is reported first
    throw;
  }
  return rows.finish(directed_out);
}

}  // namespace

EdgeList edge_list_of_rows(const std::vector<Delta::Edge>& rows, const std::string& name, IdIndex& ids,
                           const char* side, bool add_new, EdgeRowsLeftOut* left_out, EdgeList* directed) {
  EdgeListBuilder builder(name, ids, side, add_new, left_out);
  try {
    for (size_t k = 0; k < rows.size(); ++k) {
      const Delta::Edge& e = rows[k];
      builder.add(e.a, e.b, e.weight, number_text(e.weight), static_cast<long>(k) + 1);
    }
  } catch (const DataError&) {
    builder.check_repeats();
    throw;
  }
  return builder.finish(directed);
}

std::string EdgeRowsLeftOut::text() const {
  std::string out;
  if (self_loops > 0) out = std::to_string(self_loops) + (self_loops == 1 ? " self-loop" : " self-loops");
  if (repeats > 0)
    out += (out.empty() ? "" : " and ") + std::to_string(repeats) +
           (repeats == 1 ? " repeated row" : " repeated rows");
  return out.empty() ? out : out + " dropped";
}

EdgeList read_edge_list(LineReader& in, const IdIndex& ids, const char* side, EdgeRowsLeftOut* left_out,
                        EdgeList* directed) {
  // Without add_new nothing is appended: the index stays as given.
  return read_edges(in, const_cast<IdIndex&>(ids), side, false, left_out, directed);
}

EdgeList read_edge_list_adding(LineReader& in, IdIndex& ids, const char* side, EdgeRowsLeftOut* left_out,
                               EdgeList* directed) {
  return read_edges(in, ids, side, true, left_out, directed);
}

EdgeList parse_edge_list_text(const std::string& text, const std::string& name, const IdIndex& ids,
                              const char* side, EdgeList* directed) {
  LineReader in(std::string_view(text), name, true);
  return read_edge_list(in, ids, side, nullptr, directed);
}

// FeatureRowsBuilder: the rules of a features table's rows, whatever holds them. Rows are
// gathered before the dense matrix is allocated, so that its size is bounded by the rows given
// (a short file with a huge node set fails on the missing rows, not on memory).

FeatureRowsBuilder::FeatureRowsBuilder(std::string name, IdIndex& ids, const char* side, bool add_new,
                                       size_t cols, long first_line)
    : name_(std::move(name)),
      ids_(ids),
      side_(side),
      add_new_(add_new),
      cols_(cols),
      first_line_(first_line),
      row_line_(static_cast<size_t>(ids.size()), 0) {}

void FeatureRowsBuilder::check_fields(size_t fields, long line) const {
  if (fields != cols_ + 1)
    throw DataError(name_, line,
                    "expected " + count_text(cols_ + 1) + " fields (id and " + count_text(cols_) +
                        " features, as on line " + std::to_string(first_line_) + "), found " +
                        count_text(fields));
}

float FeatureRowsBuilder::value(double v, std::string_view as_written, size_t column, long line) const {
  if (!std::isfinite(v) || !std::isfinite(static_cast<float>(v)))
    throw DataError(name_, line,
                    "feature " + quote(as_written) + " (column " + std::to_string(column + 2) +
                        ") is not a finite number");
  return static_cast<float>(v);
}

int64_t FeatureRowsBuilder::node(std::string_view id_text, long line) {
  int64_t id = ids_.find(id_text);
  if (id < 0 && add_new_) {
    if (const std::string bad = id_problem(id_text); !bad.empty())
      throw DataError(name_, line, id_refusal(side_, id_text, bad));
    id = ids_.add(id_text);
    row_line_.push_back(0);
  }
  if (id < 0) throw DataError(name_, line, std::string("unknown ") + side_ + " id " + quote(id_text));
  if (row_line_[static_cast<size_t>(id)] != 0)
    throw DataError(name_, line,
                    std::string("second row for ") + side_ + " id " + quote(id_text) + " (first on line " +
                        std::to_string(row_line_[static_cast<size_t>(id)]) + ")");
  row_line_[static_cast<size_t>(id)] = line;
  return id;
}

void FeatureRowsBuilder::set(int64_t id, std::vector<float> row) {
  rows_.emplace_back(id, std::move(row));
}

FeatureMatrix FeatureRowsBuilder::finish(std::vector<std::string> names) {
  for (int64_t id = 0; id < ids_.size(); ++id)
    if (row_line_[static_cast<size_t>(id)] == 0)
      throw DataError(name_, 0,
                      std::string("no row for ") + side_ + " id " +
                          quote(ids_.ids()[static_cast<size_t>(id)]) + " (every " + side_ + " needs one)");
  FeatureMatrix m;
  m.names = std::move(names);
  m.rows = ids_.size();
  m.cols = static_cast<int64_t>(cols_);
  m.values.assign(static_cast<size_t>(m.rows) * cols_, 0.0f);
  for (const auto& [id, row] : rows_) std::copy(row.begin(), row.end(), m.values.begin() + id * m.cols);
  return m;
}

namespace {

/// read_features, appending ids absent from `ids` to it where `add_new`: the file's lines
/// (delimiter, header, numbers) made rows of a FeatureRowsBuilder.
FeatureMatrix read_feature_rows(LineReader& in, IdIndex& ids, const char* side, bool add_new) {
  const std::string& name = in.name();
  TextLine ln;
  in.next(ln);
  const long first_line = ln.number;
  const Delimiter d = detect_delimiter(ln.text);
  std::vector<std::string_view> f;
  split_fields(ln.text, d, f);
  if (f.size() < 2)
    throw DataError(name, first_line,
                    std::string("expected an id and at least one feature separated by ") + delimiter_name(d) +
                        ", found " + count_text(f.size()) + " field(s)");
  const size_t cols = f.size() - 1;
  std::vector<std::string> names;
  bool header = false;
  for (size_t c = 1; c < f.size(); ++c) header = header || !is_numeric(f[c]);
  if (header)
    for (size_t c = 1; c < f.size(); ++c) names.emplace_back(f[c]);
  else
    for (size_t c = 0; c < cols; ++c) names.push_back("f" + std::to_string(c + 1));
  FeatureRowsBuilder rows(name, ids, side, add_new, cols, first_line);
  for (bool more = header ? in.next(ln) : true; more; more = in.next(ln)) {
    split_fields(ln.text, d, f);
    rows.check_fields(f.size(), ln.number);
    const int64_t id = rows.node(f[0], ln.number);  // the id first: reported before a bad number
    std::vector<float> row(cols);
    for (size_t c = 0; c < cols; ++c) {
      double v = 0;
      if (!to_double(f[c + 1], v))
        throw DataError(
            name, ln.number,
            "feature " + quote(f[c + 1]) + " (column " + std::to_string(c + 2) + ") is not a number");
      row[c] = rows.value(v, f[c + 1], c, ln.number);
    }
    rows.set(id, std::move(row));
  }
  return rows.finish(std::move(names));
}

}  // namespace

FeatureMatrix feature_matrix_of_rows(const std::vector<Delta::Features>& given, const std::string& name,
                                     IdIndex& ids, const char* side, bool add_new) {
  // As the file of the same lines reads them: an id alone on line 1 is one whitespace-separated
  // field.
  const size_t cols = given.empty() ? 0 : given.front().values.size();
  if (cols == 0)
    throw DataError(name, 1,
                    "expected an id and at least one feature separated by whitespace, found 1 field(s)");
  std::vector<std::string> names;
  for (size_t c = 0; c < cols; ++c) names.push_back("f" + std::to_string(c + 1));
  FeatureRowsBuilder rows(name, ids, side, add_new, cols, 1);
  for (size_t k = 0; k < given.size(); ++k) {
    const long line = static_cast<long>(k) + 1;
    rows.check_fields(given[k].values.size() + 1, line);
    const int64_t id = rows.node(given[k].id, line);
    std::vector<float> row(cols);
    for (size_t c = 0; c < cols; ++c)
      row[c] = rows.value(given[k].values[c], number_text(given[k].values[c]), c, line);
    rows.set(id, std::move(row));
  }
  return rows.finish(std::move(names));
}

FeatureMatrix read_features(LineReader& in, const IdIndex& ids, const char* side) {
  // Without add_new nothing is appended: the index stays as given.
  return read_feature_rows(in, const_cast<IdIndex&>(ids), side, false);
}

FeatureMatrix read_features_adding(LineReader& in, IdIndex& ids, const char* side) {
  return read_feature_rows(in, ids, side, true);
}

namespace {

/// Reserves room for about `n` more ratings in `r` and `pairs` more in the registry, so
/// that the lists of a large file grow once instead of doubling past their size.
void reserve_more(RatingList& r, size_t n, PairRegistry& seen, size_t pairs) {
  const size_t want = r.size() + n + n / 50;
  r.user.reserve(want);
  r.item.reserve(want);
  r.value.reserve(want);
  seen.reserve(seen.size() + pairs + pairs / 50);
}

/// The ratings of `path` streamed into `out` through `indexer`; the lists are sized from the
/// first lines' mean length, the registry also for `extra_bytes` more of the same lines
/// (the test file's, which it takes next).
void stream_ratings(const std::string& path, RatingIndexer& indexer, RatingList& out, PairRegistry& seen,
                    double extra_bytes, const std::string& feedback, std::vector<double>* times = nullptr) {
  LineReader in(path, true);
  std::error_code ec;  // a size that cannot be read (a pipe) reserves for this file alone
  const auto bytes = std::filesystem::file_size(path, ec);
  const double share = ec ? 1.0 : 1.0 + extra_bytes / std::max(1.0, static_cast<double>(bytes));
  size_t count = 0;
  read_ratings(
      in,
      [&](const RawRating& r) {
        if (++count == 4096) {
          const size_t lines = in.estimated_lines();
          reserve_more(out, lines, seen, static_cast<size_t>(share * static_cast<double>(lines)));
          if (times && !std::isnan(r.time)) times->reserve(out.size() + lines + lines / 50);
        }
        const size_t before = out.size();
        indexer.add(r);
        // The times of the ratings indexed (a failing file adds none and is reported at finish).
        if (times && !std::isnan(r.time) && out.size() > before) times->push_back(r.time);
      },
      feedback);
  indexer.finish();
}

}  // namespace

Dataset load_ratings_file(const std::string& path, const DataConfig& cfg) {
  Dataset ds;
  IdIndex users, items;
  PairRegistry seen;
  RatingList all;
  // Streamed: neither file's text is ever held, only the lists and 12 bytes a rating for
  // the duplicate check.
  std::error_code ec;
  const double test_bytes =
      cfg.test_file.empty() ? 0.0 : static_cast<double>(std::filesystem::file_size(cfg.test_file, ec));
  if (!cfg.test_file.empty() && is_time_split(cfg.split))
    throw ConfigError("data.split = " + cfg.split +
                      " makes the test ratings of data.source's own, by time, and " +
                      "data.test_file gives them: use one of the two");
  // Interactions (data/feedback.h): a pair repeated within a file is one interaction, its
  // counts summed; load_dataset makes the values what data.feedback says.
  const std::string feedback = resolved_feedback(cfg);
  RatingIndexer train_indexer(path, users, items, true, seen, all);
  train_indexer.merge_repeats(feedback);
  std::vector<double> times;  // of `all`, where the file has them
  stream_ratings(path, train_indexer, all, seen, ec ? 0.0 : test_bytes, feedback, &times);

  // Graph and feature rows of ids without a training rating add those ids as nodes: a
  // feature table of the whole catalogue is what users have, and those rows are what
  // cold-start prediction needs. The graph is read first, so that its new ids need rows too.
  const bool drop_loops = cfg.graph_self_loops == "drop";
  const auto load_side = [drop_loops](NodeSet& side, IdIndex& ids, const std::string& graph_file,
                                      const std::string& features_file, const char* what) {
    if (!graph_file.empty()) {
      LineReader in(graph_file, true);
      EdgeRowsLeftOut left_out;
      side.graph = read_edge_list_adding(in, ids, what, drop_loops ? &left_out : nullptr, &side.directed);
      side.graph_origin = GraphOrigin::File;
      side.graph_note = left_out.text();
    }
    if (!features_file.empty()) {
      LineReader in(features_file, true);
      side.features = read_features_adding(in, ids, what);
      side.features_origin = features_file + ": " + std::to_string(side.features.cols) + " columns";
    }
    if (!graph_file.empty())  // the features may have added ids
      side.graph.num_nodes = side.directed.num_nodes = ids.size();
  };
  load_side(ds.users, users, cfg.user_graph_file, cfg.user_features_file, "user");
  load_side(ds.items, items, cfg.item_graph_file, cfg.item_features_file, "item");

  if (!cfg.test_file.empty()) {
    // A test rating naming an id that is no node is kept apart (Dataset::test_unknown) unless
    // data.unknown_test = error; one that names nodes only is a test rating like any other.
    const bool keep_unknown = cfg.unknown_test != "error";
    RatingIndexer test_indexer(cfg.test_file, users, items, false, seen, ds.test,
                               keep_unknown ? &ds.test_unknown : nullptr);
    test_indexer.merge_repeats(feedback);
    stream_ratings(cfg.test_file, test_indexer, ds.test, seen, 0.0, feedback);
    if (ds.test.empty() && !ds.test_unknown.empty())
      throw DataError(cfg.test_file, ds.test_unknown.line.front(),
                      "none of its " + std::to_string(ds.test_unknown.size()) +
                          " test ratings names a user and an item of the training data (first: user " +
                          quote(ds.test_unknown.user.front()) + ", item " +
                          quote(ds.test_unknown.item.front()) + "); are both files in the same ids?");
    ds.train = std::move(all);
  } else {
    if (is_time_split(cfg.split) && times.empty())
      throw DataError(path + ": data.split = " + cfg.split +
                      " needs the ratings' times, and this file has no time column (a 4th column, named "
                      "timestamp, time, ts, datetime, date or unix_time where the file has a header)");
    split_ratings(all, times, cfg, path, ds);
  }
  const auto slash = path.find_last_of('/');
  ds.name = slash == std::string::npos ? path : path.substr(slash + 1);
  ds.users.count = users.size();
  ds.items.count = items.size();
  ds.users.ids = users.ids();
  ds.items.ids = items.ids();

  ds.rating_levels = distinct_levels({&ds.train, &ds.test});
  for (const float v : ds.test_unknown.value)
    if (!std::binary_search(ds.rating_levels.begin(), ds.rating_levels.end(), v))
      ds.rating_levels.insert(std::upper_bound(ds.rating_levels.begin(), ds.rating_levels.end(), v), v);
  ds.rating_min = ds.rating_levels.front();
  ds.rating_max = ds.rating_levels.back();
  return ds;
}

}  // namespace symgnn::data
