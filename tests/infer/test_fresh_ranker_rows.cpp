// A model grown by new ratings whose ranker scores users from their rated items alone
// (RatingModel::score_rated_items: EASE, ItemKNN, the item-based ranker) asks the ranker as
// fitted for the rows of its new and refreshed users instead of growing the ranker's state
// (TrainedModel::with_new_nodes, serve's POST): those rows equal the ranker grown by the same
// ratings (nodes_added), and the other users' rows are the ranker's as fitted.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <sstream>

#include "infer_test_util.h"
#include "symgnn/fit.h"

using namespace symgnn;

namespace {

/// A rating model with `ranker` beside it, on a 36 x 22 two-taste CSV.
std::string fit_with_ranker(const std::string& ranker, std::vector<std::string> sets) {
  for (const std::string& s : {std::string("train.epochs=2"), std::string("lowrank.hidden=8")})
    sets.push_back(s);
  sets.push_back("train.ranker=" + ranker);
  return symgnn::testing::fit_csv("infer_fresh_rows_" + ranker,
                                  symgnn::testing::two_taste_csv(36, 22, 0.45, 17), sets);
}

}  // namespace

TEST(FreshRankerRows, EqualTheRankerGrownByTheSameRatings) {
  const std::vector<std::pair<std::string, std::vector<std::string>>> rankers = {
      {"ease", {}},
      {"itemknn", {}},
      {"elsa", {"elsa.dims=8", "elsa.epochs=3", "elsa.deep_hidden=8"}},
  };
  for (const auto& [kind, sets] : rankers) {
    SCOPED_TRACE(kind);
    const std::string dir = fit_with_ranker(kind, sets);
    const TrainedModel model = TrainedModel::load(dir);
    ASSERT_EQ(model.ranker(), kind);
    const Dataset& ds = model.dataset();
    // A trained user's two fresh ratings of items they have not rated, and a new user's three.
    const int64_t u = 5;
    const auto& seen = model.seen_items()[static_cast<size_t>(u)];
    NewNodes nodes;
    for (int64_t i = 0, added = 0; i < model.items() && added < 2; ++i)
      if (!std::binary_search(seen.begin(), seen.end(), i))
        nodes.rows.ratings.push_back({ds.users.id_of(u), ds.items.id_of(i), 5}), ++added;
    for (const int64_t i : {1, 4, 9}) nodes.rows.ratings.push_back({"someone-new", ds.items.id_of(i), 5});
    const TrainedModel grown = model.with_new_nodes(nodes);
    // The ranker alone, grown by the same ratings through nodes_added.
    const TrainedModel ranker_grown = TrainedModel::load(dir + "/ranker").with_new_nodes(nodes);
    ASSERT_EQ(grown.users(), ranker_grown.users());
    std::vector<int64_t> users;
    for (int64_t v = 0; v < grown.users(); ++v) users.push_back(v);
    const std::vector<float> fast = grown.score_all_items(users), full = ranker_grown.score_all_items(users);
    ASSERT_EQ(fast.size(), full.size());
    double worst = 0;
    for (size_t k = 0; k < fast.size(); ++k)
      worst = std::max(worst, std::abs(double(fast[k]) - full[k]) / (1 + std::abs(double(full[k]))));
    EXPECT_LT(worst, 1e-5);
    // Loading the folder with the same ratings answers the same.
    const TrainedModel loaded = TrainedModel::load(dir, "cpu", NewNodeFiles{}, nodes.rows);
    const std::vector<float> again = loaded.score_all_items(users);
    for (size_t k = 0; k < fast.size(); ++k) ASSERT_NEAR(again[k], fast[k], 1e-5 * (1 + std::abs(fast[k])));
  }
}
