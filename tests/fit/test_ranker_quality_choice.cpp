// train.ranker_quality = auto (fit/ranker_quality_choice.h): the items' ratings join the
// ranker's lists where how well an item is rated tells the relevant items apart and the
// ranker cannot, and stay out where the ratings do not vary or are interactions.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "fit/ranker_quality_choice.h"
#include "infer/ranker_quality_term.h"
#include "symgnn/config.h"
#include "symgnn/dataset.h"
#include "symgnn/ranking.h"

namespace {

/// 300 users, each rating 12 of 30 items drawn at random (8 in training, 4 in validation):
/// items 0-14 rated 4 or 5, items 15-29 rated 1 or 2 (`flat`: every rating 4). Which items a
/// user rates says nothing of which they like, so a ranker of co-ratings cannot find them.
symgnn::Dataset good_and_bad_items(bool flat) {
  symgnn::Dataset ds;
  ds.name = "good and bad items";
  ds.users.count = 300;
  ds.items.count = 30;
  ds.rating_min = 1;
  ds.rating_max = 5;
  ds.rating_levels = {1, 2, 3, 4, 5};
  std::mt19937 rng(11);
  std::vector<int64_t> items(30);
  for (int64_t u = 0; u < 300; ++u) {
    std::iota(items.begin(), items.end(), 0);
    std::shuffle(items.begin(), items.end(), rng);
    for (int k = 0; k < 12; ++k) {
      const int64_t i = items[static_cast<size_t>(k)];
      const float r = flat ? 4.0f : (i < 15 ? 4.0f : 1.0f) + static_cast<float>(rng() % 2);
      (k < 8 ? ds.train : ds.validation).add(u, i, r);
    }
  }
  return ds;
}

/// Every user's row: the items' training counts (popularity), the same for all.
std::vector<float> popularity_rows(const symgnn::Dataset& ds, const std::vector<int64_t>& users) {
  std::vector<float> counts(static_cast<size_t>(ds.items.count), 0.0f);
  for (const int64_t i : ds.train.item) counts[static_cast<size_t>(i)] += 1;
  std::vector<float> rows;
  for (size_t k = 0; k < users.size(); ++k) rows.insert(rows.end(), counts.begin(), counts.end());
  return rows;
}

}  // namespace

TEST(RankerQualityChoice, TheItemsRatingsJoinWhereTheyTellTheRelevantItemsApart) {
  const symgnn::Dataset ds = good_and_bad_items(false);
  symgnn::RunConfig cfg;
  ASSERT_EQ(cfg.train.ranker_quality, "auto");
  int64_t asked = 0;
  const auto c = symgnn::fitting::choose_ranker_quality(cfg, ds,
                                                        [&](const std::vector<int64_t>& users) {
                                                          asked += static_cast<int64_t>(users.size());
                                                          return popularity_rows(ds, users);
                                                        },
                                                        {});
  ASSERT_TRUE(c.tried) << c.why;
  EXPECT_EQ(c.users, asked);
  EXPECT_GT(c.users, 200);  // every user with a validation rating of 4 or 5
  EXPECT_EQ(c.chosen, "item") << symgnn::fitting::describe(c);
  EXPECT_EQ(cfg.train.ranker_quality, "item");
  EXPECT_DOUBLE_EQ(cfg.train.ranker_quality_weight, c.weight);
  EXPECT_DOUBLE_EQ(cfg.train.ranker_quality_shrinkage, c.shrinkage);
  EXPECT_GT(c.gain, 0.2) << symgnn::fitting::describe(c);
  EXPECT_GT(c.gain, 3 * c.gain_se);
  EXPECT_EQ(c.points.size(), std::size(symgnn::fitting::kRankerQualityWeights) *
                                 std::size(symgnn::fitting::kRankerQualityShrinkages));
  // The figure without the term is popularity's NDCG@10 over those users, by brute force.
  double sum = 0;
  int64_t users = 0;
  std::vector<std::vector<int64_t>> trained(300), relevant(300);
  for (size_t e = 0; e < ds.train.size(); ++e)
    trained[static_cast<size_t>(ds.train.user[e])].push_back(ds.train.item[e]);
  for (size_t e = 0; e < ds.validation.size(); ++e)
    if (ds.validation.value[e] >= 4)
      relevant[static_cast<size_t>(ds.validation.user[e])].push_back(ds.validation.item[e]);
  for (int64_t u = 0; u < 300; ++u) {
    auto& rel = relevant[static_cast<size_t>(u)];
    if (rel.empty()) continue;
    std::sort(rel.begin(), rel.end());
    std::vector<char> excluded(30, 0);
    for (const int64_t i : trained[static_cast<size_t>(u)]) excluded[static_cast<size_t>(i)] = 1;
    const std::vector<float> row = popularity_rows(ds, {u});
    const std::vector<int64_t> top = symgnn::eval::top_k_items(row.data(), 30, 10, excluded);
    double dcg = 0, ideal = 0;
    for (size_t r = 0; r < top.size(); ++r)
      if (std::binary_search(rel.begin(), rel.end(), top[r])) dcg += 1 / std::log2(r + 2.0);
    for (size_t r = 0; r < std::min<size_t>(10, rel.size()); ++r) ideal += 1 / std::log2(r + 2.0);
    sum += dcg / ideal, ++users;
  }
  EXPECT_EQ(users, c.users);
  EXPECT_NEAR(c.without, sum / static_cast<double>(users), 1e-9);
  const nlohmann::json j = symgnn::fitting::ranker_quality_choice_json(c);
  EXPECT_EQ(j.at("chosen"), "item");
  EXPECT_NEAR(j.at("val_ndcg@10_without").get<double>(), c.without, 1e-12);
}

