// train.auto's measure of the graphs (fit/graph_worth.h): a graph whose neighbours rate
// alike is worth something on validation, a graph of random pairs about nothing, and the
// measure leaves the data as they were.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "fit/graph_worth.h"

namespace {

/// 300 users in 3 groups, each group's ratings offset by -1, 0, +1 (a user bias the
/// baseline can learn only from the user's own few ratings), 40 items; 2 training and 2
/// validation ratings a user. The user graph links users of one group (homophilous) or
/// random pairs; the item side has none.
symgnn::Dataset grouped(bool homophilous, uint32_t seed) {
  std::mt19937 rng(seed);
  symgnn::Dataset ds;
  ds.name = "grouped";
  const int64_t users = 300, items = 40;
  ds.users.count = users;
  ds.items.count = items;
  ds.rating_min = 1;
  ds.rating_max = 5;
  std::normal_distribution<double> noise(0.0, 0.8);
  std::uniform_int_distribution<int64_t> item(0, items - 1), user(0, users - 1);
  for (int64_t u = 0; u < users; ++u) {
    const double offset = static_cast<double>(u % 3) - 1.0;
    for (int k = 0; k < 4; ++k) {
      const double r = std::clamp(3.0 + offset + noise(rng), 1.0, 5.0);
      (k < 2 ? ds.train : ds.validation).add(u, item(rng), static_cast<float>(r));
    }
  }
  ds.users.graph.num_nodes = users;
  for (int64_t u = 0; u < users; ++u)
    for (int k = 0; k < 5; ++k) {
      int64_t v = user(rng);
      if (homophilous) v = (v / 3) * 3 + u % 3;  // the same group
      if (v != u) ds.users.graph.add(u, v, 1.0f);
    }
  ds.users.graph_origin = symgnn::GraphOrigin::File;
  ds.items.graph.num_nodes = items;
  ds.items.graph_origin = symgnn::GraphOrigin::Identity;
  return ds;
}

/// The graphs' worth under the shrinkage fit's prepared data chooses on ds's training ratings.
std::vector<symgnn::fitting::GraphWorth> weigh(const symgnn::Dataset& ds) {
  const symgnn::BaselineConfig cfg;
  const symgnn::models::ShrinkageChoice cv = symgnn::models::choose_shrinkage_cv(ds, cfg);
  return symgnn::fitting::weigh_graphs(ds, cfg, &cv);
}

}  // namespace

TEST(GraphWorth, AGraphWhoseNeighboursRateAlikeIsWorthSomething) {
  const symgnn::Dataset ds = grouped(true, 1);
  const auto worths = weigh(ds);
  ASSERT_EQ(worths.size(), 1u);  // the item side is the identity: nothing to weigh
  EXPECT_EQ(worths[0].side, "user");
  EXPECT_EQ(worths[0].edges, static_cast<int64_t>(ds.users.graph.size()));
  EXPECT_EQ(worths[0].covered, static_cast<int64_t>(ds.validation.size()));
  EXPECT_GT(worths[0].worth(), 0.02) << symgnn::fitting::describe(worths[0]);
  EXPECT_GT(worths[0].weight_bias, 0.0);
  const nlohmann::json j = symgnn::fitting::graph_json(worths);
  EXPECT_DOUBLE_EQ(j["user"]["worth"].get<double>(), worths[0].worth());
}

TEST(GraphWorth, AGraphOfRandomPairsIsWorthAboutNothing) {
  for (uint32_t seed = 1; seed <= 5; ++seed) {
    const symgnn::Dataset ds = grouped(false, seed);
    const auto worths = weigh(ds);
    ASSERT_EQ(worths.size(), 1u);
    EXPECT_LT(std::fabs(worths[0].worth()), 0.02) << symgnn::fitting::describe(worths[0]);
  }
}

TEST(GraphWorth, NothingIsMeasuredOnAHandfulOfValidationRatings) {
  symgnn::Dataset ds = grouped(true, 1);
  ds.validation.user.resize(10), ds.validation.item.resize(10), ds.validation.value.resize(10);
  // Nothing to measure: no shrinkage choice is made either (fit/prepared_data.cpp).
  EXPECT_TRUE(symgnn::fitting::weigh_graphs(ds, symgnn::BaselineConfig{}, nullptr).empty());
}
