// train.cold_lists = auto (fit/cold_list_choice.h): the lists of users without ratings are
// chosen on validation, the validation users listed as if they had none: the people linked to
// them where they share tastes, popularity where nobody linked rated.
#include <gtest/gtest.h>

#include <algorithm>
#include <iterator>
#include <random>
#include <string>

#include "fit/cold_list_choice.h"
#include "symgnn/config.h"
#include "symgnn/dataset.h"

namespace {

/// 300 users in 3 groups, 30 items; group g likes items 10g..10g+9: each user rates 6 of them
/// 5 in training, 2 more 5 in validation, and 2 other items 1. With `linked`, each user is
/// linked to 5 users of their own group.
symgnn::Dataset group_tastes(bool linked) {
  std::mt19937 rng(3);
  symgnn::Dataset ds;
  ds.users.count = 300;
  ds.items.count = 30;
  ds.rating_min = 1;
  ds.rating_max = 5;
  std::uniform_int_distribution<int64_t> any(0, 29), mate(0, 99);
  for (int64_t u = 0; u < 300; ++u) {
    const int64_t g = u % 3;
    std::vector<int64_t> liked;
    for (int64_t i = 0; i < 10; ++i) liked.push_back(10 * g + i);
    std::shuffle(liked.begin(), liked.end(), rng);
    for (int k = 0; k < 6; ++k) ds.train.add(u, liked[static_cast<size_t>(k)], 5);
    for (int k = 6; k < 8; ++k) ds.validation.add(u, liked[static_cast<size_t>(k)], 5);
    for (int k = 0; k < 2; ++k) {
      const int64_t other = (10 * (g + 1 + k) + any(rng) % 10) % 30;
      ds.train.add(u, other, 1);
    }
  }
  ds.users.graph.num_nodes = 300;
  if (linked)
    for (int64_t u = 0; u < 300; ++u)
      for (int k = 0; k < 5; ++k) {
        const int64_t v = 3 * mate(rng) + u % 3;  // the same group
        if (v != u) ds.users.graph.add(u, v, 1.0f);
      }
  return ds;
}

}  // namespace

TEST(ColdListChoice, LinkedPeopleWhoShareTastesAreChosen) {
  symgnn::RunConfig cfg;  // train.cold_lists = auto, the default
  const symgnn::fitting::ColdListChoice c = symgnn::fitting::choose_cold_lists(cfg, group_tastes(true));
  ASSERT_TRUE(c.tried);
  EXPECT_EQ(c.users, 300);
  EXPECT_EQ(c.chosen, "neighbours") << symgnn::fitting::describe(c);
  EXPECT_EQ(cfg.train.cold_lists, "neighbours");
  EXPECT_DOUBLE_EQ(cfg.train.cold_popularity_weight, c.weight);
  ASSERT_EQ(c.by_weight.size(), std::size(symgnn::fitting::kColdWeights));
  double best = 0;
  for (const auto& [w, ndcg] : c.by_weight) best = std::max(best, ndcg);
  EXPECT_GT(best, c.popularity + 0.1) << symgnn::fitting::describe(c);  // the group's items, not everyone's
  const nlohmann::json j = symgnn::fitting::cold_list_choice_json(c);
  EXPECT_EQ(j.at("chosen"), "neighbours");
  EXPECT_EQ(j.at("validation_users"), 300);
}

TEST(ColdListChoice, WithoutLinkedRatersPopularityAndAUsersChoiceStands) {
  symgnn::RunConfig cfg;
  ASSERT_EQ(cfg.train.cold_lists, "auto");
  const auto c = symgnn::fitting::choose_cold_lists(cfg, group_tastes(false));
  EXPECT_TRUE(c.tried);
  EXPECT_EQ(c.users, 0);
  EXPECT_EQ(cfg.train.cold_lists, "popularity");
  EXPECT_NE(symgnn::fitting::describe(c).find("listed by popularity"), std::string::npos);
  cfg.train.cold_lists = "neighbours";  // the user's own choice
  EXPECT_FALSE(symgnn::fitting::choose_cold_lists(cfg, group_tastes(true)).tried);
  EXPECT_EQ(cfg.train.cold_lists, "neighbours");
}
