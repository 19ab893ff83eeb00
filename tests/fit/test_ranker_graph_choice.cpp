// train.ranker_graph = auto (fit/ranker_graph_choice.h): the user graph's term joins the
// ranker's lists where the people linked share tastes, and stays out where they do not or
// where nobody linked rated.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <string>

#include "fit/ranker_graph_choice.h"
#include "fit/ranking_test_util.h"
#include "infer/ranker_graph_term.h"
#include "symgnn/config.h"
#include "symgnn/dataset.h"
#include "symgnn/model.h"
#include "symgnn/ranking.h"

namespace {

using Links = symgnn::testing::GroupLinks;

/// The ranker's tests' data: fit/ranking_test_util.h's groups, drawn from seed 5.
symgnn::Dataset group_tastes(Links links) {
  return symgnn::testing::group_tastes(5, links);
}

symgnn::RunConfig popularity_ranker() {
  symgnn::RunConfig r;
  r.model = "popularity";
  r.train.ranker = "none";
  r.train.threads = 1;
  return r;
}

}  // namespace

TEST(RankerGraphChoice, LinkedPeopleWhoShareTastesJoinTheRankersLists) {
  symgnn::RunConfig cfg;
  ASSERT_EQ(cfg.train.ranker_graph, "auto");
  const auto c = symgnn::fitting::choose_ranker_graph(
      cfg, group_tastes(Links::same_group), popularity_ranker(), nlohmann::json::object(), {}, {}, nullptr);
  ASSERT_TRUE(c.tried) << c.why;
  EXPECT_EQ(c.users, 300);
  EXPECT_EQ(c.chosen, "user") << symgnn::fitting::describe(c);
  EXPECT_EQ(cfg.train.ranker_graph, "user");
  EXPECT_DOUBLE_EQ(cfg.train.ranker_graph_weight, c.weight);
  EXPECT_DOUBLE_EQ(cfg.train.ranker_graph_shrinkage, c.shrinkage);
  // Popularity cannot tell the groups apart; the linked people's items can.
  EXPECT_GT(c.gain, 0.2) << symgnn::fitting::describe(c);
  EXPECT_GT(c.gain, 3 * c.gain_se);
  EXPECT_EQ(c.points.size(), std::size(symgnn::fitting::kRankerGraphWeights) *
                                 std::size(symgnn::fitting::kRankerGraphShrinkages));
  const nlohmann::json j = symgnn::fitting::ranker_graph_choice_json(c);
  EXPECT_EQ(j.at("chosen"), "user");
  EXPECT_NEAR(j.at("val_ndcg@10_ranker_alone").get<double>(), c.without, 1e-12);
}

TEST(RankerGraphChoice, TheTestFiguresAreReportedAtTheBestPointBySlice) {
  // Each user's 2 liked items left out of training and validation are their test items; the
  // final ranker's rows are flat (it knows nothing), so the linked people's term decides.
  symgnn::Dataset ds = group_tastes(Links::same_group);
  std::vector<std::vector<char>> seen(300, std::vector<char>(30, 0));
  for (const symgnn::RatingList* r : {&ds.train, &ds.validation})
    for (size_t e = 0; e < r->size(); ++e)
      seen[static_cast<size_t>(r->user[e])][static_cast<size_t>(r->item[e])] = 1;
  for (int64_t u = 0; u < 300; ++u)
    for (int64_t i = 10 * (u % 3); i < 10 * (u % 3) + 10; ++i)
      if (!seen[static_cast<size_t>(u)][static_cast<size_t>(i)]) ds.test.add(u, i, 5);
  symgnn::RunConfig cfg;
  int64_t asked = 0;
  const auto flat = [&](const std::vector<int64_t>& users) {
    asked += static_cast<int64_t>(users.size());
    return std::vector<float>(users.size() * 30, 0.0f);
  };
  const auto c = symgnn::fitting::choose_ranker_graph(cfg, ds, popularity_ranker(), nlohmann::json::object(),
                                                      {}, flat, nullptr);
  ASSERT_EQ(c.chosen, "user");
  EXPECT_EQ(c.test_users, 300);
  EXPECT_EQ(asked, 300);
  EXPECT_GT(c.test_with, c.test_without + 0.2) << symgnn::fitting::describe(c);
  int64_t in_slices = 0;
  for (const auto& slice : c.test_slices) in_slices += slice.users;
  EXPECT_EQ(in_slices, 300);
  // Those who follow 5 or more, reported apart: counted from the graph by brute force.
  std::vector<std::set<int64_t>> follows(300);
  for (size_t e = 0; e < ds.users.graph.size(); ++e)
    if (ds.users.graph.src[e] != ds.users.graph.dst[e]) {
      follows[static_cast<size_t>(ds.users.graph.src[e])].insert(ds.users.graph.dst[e]);
      follows[static_cast<size_t>(ds.users.graph.dst[e])].insert(ds.users.graph.src[e]);
    }
  const auto five =
      std::count_if(follows.begin(), follows.end(), [](const auto& f) { return f.size() >= 5; });
  EXPECT_EQ(c.test_follows5.users, five);
  EXPECT_EQ(c.test_follows5.linked, "5+ follows");
  const nlohmann::json j = symgnn::fitting::ranker_graph_choice_json(c);
  EXPECT_EQ(j.at("test").at("with_5_or_more_follows").at("users").get<int64_t>(), five);
  EXPECT_NEAR(j.at("test").at("test_ndcg@10_with_term").get<double>(), c.test_with, 1e-12);
  EXPECT_NE(symgnn::fitting::describe(c).find("on test (not chosen on)"), std::string::npos);
}

