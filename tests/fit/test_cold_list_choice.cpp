// train.cold_lists = auto (fit/cold_list_choice.h): the lists of users without ratings are
// chosen on validation, the validation users listed as if they had none: the people linked to
// them where they share tastes, popularity where nobody linked rated.
#include <gtest/gtest.h>

#include <algorithm>
#include <iterator>
#include <random>
#include <string>

#include "fit/cold_list_choice.h"
#include "fit/ranking_test_util.h"
#include "symgnn/config.h"
#include "symgnn/dataset.h"

namespace {

/// The cold lists' tests' data: fit/ranking_test_util.h's groups, drawn from seed 3, each
/// user linked to 5 of their own group or to nobody.
symgnn::Dataset group_tastes(bool linked) {
  return symgnn::testing::group_tastes(
      3, linked ? symgnn::testing::GroupLinks::same_group : symgnn::testing::GroupLinks::none);
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
