// Filters of lists (symgnn/item_filter.h) and re-ranking a candidate list (rank_items,
// symgnn/recommend.h) on a small trained model: each filtered list against brute force over
// the same scores, exactly k items or one error saying how many candidates were left, the
// files' formats and their errors, and rank_items against the order of the scores.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <random>
#include <sstream>

#include "infer_test_util.h"
#include "symgnn/error.h"
#include "symgnn/fit.h"
#include "symgnn/item_filter.h"
#include "symgnn/recommend.h"

using namespace symgnn;

namespace {

/// A 30 x 20 CSV, about half the cells rated, EASE fitted once (scores of its own).
const std::string& filter_model_dir() {
  static const std::string dir = [] {
    const std::string d = symgnn::testing::scratch_dir("infer_item_filter");
    std::mt19937 gen(5);
    std::uniform_real_distribution<double> coin(0, 1);
    std::uniform_int_distribution<int> star(1, 5);
    std::ostringstream csv;
    csv << "user,item,rating\n";
    for (int u = 0; u < 30; ++u)
      for (int i = 0; i < 20; ++i)
        if (coin(gen) < 0.5) csv << "u" << u << ",i" << i << "," << star(gen) << "\n";
    symgnn::testing::write_file(d, "ratings.csv", csv.str());
    RunConfig cfg;
    cfg.model = "ease";
    cfg.data.source = d + "/ratings.csv";
    cfg.data.test_fraction = 0.2;
    FitOptions o;
    o.out_dir = d + "/run";
    o.overwrite = true;
    fit(cfg, o);
    return o.out_dir;
  }();
  return dir;
}

int64_t filter_item_index(const TrainedModel& m, const std::string& id) {
  for (int64_t i = 0; i < m.items(); ++i)
    if (m.dataset().items.id_of(i) == id) return i;
  return -1;
}

/// The k best of `row` among the items `ok` keeps, by a full sort (ties: lower index).
std::vector<int64_t> filtered_brute(const std::vector<float>& row, const std::function<bool(int64_t)>& ok,
                                    int64_t k) {
  std::vector<int64_t> order;
  for (int64_t i = 0; i < static_cast<int64_t>(row.size()); ++i)
    if (ok(i)) order.push_back(i);
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return row[a] > row[b]; });
  order.resize(std::min<size_t>(order.size(), static_cast<size_t>(k)));
  return order;
}

}  // namespace

TEST(ItemFilter, FilteredListsEqualBruteForceOverTheSameScores) {
  const TrainedModel m = TrainedModel::load(filter_model_dir());
  const std::string d = symgnn::testing::scratch_dir("infer_item_filter_files");
  // Attributes in both forms: even items are "books", multiples of 3 "in stock".
  std::ostringstream kv, table;
  table << "id,category,in_stock\n";
  for (int i = 0; i < 20; ++i) {
    const std::string cat = i % 2 == 0 ? "books" : "music", stock = i % 3 == 0 ? "1" : "0";
    if (i != 19) kv << "i" << i << ",category=" << cat << ",in_stock=" << stock << "\n";  // i19 unlisted
    if (i != 19) table << "i" << i << "," << cat << "," << stock << "\n";
  }
  symgnn::testing::write_file(d, "kv.txt", kv.str());
  symgnn::testing::write_file(d, "table.csv", table.str());
  symgnn::testing::write_file(d, "exclude.csv", "user,item\ni4\nu0,i6\nu0,i8\n");
  symgnn::testing::write_file(d, "items.txt", "item\ni0\ni2\ni4\ni6\ni8\ni10\ni12\ni14\ni16\ni18\ni3\n");
  for (const std::string attributes : {"kv.txt", "table.csv"}) {
    const ItemAttributes a = read_item_attributes(d + "/" + attributes);
    EXPECT_EQ(a.keys, (std::vector<std::string>{"category", "in_stock"}));
    ItemFilterSpec spec;
    read_exclusions(d + "/exclude.csv", spec);
    read_candidates(d + "/items.txt", spec);
    add_where("category=books", spec);
    const ItemFilter f = make_item_filter(m, spec, &a);
    // Allowed: the candidate list's books, less i4 (everyone) and, for u0, i6 and i8.
    const auto ok_for = [&](int64_t u, int64_t i, bool include_seen) {
      const std::string id = m.dataset().items.id_of(i);
      const int n = std::stoi(id.substr(1));
      const auto& seen = m.seen_items()[static_cast<size_t>(u)];
      if (!include_seen && std::binary_search(seen.begin(), seen.end(), i)) return false;
      if (n % 2 != 0 || n == 4) return false;  // not a book (i3 is a candidate but music), or excluded
      if (m.dataset().users.id_of(u) == "u0" && (n == 6 || n == 8)) return false;
      return true;
    };
    for (const bool include_seen : {false, true})
      for (int64_t u = 0; u < m.users(); ++u) {
        const std::vector<float> row = m.score_all_items({u});
        const std::vector<int64_t> want = filtered_brute(
            row, [&](int64_t i) { return ok_for(u, i, include_seen); }, 3);
        RecommendOptions o;
        o.k = 3;
        o.include_seen = include_seen;
        o.filter = f;
        if (want.empty()) {
          try {
            recommend(m, {u}, o);
            ADD_FAILURE() << "no error for user " << u;
          } catch (const ConfigError& e) {
            const std::string msg = e.what();
            EXPECT_NE(msg.find("has no candidate item after the filters ("), std::string::npos) << msg;
          }
          continue;
        }
        // Fewer than k: every candidate, a shorter list that says how many.
        const UserRecommendations got = recommend(m, {u}, o)[0];
        EXPECT_EQ(got.items, want) << attributes << " user " << u;
        EXPECT_EQ(got.candidates, want.size() < 3 ? static_cast<int64_t>(want.size()) : -1);
      }
  }
}

