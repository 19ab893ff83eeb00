// clang-format off
/// @file movielens.cpp
/// MovieLens-100K and -1M readers (GroupLens files as distributed) and their buffer parsers.
///
///   | set          | users | items | ratings                 | levels | user features      | item features |
///   | ML-100K u1-5 |   943 |  1682 | 80000 + 20000 test      | 1..5   | age, gender, occ.  | 19 genres     |
///   | ML-100K ua/b |   943 |  1682 | 90570 + 9430 test       | 1..5   | 24 columns         | (0/1 flags)   |
///   | ML-1M        |  6040 |  3883 | 1000209, 10 % test      | 1..5   | gender, age, occ.  | 18 genres     |
///   |              |       |       | (random, split_seed)    |        | 30 columns         | (multi-hot)   |
/// ML-100K user features: age / max age, gender one-hot (M, F), occupation one-hot (21, from
/// u.occupation). ML-1M: gender one-hot, age-code one-hot (7), occupation one-hot (0..20).
///
/// ML-100K ids are 1-based and dense (index = id - 1); ML-1M movie ids are sparse and map to
/// dense indices in ascending id order over movies.dat (3883 movies, 3706 of them rated).
/// Both keep the original ids in NodeSet::ids so that messages and predictions show them.
/// Graphs are left to graph/ (k-NN on these features): origin None.
// clang-format on
#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <limits>
#include <set>
#include <unordered_map>

#include "data/loaders.h"
#include "data/parsers.h"
#include "data/random_split.h"
#include "data/time_split.h"
#include "symgnn/error.h"

namespace fs = std::filesystem;