TEST(RankerGraphChoice, LinksAcrossTastesStayOut) {
  symgnn::RunConfig cfg;
  const auto c = symgnn::fitting::choose_ranker_graph(
      cfg, group_tastes(Links::other_group), popularity_ranker(), nlohmann::json::object(), {}, {}, nullptr);
  ASSERT_TRUE(c.tried);
  EXPECT_EQ(c.chosen, "none") << symgnn::fitting::describe(c);
  EXPECT_EQ(cfg.train.ranker_graph, "none");
  EXPECT_NE(symgnn::fitting::describe(c).find("take no user graph term"), std::string::npos);
}

TEST(RankerGraphChoice, NobodyLinkedNothingTriedAndAUsersChoiceStands) {
  symgnn::RunConfig cfg;
  const auto c = symgnn::fitting::choose_ranker_graph(cfg, group_tastes(Links::none), popularity_ranker(),
                                                      nlohmann::json::object(), {}, {}, nullptr);
  EXPECT_FALSE(c.tried);
  EXPECT_EQ(c.users, 0);
  EXPECT_EQ(cfg.train.ranker_graph, "none");
  EXPECT_NE(c.why.find("fewer than 20"), std::string::npos) << c.why;
  cfg.train.ranker_graph = "user";  // the user's own choice
  cfg.train.ranker_graph_weight = 0.7;
  const auto d = symgnn::fitting::choose_ranker_graph(
      cfg, group_tastes(Links::same_group), popularity_ranker(), nlohmann::json::object(), {}, {}, nullptr);
  EXPECT_TRUE(d.chosen.empty());
  EXPECT_EQ(cfg.train.ranker_graph, "user");
  EXPECT_DOUBLE_EQ(cfg.train.ranker_graph_weight, 0.7);
}

TEST(RankerGraphChoice, TheItemBasedRankersKeptStateIsItsFitOnTrainingAndChoosesAlike) {
  // elsa keeps its best measured epoch's state (ClosedFormFit::training_state): the same as
  // fitting it on the training ratings again at the setting it chose, so the choice that reads
  // it measures what the refit would have given. Tolerance 1e-6: the same arithmetic twice.
  symgnn::RunConfig rcfg;
  rcfg.model = "elsa";
  rcfg.train.ranker = "none";
  rcfg.train.threads = 1;
  rcfg.elsa.dims = "8";
  rcfg.elsa.deep_hidden = "0";
  rcfg.elsa.epochs = 30;
  const symgnn::Dataset ds = group_tastes(Links::same_group);
  const symgnn::models::ModelContext ctx = symgnn::models::make_context(ds);
  const at::Device cpu(at::kCPU);
  const symgnn::models::ClosedFormFit fitted = symgnn::models::make_model(rcfg, ctx)->fit(ds, cpu, {});
  ASSERT_FALSE(fitted.training_state.empty());
  symgnn::RunConfig pinned = rcfg;
  auto again = symgnn::models::make_model(pinned, ctx);
  ASSERT_FALSE(again->pin_chosen_setting(pinned, fitted.details, "test").empty());
  again = symgnn::models::make_model(pinned, ctx);
  symgnn::Dataset training_only = ds;
  training_only.validation = symgnn::RatingList{};
  again->fit(training_only, cpu, {});
  for (const auto& b : again->named_buffers()) {
    const at::Tensor& kept = fitted.training_state.at("buffer:" + b.key());
    ASSERT_EQ(kept.sizes(), b.value().sizes()) << b.key();
    if (kept.numel() == 0) continue;
    EXPECT_LT((kept.to(at::kDouble) - b.value().to(at::kDouble)).abs().max().item<double>(), 1e-6) << b.key();
  }
  symgnn::RunConfig with_state, refitting;
  const auto a = symgnn::fitting::choose_ranker_graph(with_state, ds, rcfg, fitted.details,
                                                      fitted.training_state, {}, nullptr);
  const auto b = symgnn::fitting::choose_ranker_graph(refitting, ds, rcfg, fitted.details, {}, {}, nullptr);
  ASSERT_TRUE(a.tried && b.tried);
  EXPECT_NEAR(a.without, b.without, 1e-9);
  ASSERT_EQ(a.points.size(), b.points.size());
  for (size_t p = 0; p < a.points.size(); ++p) EXPECT_NEAR(a.points[p].ndcg, b.points[p].ndcg, 1e-9) << p;
  EXPECT_EQ(a.chosen, b.chosen);
}