TEST(ItemFilter, BadFiltersAreOneLineErrors) {
  const TrainedModel m = TrainedModel::load(filter_model_dir());
  const std::string d = symgnn::testing::scratch_dir("infer_item_filter_bad");
  symgnn::testing::write_file(d, "attrs.txt", "i1,category=books\ni2,color\n");
  symgnn::testing::write_file(d, "twice.txt", "i1,category=books\ni1,category=music\n");
  symgnn::testing::write_file(d, "wide.csv", "id,category\ni1,books,extra\n");
  symgnn::testing::write_file(d, "good.txt", "i1,category=books\n");
  symgnn::testing::write_file(d, "unknown.txt", "i1\nnot-an-item\n");
  symgnn::testing::write_file(d, "three.txt", "a,b,c\n");
  const auto data_error = [](auto f) {
    try {
      f();
    } catch (const DataError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(data_error([&] { read_item_attributes(d + "/attrs.txt"); }),
            d + "/attrs.txt:2: field 'color' is not key=value");
  EXPECT_EQ(data_error([&] { read_item_attributes(d + "/twice.txt"); }),
            d + "/twice.txt:2: item 'i1' is given twice");
  EXPECT_EQ(data_error([&] { read_item_attributes(d + "/wide.csv"); }),
            d + "/wide.csv:2: 3 columns, the header has 2");
  // A row cut short is refused by line; an empty field is an empty value.
  symgnn::testing::write_file(d, "short.csv", "item,genre,year\ni1,drama,1990\ni2,comedy\n");
  EXPECT_EQ(data_error([&] { read_item_attributes(d + "/short.csv"); }),
            d + "/short.csv:3: 2 column(s), the header has 3 (leave a field empty for an item without that "
                "attribute)");
  symgnn::testing::write_file(d, "blank.csv", "item,genre,year\ni1,drama,1990\ni2,comedy,\n");
  EXPECT_EQ(read_item_attributes(d + "/blank.csv").of.at("i2").at("year"), "");
  ItemFilterSpec spec;
  read_candidates(d + "/unknown.txt", spec);
  EXPECT_EQ(data_error([&] { make_item_filter(m, spec, nullptr); }),
            d + "/unknown.txt: 'not-an-item' is no item of the model");
  ItemFilterSpec three;
  EXPECT_EQ(data_error([&] { read_exclusions(d + "/three.txt", three); }),
            d + "/three.txt:1: expected \"item\" or \"user,item\", got 3 field(s)");
  ItemFilterSpec where;
  add_where("size=big", where);
  const ItemAttributes good = read_item_attributes(d + "/good.txt");
  try {
    make_item_filter(m, where, &good);
    ADD_FAILURE() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()),
              "where 'size=big': no attribute 'size' in " + d + "/good.txt (it has: category)");
  }
  EXPECT_THROW(make_item_filter(m, where, nullptr), ConfigError);
  EXPECT_THROW(add_where("=books", where), ConfigError);
  EXPECT_THROW(add_where("books", where), ConfigError);
}

TEST(RankItems, OrdersTheCandidatesAsTheScoresDo) {
  const TrainedModel m = TrainedModel::load(filter_model_dir());
  for (int64_t u = 0; u < m.users(); u += 7) {
    const std::vector<float> row = m.score_all_items({u});
    const std::vector<int64_t> given{filter_item_index(m, "i9"), filter_item_index(m, "i1"),
                                     filter_item_index(m, "i14"), filter_item_index(m, "i3")};
    const UserRecommendations r = rank_items(m, u, given);
    const std::vector<int64_t> want = filtered_brute(
        row, [&](int64_t i) { return std::find(given.begin(), given.end(), i) != given.end(); }, 4);
    EXPECT_EQ(r.items, want) << "user " << u;
    ASSERT_EQ(r.scores.size(), 4u);
    // The predictions recommend shows beside the same items.
    RecommendOptions o;
    o.k = 4;
    o.include_seen = true;
    ItemFilterSpec spec;
    spec.has_items = true;
    for (const int64_t i : given) spec.items.push_back(m.dataset().items.id_of(i));
    o.filter = make_item_filter(m, spec, nullptr);
    const UserRecommendations listed = recommend(m, {u}, o)[0];
    EXPECT_EQ(listed.items, r.items);
    EXPECT_EQ(listed.scores, r.scores);
  }
  EXPECT_THROW(rank_items(m, 0, {}), ConfigError);
  EXPECT_THROW(rank_items(m, 0, {1, 1}), ConfigError);
  EXPECT_THROW(rank_items(m, 0, {20}), ConfigError);
  EXPECT_THROW(rank_items(m, 30, {1}), ConfigError);
}