TEST(RankerQualityChoice, RatingsThatDoNotVaryInteractionsAndAUsersChoiceLeaveItOut) {
  {
    symgnn::RunConfig cfg;
    const symgnn::Dataset ds = good_and_bad_items(true);
    const auto c = symgnn::fitting::choose_ranker_quality(
        cfg, ds, [&](const std::vector<int64_t>& users) { return popularity_rows(ds, users); }, {});
    ASSERT_TRUE(c.tried);
    EXPECT_EQ(c.gain, 0.0) << "every q(i) is 0: the lists do not move";
    EXPECT_EQ(c.chosen, "none");
    EXPECT_EQ(cfg.train.ranker_quality, "none");
    EXPECT_NE(symgnn::fitting::describe(c).find("take no term of the items' ratings"), std::string::npos);
  }
  {
    symgnn::RunConfig cfg;
    symgnn::Dataset ds = good_and_bad_items(false);
    ds.feedback = "implicit";
    const auto c = symgnn::fitting::choose_ranker_quality(
        cfg, ds, [&](const std::vector<int64_t>& users) { return popularity_rows(ds, users); }, {});
    EXPECT_FALSE(c.tried);
    EXPECT_EQ(cfg.train.ranker_quality, "none");
    EXPECT_NE(c.why.find("interactions"), std::string::npos) << c.why;
  }
  {
    symgnn::RunConfig cfg;
    cfg.train.ranker_quality = "item";  // the user's own choice
    const symgnn::Dataset ds = good_and_bad_items(false);
    const auto c = symgnn::fitting::choose_ranker_quality(
        cfg, ds, [&](const std::vector<int64_t>& users) { return popularity_rows(ds, users); }, {});
    EXPECT_TRUE(c.chosen.empty());
    EXPECT_EQ(cfg.train.ranker_quality, "item");
  }
}

TEST(RankerQualityChoice, TheTestFiguresAreReportedAtTheBestPoint) {
  // Each user's unrated good items are their test items: the term finds them.
  symgnn::Dataset ds = good_and_bad_items(false);
  std::vector<std::vector<char>> seen(300, std::vector<char>(30, 0));
  for (const symgnn::RatingList* r : {&ds.train, &ds.validation})
    for (size_t e = 0; e < r->size(); ++e)
      seen[static_cast<size_t>(r->user[e])][static_cast<size_t>(r->item[e])] = 1;
  for (int64_t u = 0; u < 300; ++u)
    for (int64_t i = 0; i < 15; ++i)
      if (!seen[static_cast<size_t>(u)][static_cast<size_t>(i)]) ds.test.add(u, i, 5);
  symgnn::RunConfig cfg;
  const auto rows = [&](const std::vector<int64_t>& users) { return popularity_rows(ds, users); };
  const auto c = symgnn::fitting::choose_ranker_quality(cfg, ds, rows, rows);
  ASSERT_EQ(c.chosen, "item");
  EXPECT_EQ(c.test_users, 300);
  EXPECT_GT(c.test_with, c.test_without + 0.2) << symgnn::fitting::describe(c);
  EXPECT_NE(symgnn::fitting::describe(c).find("on test (not chosen on)"), std::string::npos);
}

TEST(RankerQualityTerm, ItemQualityIsTheShrunkMeanOfItsRatersDeviations) {
  symgnn::Dataset ds;
  ds.users.count = 3;
  ds.items.count = 4;
  ds.rating_min = 1;
  ds.rating_max = 5;
  ds.train.add(0, 0, 5), ds.train.add(0, 1, 3);            // user 0: mean 4
  ds.train.add(1, 0, 2), ds.train.add(1, 2, 4);            // user 1: mean 3
  ds.validation.add(2, 0, 1), ds.validation.add(2, 1, 5);  // user 2: mean 3
  // Training alone: item 0 (5 - 4) + (2 - 3) = 0 over 2 raters; item 1 (3 - 4) = -1 over 1;
  // item 2 (4 - 3) = 1 over 1; item 3 none. Shrinkage 2, the scale 4 wide.
  const std::vector<float> q = symgnn::infer::item_quality(ds, 2.0, false);
  ASSERT_EQ(q.size(), 4u);
  EXPECT_NEAR(q[0], 0.0, 1e-7);
  EXPECT_NEAR(q[1], -1.0 / 3 / 4, 1e-7);
  EXPECT_NEAR(q[2], 1.0 / 3 / 4, 1e-7);
  EXPECT_EQ(q[3], 0.0f);
  // With validation: item 0 adds (1 - 3) over a third rater, item 1 (5 - 3).
  const std::vector<float> all = symgnn::infer::item_quality(ds, 2.0, true);
  EXPECT_NEAR(all[0], -2.0 / 5 / 4, 1e-7);
  EXPECT_NEAR(all[1], 1.0 / 4 / 4, 1e-7);
  // The term: the row scaled to a largest |entry| of 1 unless it is already, then + w x q.
  std::vector<float> row = {2, -4, 1, 0};
  symgnn::infer::add_item_quality_term(row.data(), q.data(), 4, 2.0, /*scaled=*/false);
  EXPECT_NEAR(row[0], 0.5, 1e-7);
  EXPECT_NEAR(row[1], -1.0 + 2 * (-1.0 / 12), 1e-7);
  EXPECT_NEAR(row[2], 0.25 + 2 * (1.0 / 12), 1e-7);
  EXPECT_NEAR(row[3], 0.0, 1e-7);
  std::vector<float> scaled = {0.5f, 1.0f, 0.0f, 0.0f};
  symgnn::infer::add_item_quality_term(scaled.data(), q.data(), 4, 1.0, /*scaled=*/true);
  EXPECT_NEAR(scaled[1], 1.0 - 1.0 / 12, 1e-7);
}