TEST(RankerGraphChoice, TheMeasurementsListsEqualTheMixedRowsTopTen) {
  // Rows with ties and negative scores, sparse terms, some items excluded: the shortcut's
  // lists against mixing the whole row (infer::mix_user_graph_term) and ranking it.
  std::mt19937 rng(11);
  const int64_t n2 = 300;
  const std::vector<double> weights = {0, 0.01, 0.2, 1, 5};
  for (int trial = 0; trial < 50; ++trial) {
    std::vector<float> row(n2), term(n2, 0.0f);
    std::uniform_int_distribution<int> level(-20, 40);
    for (auto& x : row) x = static_cast<float>(level(rng)) / 7.0f;  // many ties
    std::uniform_int_distribution<int64_t> any(0, n2 - 1);
    for (int k = 0; k < 25; ++k)
      term[static_cast<size_t>(any(rng))] = static_cast<float>(level(rng) + 21) / 30.0f;
    std::vector<char> excluded(n2, 0);
    for (int k = 0; k < 30; ++k) excluded[static_cast<size_t>(any(rng))] = 1;
    const auto lists = symgnn::fitting::tops_with_term(row.data(), term.data(), n2, weights, excluded);
    ASSERT_EQ(lists.size(), weights.size());
    for (size_t w = 0; w < weights.size(); ++w) {
      std::vector<float> mixed = row;
      symgnn::infer::mix_user_graph_term(mixed.data(), term.data(), n2, weights[w]);
      EXPECT_EQ(lists[w], symgnn::eval::top_k_items(mixed.data(), n2, 10, excluded))
          << "trial " << trial << " weight " << weights[w];
    }
  }
}

TEST(RankerGraphChoice, ADirectedGraphsTermReadsTheWayThatValidates) {
  // Even users follow 5 odd users of their own group; odd users follow 5 even users of the
  // next group. Only even users are judged (odd users' validation ratings dropped): the
  // people they follow share their tastes, those who follow them do not, so out beats in and
  // both (half of whose links cross groups).
  symgnn::Dataset ds = group_tastes(Links::none);
  std::mt19937 rng(3);
  std::uniform_int_distribution<int64_t> any(0, 299);
  std::set<std::pair<int64_t, int64_t>> links;
  for (int64_t u = 0; u < 300; ++u)
    for (int k = 0; k < 5;) {
      const int64_t v = any(rng);
      const bool ok = u % 2 == 0 ? (v % 2 == 1 && v % 3 == u % 3) : (v % 2 == 0 && v % 3 == (u + 1) % 3);
      if (ok && !links.count({v, u}) && links.insert({u, v}).second) ++k;
    }
  for (const auto& [a, b] : links) {
    ds.users.directed.add(a, b, 1.0f);
    ds.users.graph.add(a, b, 1.0f);
    ds.users.graph.add(b, a, 1.0f);
  }
  ds.users.directed.num_nodes = 300;
  symgnn::RatingList even;
  for (size_t e = 0; e < ds.validation.size(); ++e)
    if (ds.validation.user[e] % 2 == 0)
      even.add(ds.validation.user[e], ds.validation.item[e], ds.validation.value[e]);
  ds.validation = even;
  symgnn::RunConfig cfg;
  const auto c = symgnn::fitting::choose_ranker_graph(cfg, ds, popularity_ranker(), nlohmann::json::object(),
                                                      {}, {}, nullptr);
  ASSERT_TRUE(c.tried) << c.why;
  EXPECT_TRUE(c.directed);
  EXPECT_EQ(c.points.size(), 3 * std::size(symgnn::fitting::kRankerGraphWeights) *
                                 std::size(symgnn::fitting::kRankerGraphShrinkages));
  EXPECT_EQ(c.chosen, "user") << symgnn::fitting::describe(c);
  EXPECT_EQ(c.direction, symgnn::LinkDirection::out) << symgnn::fitting::describe(c);
  EXPECT_EQ(cfg.train.ranker_graph_direction, "out");
  // The best point of each direction: out's above both's above in's.
  double best[3] = {-1, -1, -1};
  for (const auto& p : c.points)
    best[static_cast<int>(p.direction)] = std::max(best[static_cast<int>(p.direction)], p.ndcg);
  EXPECT_GT(best[1], best[0]);
  EXPECT_GT(best[0], best[2]);
  EXPECT_NE(symgnn::fitting::describe(c).find("the links out of the directed user graph"), std::string::npos);
  EXPECT_EQ(symgnn::fitting::ranker_graph_choice_json(c).at("best_point").at("direction"), "out");
}