namespace symgnn::data {

namespace {

// Sizes above this are refused before anything is allocated (a corrupt u.info must not
// turn into a multi-gigabyte allocation).
constexpr int64_t kMaxNodes = 10'000'000;

const std::array<const char*, 19> kMl100kGenres = {
    "unknown",     "Action", "Adventure", "Animation", "Children's", "Comedy",  "Crime",
    "Documentary", "Drama",  "Fantasy",   "Film-Noir", "Horror",     "Musical", "Mystery",
    "Romance",     "Sci-Fi", "Thriller",  "War",       "Western"};

const std::array<const char*, 18> kMl1mGenres = {
    "Action",      "Adventure", "Animation", "Children's", "Comedy", "Crime",
    "Documentary", "Drama",     "Fantasy",   "Film-Noir",  "Horror", "Musical",
    "Mystery",     "Romance",   "Sci-Fi",    "Thriller",   "War",    "Western"};

const std::array<int, 7> kMl1mAges = {1, 18, 25, 35, 45, 50, 56};

const std::array<const char*, 21> kMl1mOccupations = {"other",
                                                      "academic/educator",
                                                      "artist",
                                                      "clerical/admin",
                                                      "college/grad student",
                                                      "customer service",
                                                      "doctor/health care",
                                                      "executive/managerial",
                                                      "farmer",
                                                      "homemaker",
                                                      "K-12 student",
                                                      "lawyer",
                                                      "programmer",
                                                      "retired",
                                                      "sales/marketing",
                                                      "scientist",
                                                      "self-employed",
                                                      "technician/engineer",
                                                      "tradesman/craftsman",
                                                      "unemployed",
                                                      "writer"};

/// A positive integer id no larger than `max` (or 2^31 - 1), else a DataError naming it.
int64_t parse_id(std::string_view field, const char* what, int64_t max, const std::string& name, long line) {
  int64_t id = 0;
  if (!to_int(field, id) || id < 1 || id > std::numeric_limits<int32_t>::max())
    throw DataError(name, line, std::string(what) + " id " + quote(field) + " is not a positive integer");
  if (max > 0 && id > max)
    throw DataError(name, line,
                    std::string(what) + " id " + std::to_string(id) + " outside 1.." + std::to_string(max));
  return id;
}

void expect_fields(const std::vector<std::string_view>& f, size_t n, const char* layout,
                   const std::string& name, long line) {
  if (f.size() != n)
    throw DataError(
        name, line,
        "expected " + std::to_string(n) + " fields (" + layout + "), found " + std::to_string(f.size()));
}

/// Row line of each id 1..n (0: none yet); a second row is an error.
void claim_row(std::vector<long>& row_line, int64_t id, const char* what, const std::string& name,
               long line) {
  long& first = row_line[static_cast<size_t>(id - 1)];
  if (first != 0)
    throw DataError(name, line,
                    std::string("second row for ") + what + " id " + std::to_string(id) + " (first on line " +
                        std::to_string(first) + ")");
  first = line;
}

void require_all_rows(const std::vector<long>& row_line, const char* what, const std::string& name) {
  for (size_t k = 0; k < row_line.size(); ++k)
    if (row_line[k] == 0)
      throw DataError(name, 0,
                      std::string("no row for ") + what + " id " + std::to_string(k + 1) +
                          " (expected ids 1.." + std::to_string(row_line.size()) + ")");
}

std::vector<std::string> numbered_ids(int64_t n) {
  std::vector<std::string> ids(static_cast<size_t>(n));
  for (int64_t k = 0; k < n; ++k) ids[static_cast<size_t>(k)] = std::to_string(k + 1);
  return ids;
}

std::string path_in(const std::string& dir, const char* file) {
  return (fs::path(dir) / file).string();
}

}  // namespace

std::vector<IdRating> parse_movielens_ratings(const std::string& text, const std::string& name, Delimiter d,
                                              int64_t max_user, int64_t max_item, PairRegistry& seen) {
  const std::vector<TextLine> lines = split_lines(text, name, false);
  std::vector<IdRating> out;
  out.reserve(lines.size());
  std::vector<std::string_view> f;
  const std::string layout =
      std::string("user, item, rating, timestamp; ") + delimiter_name(d) + " separated";
  // Repeats are found in one sort (PairRegistry); one on a line before a parse error is
  // still the error reported, as when each line was checked in turn.
  const auto throw_repeat = [&] {
    seen.throw_first_duplicate(
        [](uint64_t a, uint64_t b) { return std::to_string(a) + ", " + std::to_string(b); });
  };
  try {
    for (const TextLine& ln : lines) {
      split_fields(ln.text, d, f);
      expect_fields(f, 4, layout.c_str(), name, ln.number);
      const int64_t u = parse_id(f[0], "user", max_user, name, ln.number);
      const int64_t i = parse_id(f[1], "item", max_item, name, ln.number);
      double v = 0;
      if (!to_double(f[2], v)) throw DataError(name, ln.number, "rating " + quote(f[2]) + " is not a number");
      if (!std::isfinite(v))
        throw DataError(name, ln.number, "rating " + quote(f[2]) + " is not a finite number");
      if (v < 1 || v > 5 || v != std::floor(v))
        throw DataError(name, ln.number, "rating " + quote(f[2]) + " is not one of the levels 1..5");
      int64_t t = 0;
      if (!to_int(f[3], t) || t < 0)
        throw DataError(name, ln.number, "timestamp " + quote(f[3]) + " is not a non-negative integer");
      seen.add(static_cast<uint64_t>(u), static_cast<uint64_t>(i), name, ln.number);
      out.push_back({u, i, static_cast<float>(v), ln.number, static_cast<double>(t)});
    }
  } catch (const DataError&) {
    throw_repeat();
    throw;
  }
  throw_repeat();
  return out;
}

std::pair<int64_t, int64_t> parse_ml100k_info(const std::string& text, const std::string& name) {
  int64_t users = 0, items = 0;
  std::vector<std::string_view> f;
  for (const TextLine& ln : split_lines(text, name, false)) {
    split_fields(ln.text, Delimiter::Whitespace, f);
    if (f.size() != 2 || (f[1] != "users" && f[1] != "items")) continue;
    int64_t n = 0;
    if (!to_int(f[0], n) || n < 1 || n > kMaxNodes)
      throw DataError(name, ln.number,
                      "count " + quote(f[0]) + " is not an integer in 1.." + std::to_string(kMaxNodes));
    (f[1] == "users" ? users : items) = n;
  }
  if (users == 0 || items == 0) throw DataError(name, 0, "expected lines '<n> users' and '<n> items'");
  return {users, items};
}

std::vector<std::string> parse_ml100k_vocabulary(const std::string& text, const std::string& name) {
  std::vector<std::string> words;
  std::set<std::string> distinct;
  std::vector<std::string_view> f;
  for (const TextLine& ln : split_lines(text, name, false)) {
    split_fields(ln.text, Delimiter::Pipe, f);
    if (f.size() > 2)
      throw DataError(name, ln.number,
                      "expected 'name' or 'name|index', found " + std::to_string(f.size()) + " fields");
    if (f[0].empty()) throw DataError(name, ln.number, "empty name");
    if (f.size() == 2) {
      int64_t index = -1;
      if (!to_int(f[1], index) || index != static_cast<int64_t>(words.size()))
        throw DataError(
            name, ln.number,
            "index " + quote(f[1]) + " should be " + std::to_string(words.size()) + " (rows in index order)");
    }
    if (!distinct.emplace(f[0]).second)
      throw DataError(name, ln.number, "name " + quote(f[0]) + " listed twice");
    words.emplace_back(f[0]);
  }
  return words;
}

int64_t parse_ml100k_max_id(const std::string& text, const std::string& name) {
  int64_t max_id = 0;
  for (const TextLine& ln : split_lines(text, name, false)) {
    const std::string_view first = ln.text.substr(0, ln.text.find('|'));
    max_id = std::max(max_id, parse_id(first, "node", kMaxNodes, name, ln.number));
  }
  return max_id;
}

FeatureMatrix parse_ml100k_users(const std::string& text, const std::string& name, int64_t num_users,
                                 const std::vector<std::string>& occupations) {
  if (num_users < 1 || num_users > kMaxNodes)
    throw DataError(name, 0, "bad user count " + std::to_string(num_users));
  const std::vector<TextLine> lines = split_lines(text, name, false);
  struct Row {
    int64_t age;
    bool male;
    std::string occupation;
  };
  std::vector<long> row_line(static_cast<size_t>(num_users), 0);
  std::vector<std::pair<int64_t, Row>> rows;
  std::vector<std::string_view> f;
  for (const TextLine& ln : lines) {
    split_fields(ln.text, Delimiter::Pipe, f);
    expect_fields(f, 5, "id|age|gender|occupation|zip", name, ln.number);
    const int64_t id = parse_id(f[0], "user", num_users, name, ln.number);
    claim_row(row_line, id, "user", name, ln.number);
    int64_t age = 0;
    if (!to_int(f[1], age) || age < 0 || age > 200)
      throw DataError(name, ln.number, "age " + quote(f[1]) + " is not an integer in 0..200");
    if (f[2] != "M" && f[2] != "F")
      throw DataError(name, ln.number, "gender " + quote(f[2]) + " is not M or F");
    if (f[3].empty()) throw DataError(name, ln.number, "empty occupation");
    if (!occupations.empty() && std::find(occupations.begin(), occupations.end(), f[3]) == occupations.end())
      throw DataError(name, ln.number,
                      "occupation " + quote(f[3]) + " is not in the occupation list (u.occupation)");
    rows.push_back({id, Row{age, f[2] == "M", std::string(f[3])}});
  }
  require_all_rows(row_line, "user", name);

  std::vector<std::string> vocab = occupations;
  if (vocab.empty()) {
    std::set<std::string> distinct;
    for (const auto& r : rows) distinct.insert(r.second.occupation);
    vocab.assign(distinct.begin(), distinct.end());
  }
  int64_t max_age = 0;
  for (const auto& r : rows) max_age = std::max(max_age, r.second.age);

  FeatureMatrix m;
  m.rows = num_users;
  m.cols = 3 + static_cast<int64_t>(vocab.size());
  m.names = {"age", "gender=M", "gender=F"};
  for (const auto& o : vocab) m.names.push_back("occupation=" + o);
  m.values.assign(static_cast<size_t>(m.rows * m.cols), 0.0f);
  for (const auto& [id, r] : rows) {
    float* row = m.values.data() + (id - 1) * m.cols;
    row[0] = max_age > 0 ? static_cast<float>(r.age) / static_cast<float>(max_age) : 0.0f;
    row[r.male ? 1 : 2] = 1.0f;
    row[3 + (std::find(vocab.begin(), vocab.end(), r.occupation) - vocab.begin())] = 1.0f;
  }
  return m;
}

FeatureMatrix parse_ml100k_items(const std::string& text, const std::string& name, int64_t num_items,
                                 const std::vector<std::string>& genres) {
  if (num_items < 1 || num_items > kMaxNodes)
    throw DataError(name, 0, "bad item count " + std::to_string(num_items));
  std::vector<std::string> names = genres;
  if (names.empty()) names.assign(kMl100kGenres.begin(), kMl100kGenres.end());
  const size_t g = names.size();
  const std::vector<TextLine> lines = split_lines(text, name, false);
  std::vector<long> row_line(static_cast<size_t>(num_items), 0);
  std::vector<std::pair<int64_t, std::vector<float>>> rows;
  std::vector<std::string_view> f;
  for (const TextLine& ln : lines) {
    split_fields(ln.text, Delimiter::Pipe, f);
    // Genre flags are the last g fields, so that a '|' inside a title would not shift them.
    if (f.size() < 5 + g)
      throw DataError(name, ln.number,
                      "expected at least " + std::to_string(5 + g) +
                          " fields (id|title|date|video date|url|" + std::to_string(g) +
                          " genre flags), found " + std::to_string(f.size()));
    const int64_t id = parse_id(f[0], "item", num_items, name, ln.number);
    claim_row(row_line, id, "item", name, ln.number);
    std::vector<float> flags(g);
    for (size_t k = 0; k < g; ++k) {
      const std::string_view v = f[f.size() - g + k];
      if (v != "0" && v != "1")
        throw DataError(name, ln.number, "genre flag " + quote(v) + " (" + names[k] + ") is not 0 or 1");
      flags[k] = v == "1" ? 1.0f : 0.0f;
    }
    rows.emplace_back(id, std::move(flags));
  }
  require_all_rows(row_line, "item", name);
  FeatureMatrix m;
  m.rows = num_items;
  m.cols = static_cast<int64_t>(g);
  for (const auto& n : names) m.names.push_back("genre=" + n);
  m.values.assign(static_cast<size_t>(m.rows * m.cols), 0.0f);
  for (const auto& [id, flags] : rows)
    std::copy(flags.begin(), flags.end(), m.values.begin() + (id - 1) * m.cols);
  return m;
}

namespace {

/// Sorts rows by id (dropping none: duplicates are rejected while reading) into a NodeTable.
NodeTable make_table(std::vector<std::pair<int64_t, std::vector<float>>> rows,
                     std::vector<std::string> names) {
  std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  NodeTable t;
  t.features.rows = static_cast<int64_t>(rows.size());
  t.features.cols = static_cast<int64_t>(names.size());
  t.features.names = std::move(names);
  t.features.values.reserve(rows.size() * t.features.names.size());
  for (auto& [id, row] : rows) {
    t.ids.push_back(id);
    t.features.values.insert(t.features.values.end(), row.begin(), row.end());
  }
  return t;
}

}  // namespace

NodeTable parse_ml1m_users(const std::string& text, const std::string& name) {
  std::vector<std::string> names = {"gender=M", "gender=F"};
  for (int a : kMl1mAges) names.push_back("age=" + std::to_string(a));
  for (const char* o : kMl1mOccupations) names.push_back(std::string("occupation=") + o);
  std::unordered_map<int64_t, long> row_line;
  std::vector<std::pair<int64_t, std::vector<float>>> rows;
  std::vector<std::string_view> f;
  for (const TextLine& ln : split_lines(text, name, false)) {
    split_fields(ln.text, Delimiter::DoubleColon, f);
    expect_fields(f, 5, "UserID::Gender::Age::Occupation::Zip-code", name, ln.number);
    const int64_t id = parse_id(f[0], "user", 0, name, ln.number);
    if (const auto [it, fresh] = row_line.emplace(id, ln.number); !fresh)
      throw DataError(name, ln.number,
                      "second row for user id " + std::to_string(id) + " (first on line " +
                          std::to_string(it->second) + ")");
    std::vector<float> row(names.size(), 0.0f);
    if (f[1] != "M" && f[1] != "F")
      throw DataError(name, ln.number, "gender " + quote(f[1]) + " is not M or F");
    row[f[1] == "M" ? 0 : 1] = 1.0f;
    int64_t age = 0;
    const auto age_it = std::find(kMl1mAges.begin(), kMl1mAges.end(), to_int(f[2], age) ? age : -1);
    if (age_it == kMl1mAges.end())
      throw DataError(name, ln.number,
                      "age code " + quote(f[2]) + " is not one of 1, 18, 25, 35, 45, 50, 56");
    row[2 + (age_it - kMl1mAges.begin())] = 1.0f;
    int64_t occupation = 0;
    if (!to_int(f[3], occupation) || occupation < 0 ||
        occupation >= static_cast<int64_t>(kMl1mOccupations.size()))
      throw DataError(name, ln.number, "occupation " + quote(f[3]) + " is not an integer in 0..20");
    row[2 + kMl1mAges.size() + static_cast<size_t>(occupation)] = 1.0f;
    rows.emplace_back(id, std::move(row));
  }
  return make_table(std::move(rows), std::move(names));
}

NodeTable parse_ml1m_movies(const std::string& text, const std::string& name) {
  std::vector<std::string> names;
  for (const char* g : kMl1mGenres) names.push_back(std::string("genre=") + g);
  std::unordered_map<int64_t, long> row_line;
  std::vector<std::pair<int64_t, std::vector<float>>> rows;
  std::vector<std::string_view> f;
  for (const TextLine& ln : split_lines(text, name, false)) {
    split_fields(ln.text, Delimiter::DoubleColon, f);
    // The title is everything between the first and the last '::' (titles may hold colons).
    if (f.size() < 3)
      throw DataError(name, ln.number,
                      "expected 3 fields (MovieID::Title::Genres), found " + std::to_string(f.size()));
    const int64_t id = parse_id(f[0], "movie", 0, name, ln.number);
    if (const auto [it, fresh] = row_line.emplace(id, ln.number); !fresh)
      throw DataError(name, ln.number,
                      "second row for movie id " + std::to_string(id) + " (first on line " +
                          std::to_string(it->second) + ")");
    std::vector<float> row(names.size(), 0.0f);
    const std::string_view genres = f.back();
    if (!genres.empty() && genres != "(no genres listed)") {
      std::vector<std::string_view> g;
      split_fields(genres, Delimiter::Pipe, g);
      for (const std::string_view one : g) {
        const auto k = std::find(kMl1mGenres.begin(), kMl1mGenres.end(), one);
        if (k == kMl1mGenres.end()) throw DataError(name, ln.number, "unknown genre " + quote(one));
        row[static_cast<size_t>(k - kMl1mGenres.begin())] = 1.0f;
      }
    }
    rows.emplace_back(id, std::move(row));
  }
  return make_table(std::move(rows), std::move(names));
}

Dataset load_movielens_100k(const std::string& dir, const DataConfig& cfg) {
  static const std::array<const char*, 7> kSplits = {"u1", "u2", "u3", "u4", "u5", "ua", "ub"};
  const bool by_time = is_time_split(cfg.split);
  if (!by_time && std::find(kSplits.begin(), kSplits.end(), cfg.split) == kSplits.end())
    throw DataError(dir, 0,
                    "unknown MovieLens-100K split " + quote(cfg.split) +
                        " (expected u1..u5, ua, ub, temporal or leave_last_out)");
  const std::string info = path_in(dir, "u.info"), user_file = path_in(dir, "u.user"),
                    item_file = path_in(dir, "u.item"), data_file = path_in(dir, "u.data");

  // Sizes: u.info, else the largest ids of u.user / u.item, else those of u.data.
  int64_t num_users = 0, num_items = 0;
  if (fs::exists(info)) {
    std::tie(num_users, num_items) = parse_ml100k_info(read_text_file(info), info);
  } else {
    if (fs::exists(user_file)) num_users = parse_ml100k_max_id(read_text_file(user_file), user_file);
    if (fs::exists(item_file)) num_items = parse_ml100k_max_id(read_text_file(item_file), item_file);
    if (num_users == 0 || num_items == 0) {
      if (!fs::exists(data_file))
        throw DataError(dir, 0, "cannot size the matrix: no u.info, u.user/u.item or u.data");
      const bool need_users = num_users == 0, need_items = num_items == 0;
      PairRegistry scratch;
      for (const IdRating& r : parse_movielens_ratings(read_text_file(data_file), data_file, Delimiter::Tab,
                                                       kMaxNodes, kMaxNodes, scratch)) {
        if (need_users) num_users = std::max(num_users, r.user);
        if (need_items) num_items = std::max(num_items, r.item);
      }
    }
  }

  Dataset ds;
  ds.name = "ml-100k/" + cfg.split;
  ds.users.count = num_users;
  ds.items.count = num_items;
  ds.users.ids = numbered_ids(num_users);
  ds.items.ids = numbered_ids(num_items);
  PairRegistry seen;
  const auto read_split = [&](const std::string& file, RatingList& out) {
    for (const IdRating& r :
         parse_movielens_ratings(read_text_file(file), file, Delimiter::Tab, num_users, num_items, seen))
      out.add(r.user - 1, r.item - 1, r.value);
  };
  if (by_time) {
    // The time-aware splits cut u.data, all the ratings, by their timestamps.
    RatingList all;
    std::vector<double> times;
    for (const IdRating& r : parse_movielens_ratings(read_text_file(data_file), data_file, Delimiter::Tab,
                                                     num_users, num_items, seen)) {
      all.add(r.user - 1, r.item - 1, r.value);
      times.push_back(r.time);
    }
    split_ratings(all, times, cfg, data_file, ds);
  } else {
    read_split(path_in(dir, (cfg.split + ".base").c_str()), ds.train);
    read_split(path_in(dir, (cfg.split + ".test").c_str()), ds.test);
  }

  if (fs::exists(user_file)) {
    const std::string occ_file = path_in(dir, "u.occupation");
    const std::vector<std::string> occupations =
        fs::exists(occ_file) ? parse_ml100k_vocabulary(read_text_file(occ_file), occ_file)
                             : std::vector<std::string>{};
    ds.users.features = parse_ml100k_users(read_text_file(user_file), user_file, num_users, occupations);
    ds.users.features_origin = "u.user: age, gender, occupation";
  }
  if (fs::exists(item_file)) {
    const std::string genre_file = path_in(dir, "u.genre");
    const std::vector<std::string> genres =
        fs::exists(genre_file) ? parse_ml100k_vocabulary(read_text_file(genre_file), genre_file)
                               : std::vector<std::string>{};
    ds.items.features = parse_ml100k_items(read_text_file(item_file), item_file, num_items, genres);
    ds.items.features_origin = "u.item: " + std::to_string(ds.items.features.cols) + " genres";
  }
  ds.rating_levels = {1, 2, 3, 4, 5};
  ds.rating_min = 1;
  ds.rating_max = 5;
  return ds;
}

Dataset load_movielens_1m(const std::string& dir, const DataConfig& cfg) {
  const std::string ratings_file = path_in(dir, "ratings.dat"), users_file = path_in(dir, "users.dat"),
                    movies_file = path_in(dir, "movies.dat");
  PairRegistry seen;
  const std::vector<IdRating> raw =
      parse_movielens_ratings(read_text_file(ratings_file), ratings_file, Delimiter::DoubleColon, 0, 0, seen);

  // Each side: the ids of its description file when present, else the ids rated.
  const auto side = [&](const std::string& file, bool users, NodeSet& out) {
    NodeTable t;
    if (fs::exists(file)) {
      t = users ? parse_ml1m_users(read_text_file(file), file)
                : parse_ml1m_movies(read_text_file(file), file);
      out.features = std::move(t.features);
      out.features_origin = users ? "users.dat: gender, age, occupation" : "movies.dat: 18 genres";
    } else {
      std::set<int64_t> ids;
      for (const IdRating& r : raw) ids.insert(users ? r.user : r.item);
      t.ids.assign(ids.begin(), ids.end());
    }
    std::unordered_map<int64_t, int64_t> index;
    for (size_t k = 0; k < t.ids.size(); ++k) {
      index.emplace(t.ids[k], static_cast<int64_t>(k));
      out.ids.push_back(std::to_string(t.ids[k]));
    }
    out.count = static_cast<int64_t>(t.ids.size());
    return index;
  };
  Dataset ds;
  ds.name = "ml-1m";
  const auto user_index = side(users_file, true, ds.users);
  const auto movie_index = side(movies_file, false, ds.items);
  RatingList all;
  std::vector<double> times;
  times.reserve(raw.size());
  for (const IdRating& r : raw) {
    times.push_back(r.time);
    const auto u = user_index.find(r.user);
    if (u == user_index.end())
      throw DataError(ratings_file, r.line, "user id " + std::to_string(r.user) + " is not in users.dat");
    const auto i = movie_index.find(r.item);
    if (i == movie_index.end())
      throw DataError(ratings_file, r.line, "movie id " + std::to_string(r.item) + " is not in movies.dat");
    all.add(u->second, i->second, r.value);
  }
  split_five_stars(all, cfg, ds, times, ratings_file);
  return ds;
}

}  // namespace symgnn::data
