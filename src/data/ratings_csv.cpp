/// @file ratings_csv.cpp
/// The generic "user,item,rating" reader (load_ratings_file) for users' own data, with its
/// optional test file, edge lists and feature tables over original string ids. Ids become
/// dense indices in order of first appearance in the training file (kept in NodeSet::ids).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <tuple>

#include "data/loaders.h"
#include "data/parsers.h"
#include "data/random_split.h"
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

std::vector<RawRating> parse_ratings_text(const std::string& text, const std::string& name) {
  const std::vector<TextLine> lines = split_lines(text, name, true);
  std::vector<std::string_view> f;
  // A header is the first line when its third field is not a number; the delimiter then comes
  // from the first data line, as a header may be written differently.
  Delimiter d = detect_delimiter(lines.front().text);
  split_fields(lines.front().text, d, f);
  if (f.size() < 3)
    throw DataError(name, lines.front().number,
                    std::string("expected at least 3 fields (user, item, rating) separated by ") +
                        delimiter_name(d) + ", found " + count_text(f.size()));
  const size_t first = is_numeric(f[2]) ? 0 : 1;
  if (first == 1 && lines.size() == 1) throw DataError(name, 0, "file has a header line but no ratings");
  if (first == 1) d = detect_delimiter(lines[1].text);

  std::vector<RawRating> out;
  out.reserve(lines.size() - first);
  for (size_t k = first; k < lines.size(); ++k) {
    const TextLine& ln = lines[k];
    split_fields(ln.text, d, f);
    check_fields(f, 3, "user, item, rating", d, name, ln.number);
    double v = 0;
    if (!to_double(f[2], v)) throw DataError(name, ln.number, "rating " + quote(f[2]) + " is not a number");
    if (!std::isfinite(v) || !std::isfinite(static_cast<float>(v)))
      throw DataError(name, ln.number, "rating " + quote(f[2]) + " is not a finite number");
    out.push_back({f[0], f[1], v, ln.number});
  }
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

RatingList index_ratings(const std::vector<RawRating>& raw, const std::string& name, IdIndex& users,
                         IdIndex& items, bool add_new, PairRegistry& seen) {
  RatingList out;
  out.user.reserve(raw.size());
  out.item.reserve(raw.size());
  out.value.reserve(raw.size());
  for (const RawRating& r : raw) {
    const int64_t u = add_new ? users.add(r.user) : users.find(r.user);
    if (u < 0)
      throw DataError(name, r.line, "unknown user id " + quote(r.user) + " (not in the training ratings)");
    const int64_t i = add_new ? items.add(r.item) : items.find(r.item);
    if (i < 0)
      throw DataError(name, r.line, "unknown item id " + quote(r.item) + " (not in the training ratings)");
    if (const auto* first = seen.insert(static_cast<uint64_t>(u), static_cast<uint64_t>(i), name, r.line))
      throw DataError(name, r.line,
                      "duplicate (user, item) pair (" + quote(r.user) + ", " + quote(r.item) +
                          "), first at " + seen.where(*first));
    out.add(u, i, static_cast<float>(r.value));
  }
  return out;
}

EdgeList parse_edge_list_text(const std::string& text, const std::string& name, const IdIndex& ids,
                              const char* side) {
  const std::vector<TextLine> lines = split_lines(text, name, true);
  const Delimiter d = detect_delimiter(lines.front().text);
  struct Seen {
    float weight;
    long line;
  };
  std::map<std::pair<int64_t, int64_t>, Seen> directed;
  std::vector<std::string_view> f;
  for (size_t k = 0; k < lines.size(); ++k) {
    const TextLine& ln = lines[k];
    split_fields(ln.text, d, f);
    if (f.size() < 2 || f.size() > 3)
      throw DataError(name, ln.number,
                      std::string("expected 2 or 3 fields (a, b[, weight]) separated by ") +
                          delimiter_name(d) + ", found " + count_text(f.size()));
    const int64_t a = ids.find(f[0]), b = ids.find(f[1]);
    double w = 1.0;
    const bool weight_ok = f.size() < 3 || to_double(f[2], w);
    // Header: a non-numeric weight, or two unknown non-numeric ids ("src,dst"), on line one.
    if (k == 0 && (!weight_ok || (f.size() == 2 && a < 0 && b < 0 && !is_numeric(f[0]) && !is_numeric(f[1]))))
      continue;
    if (!weight_ok) throw DataError(name, ln.number, "weight " + quote(f[2]) + " is not a number");
    if (!std::isfinite(w) || !std::isfinite(static_cast<float>(w)) || w < 0)
      throw DataError(name, ln.number, "weight " + quote(f[2]) + " is negative or not finite");
    if (a < 0) throw DataError(name, ln.number, std::string("unknown ") + side + " id " + quote(f[0]));
    if (b < 0) throw DataError(name, ln.number, std::string("unknown ") + side + " id " + quote(f[1]));
    const float wf = static_cast<float>(w);
    const auto [it, inserted] = directed.emplace(std::make_pair(a, b), Seen{wf, ln.number});
    if (!inserted && it->second.weight != wf)
      throw DataError(name, ln.number,
                      "edge (" + quote(f[0]) + ", " + quote(f[1]) + ") given again with weight " +
                          format_weight(w) + ", line " + std::to_string(it->second.line) + " has " +
                          format_weight(it->second.weight));
  }
  EdgeList g;
  g.num_nodes = ids.size();
  for (const auto& [key, s] : directed) {
    const auto [a, b] = key;
    const auto rev = directed.find({b, a});
    if (rev != directed.end() && rev->second.weight != s.weight)
      throw DataError(name, std::max(s.line, rev->second.line),
                      "asymmetric: edge (" + quote(ids.ids()[a]) + ", " + quote(ids.ids()[b]) +
                          ") has weight " + format_weight(s.weight) + " on line " + std::to_string(s.line) +
                          " but the reverse has " + format_weight(rev->second.weight) + " on line " +
                          std::to_string(rev->second.line));
  }
  // Emit each unordered pair once from its smaller end so that the list is sorted and symmetric.
  std::map<std::pair<int64_t, int64_t>, float> undirected;
  for (const auto& [key, s] : directed)
    undirected[{std::min(key.first, key.second), std::max(key.first, key.second)}] = s.weight;
  std::vector<std::tuple<int64_t, int64_t, float>> all;
  for (const auto& [key, w] : undirected) {
    if (w == 0.0f) continue;
    all.emplace_back(key.first, key.second, w);
    if (key.first != key.second) all.emplace_back(key.second, key.first, w);
  }
  std::sort(all.begin(), all.end());
  for (const auto& [s, t, w] : all) g.add(s, t, w);
  return g;
}

FeatureMatrix parse_features_text(const std::string& text, const std::string& name, const IdIndex& ids,
                                  const char* side) {
  const std::vector<TextLine> lines = split_lines(text, name, true);
  const Delimiter d = detect_delimiter(lines.front().text);
  std::vector<std::string_view> f;
  split_fields(lines.front().text, d, f);
  if (f.size() < 2)
    throw DataError(name, lines.front().number,
                    std::string("expected an id and at least one feature separated by ") + delimiter_name(d) +
                        ", found " + count_text(f.size()) + " field(s)");
  const size_t cols = f.size() - 1;
  FeatureMatrix m;
  bool header = false;
  for (size_t c = 1; c < f.size(); ++c) header = header || !is_numeric(f[c]);
  if (header)
    for (size_t c = 1; c < f.size(); ++c) m.names.emplace_back(f[c]);
  else
    for (size_t c = 0; c < cols; ++c) m.names.push_back("f" + std::to_string(c + 1));

  // Rows are gathered before the dense matrix is allocated, so that its size is bounded by the
  // file (a short file with a huge node set fails on the missing rows, not on memory).
  std::vector<long> row_line(static_cast<size_t>(ids.size()), 0);
  std::vector<std::pair<int64_t, std::vector<float>>> rows;
  for (size_t k = header ? 1 : 0; k < lines.size(); ++k) {
    const TextLine& ln = lines[k];
    split_fields(ln.text, d, f);
    if (f.size() != cols + 1)
      throw DataError(name, ln.number,
                      "expected " + count_text(cols + 1) + " fields (id and " + count_text(cols) +
                          " features, as on line " + std::to_string(lines.front().number) + "), found " +
                          count_text(f.size()));
    const int64_t id = ids.find(f[0]);
    if (id < 0) throw DataError(name, ln.number, std::string("unknown ") + side + " id " + quote(f[0]));
    if (row_line[static_cast<size_t>(id)] != 0)
      throw DataError(name, ln.number,
                      std::string("second row for ") + side + " id " + quote(f[0]) + " (first on line " +
                          std::to_string(row_line[static_cast<size_t>(id)]) + ")");
    row_line[static_cast<size_t>(id)] = ln.number;
    std::vector<float> row(cols);
    for (size_t c = 0; c < cols; ++c) {
      double v = 0;
      if (!to_double(f[c + 1], v))
        throw DataError(
            name, ln.number,
            "feature " + quote(f[c + 1]) + " (column " + std::to_string(c + 2) + ") is not a number");
      if (!std::isfinite(v) || !std::isfinite(static_cast<float>(v)))
        throw DataError(
            name, ln.number,
            "feature " + quote(f[c + 1]) + " (column " + std::to_string(c + 2) + ") is not a finite number");
      row[c] = static_cast<float>(v);
    }
    rows.emplace_back(id, std::move(row));
  }
  for (int64_t id = 0; id < ids.size(); ++id)
    if (row_line[static_cast<size_t>(id)] == 0)
      throw DataError(name, 0,
                      std::string("no row for ") + side + " id " + quote(ids.ids()[static_cast<size_t>(id)]) +
                          " (every " + side + " needs one)");
  m.rows = ids.size();
  m.cols = static_cast<int64_t>(cols);
  m.values.assign(static_cast<size_t>(m.rows) * cols, 0.0f);
  for (const auto& [id, row] : rows) std::copy(row.begin(), row.end(), m.values.begin() + id * m.cols);
  return m;
}

Dataset load_ratings_file(const std::string& path, const DataConfig& cfg) {
  Dataset ds;
  IdIndex users, items;
  PairRegistry seen;
  const std::string text = read_text_file(path);
  RatingList all = index_ratings(parse_ratings_text(text, path), path, users, items, true, seen);
  if (!cfg.test_file.empty()) {
    const std::string test_text = read_text_file(cfg.test_file);
    ds.test =
        index_ratings(parse_ratings_text(test_text, cfg.test_file), cfg.test_file, users, items, false, seen);
    ds.train = std::move(all);
  } else {
    random_test_split(all, cfg.test_fraction, static_cast<uint64_t>(cfg.split_seed), ds.train, ds.test);
  }
  const auto slash = path.find_last_of('/');
  ds.name = slash == std::string::npos ? path : path.substr(slash + 1);
  ds.users.count = users.size();
  ds.items.count = items.size();
  ds.users.ids = users.ids();
  ds.items.ids = items.ids();

  const auto load_side = [](NodeSet& side, const IdIndex& ids, const std::string& graph_file,
                            const std::string& features_file, const char* what) {
    if (!graph_file.empty()) {
      side.graph = parse_edge_list_text(read_text_file(graph_file), graph_file, ids, what);
      side.graph_origin = GraphOrigin::File;
    }
    if (!features_file.empty()) {
      side.features = parse_features_text(read_text_file(features_file), features_file, ids, what);
      side.features_origin = features_file + ": " + std::to_string(side.features.cols) + " columns";
    }
  };
  load_side(ds.users, users, cfg.user_graph_file, cfg.user_features_file, "user");
  load_side(ds.items, items, cfg.item_graph_file, cfg.item_features_file, "item");

  ds.rating_levels = distinct_levels({&ds.train, &ds.test});
  ds.rating_min = ds.rating_levels.front();
  ds.rating_max = ds.rating_levels.back();
  return ds;
}

}  // namespace symgnn::data
