// Interactions end to end (data.feedback, data/feedback.h; fit/implicit_feedback.h): a file
// of user, item pairs trains the kinds that rank and gives the lists the same pairs give as
// ratings; the default fits popularity in place of a rating kind and lets train.ranker =
// auto choose the lists, reports no rating error, and predict refuses; counts weight the
// interactions log(1 + count).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "common/test_support.h"
#include "fit/ranking_test_util.h"
#include "symgnn/config.h"
#include "symgnn/error.h"
#include "symgnn/explain.h"
#include "symgnn/export.h"
#include "symgnn/fit.h"
#include "symgnn/recommend.h"
#include "symgnn/trained_model.h"

namespace st = symgnn::testing;

namespace {

/// 80 users x 60 items in 3 tastes: a user rates about a third of their taste's items 4-5 and
/// a few others 1-2. Written as ratings (user,item,rating) and as the same pairs
/// (user,item), line for line.
struct Files {
  std::string ratings, pairs;
};

Files write_taste_files(const std::string& dir) {
  uint64_t state = 11;
  const auto draw = [&state] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<double>(state >> 11) / 9007199254740992.0;
  };
  std::string ratings = "user,item,rating\n", pairs = "user,item\n";
  for (int u = 0; u < 80; ++u)
    for (int i = 0; i < 60; ++i) {
      const bool taste = u % 3 == i % 3;
      if (draw() > (taste ? 0.35 : 0.05)) continue;
      const std::string ids = "u" + std::to_string(u) + ",i" + std::to_string(i);
      ratings += ids + "," + std::to_string(taste ? 4 + (u + i) % 2 : 1 + (u + i) % 2) + "\n";
      pairs += ids + "\n";
    }
  return {st::write_file(dir, "ratings.csv", ratings), st::write_file(dir, "pairs.csv", pairs)};
}

symgnn::RunConfig config_on(const std::string& path, const std::string& preset = "recommended") {
  symgnn::RunConfig cfg = symgnn::preset_config(preset);
  cfg.data.source = path;
  cfg.data.test_fraction = 0.15;
  cfg.data.val_fraction = 0.1;
  cfg.train.threads = 1;
  return cfg;
}

std::vector<std::vector<int64_t>> all_lists(const symgnn::TrainedModel& m) {
  std::vector<int64_t> users;
  for (int64_t u = 0; u < m.users(); ++u) users.push_back(u);
  std::vector<std::vector<int64_t>> out;
  for (const symgnn::UserRecommendations& r : symgnn::recommend(m, users, {})) out.push_back(r.items);
  return out;
}

/// EASE at one penalty on `cfg`'s source.
symgnn::FitResult fit_ease(symgnn::RunConfig cfg) {
  cfg.model = "ease";
  cfg.ease.lambdas = "50";
  cfg.train.ranker = "none";
  return symgnn::fit(cfg, {});
}

/// Plays of 8 users x 6 items (0: none), counts that differ within every user's row.
constexpr int kPlays[8][6] = {{3, 1, 0, 7, 0, 2}, {1, 0, 2, 0, 9, 1}, {0, 5, 1, 1, 0, 4}, {12, 0, 0, 2, 1, 1},
                              {0, 2, 4, 0, 3, 0}, {1, 1, 1, 0, 0, 6}, {2, 0, 8, 1, 1, 0}, {0, 3, 0, 5, 2, 1}};

/// kPlays as a `user,item,plays` file (users u0.., items i0..) in `dir`.
std::string write_plays(const std::string& dir) {
  std::string text = "user,item,plays\n";
  for (int u = 0; u < 8; ++u)
    for (int i = 0; i < 6; ++i)
      if (kPlays[u][i] > 0)
        text +=
            "u" + std::to_string(u) + ",i" + std::to_string(i) + "," + std::to_string(kPlays[u][i]) + "\n";
  return st::write_file(dir, "plays.csv", text);
}

/// W (users x items) of the interactions a final fit on write_plays' file saw (training and
/// validation), each checked to be log(1 + its count).
std::vector<std::vector<double>> weights_seen(const symgnn::Dataset& ds) {
  std::vector<std::vector<double>> w(static_cast<size_t>(ds.users.count),
                                     std::vector<double>(static_cast<size_t>(ds.items.count), 0.0));
  for (const symgnn::RatingList* list : {&ds.train, &ds.validation})
    for (size_t e = 0; e < list->size(); ++e) {
      const auto uu = static_cast<size_t>(list->user[e]), ii = static_cast<size_t>(list->item[e]);
      const std::string id = ds.users.ids[uu], item = ds.items.ids[ii];
      w[uu][ii] = list->value[e];
      EXPECT_NEAR(list->value[e], std::log1p(kPlays[std::stoi(id.substr(1))][std::stoi(item.substr(1))]),
                  1e-6);
    }
  return w;
}

/// The sum of explain's parts of `m`'s score of item j for user u (exact parts).
double explained(const symgnn::TrainedModel& m, int64_t u, int64_t j) {
  const symgnn::Explanation e = symgnn::explain(m, u, j, {});
  EXPECT_TRUE(e.exact);
  double sum = 0;
  for (const symgnn::ExplanationPart& p : e.parts) sum += p.value;
  return sum;
}

}  // namespace

// The same pairs read as interactions give EASE's lists of the ratings: EASE reads binary
// interactions either way, and the splits are the same.
TEST(ImplicitFeedback, PairsGiveTheEaseListsOfTheRatings) {
  const Files f = write_taste_files(st::scratch_dir("implicit_ease"));
  const symgnn::FitResult rated = fit_ease(config_on(f.ratings));
  const symgnn::FitResult clicked = fit_ease(config_on(f.pairs));
  EXPECT_EQ(clicked.model->dataset().feedback, "implicit");
  EXPECT_EQ(all_lists(*clicked.model), all_lists(*rated.model));
  // Every held-out pair is relevant: as many judged users as test users with a pair.
  EXPECT_TRUE(std::isfinite(clicked.metrics.mean("test_ndcg@10")));
}

// MovieLens-100K read as implicit (data.feedback = implicit: every rating >= 1 an interaction)
// gives the EASE lists of its ratings.
TEST(ImplicitFeedback, MovieLensAsInteractionsGivesTheEaseListsOfItsRatings) {
  SYMGNN_REQUIRE_DATA("ml-100k/u.data");
  symgnn::RunConfig cfg = config_on(st::data_dir() + "/ml-100k");
  cfg.data.split = "u1";
  cfg.train.threads = 2;
  const symgnn::FitResult rated = fit_ease(cfg);
  cfg.data.feedback = "implicit";
  const symgnn::FitResult clicked = fit_ease(cfg);
  EXPECT_EQ(clicked.model->dataset().train.size(), rated.model->dataset().train.size());
  EXPECT_EQ(all_lists(*clicked.model), all_lists(*rated.model));
}

// The default on pairs: popularity stands in for the rating model, train.ranker = auto
// chooses the lists on validation, the summary names no rating error, predict refuses.
TEST(ImplicitFeedback, TheDefaultRanksAndReportsNoRatingError) {
  const std::string dir = st::scratch_dir("implicit_default");
  const Files f = write_taste_files(dir);
  symgnn::FitOptions o;
  o.out_dir = dir + "/model";
  const symgnn::FitResult r = symgnn::fit(config_on(f.pairs), o);
  ASSERT_TRUE(r.model);
  EXPECT_EQ(r.model->name(), "popularity");
  EXPECT_FALSE(r.model->ranker().empty());
  bool said = false;
  for (const std::string& line : r.summary) {
    EXPECT_EQ(line.find("RMSE"), std::string::npos) << line;
    said = said || line.find("data.feedback = implicit") != std::string::npos;
  }
  EXPECT_TRUE(said);
  EXPECT_TRUE(std::isfinite(r.metrics.mean("test_ndcg@10")));
  EXPECT_FALSE(std::isfinite(r.metrics.mean("test_rmse")));  // metrics.json: null
  EXPECT_FALSE(std::isfinite(r.metrics.mean("val_rmse")));
  std::string out;
  ASSERT_EQ(st::run_symgnn("evaluate --model " + o.out_dir + " --json " + dir + "/evaluation.json", &out), 0)
      << out;
  EXPECT_NE(out.find("relevant = every test interaction"), std::string::npos) << out;
  EXPECT_EQ(out.find("RMSE"), std::string::npos) << out;
  const std::string json = st::read_file(dir + "/evaluation.json");
  EXPECT_NE(json.find("ndcg"), std::string::npos) << json;
  EXPECT_EQ(json.find("rmse"), std::string::npos) << json;  // nor among the unseen ids' figures
  const std::string pairs = st::write_file(dir, "ask.csv", "u1,i4\n");
  ASSERT_EQ(st::run_symgnn("predict --model " + o.out_dir + " --pairs " + pairs, &out), 2) << out;
  EXPECT_NE(out.find("predicts no rating"), std::string::npos) << out;
}

// Counts weight popularity's sums (and EASE's X) by log(1 + count): two heavy users of item b
// outweigh three light users of item a, which wins where each is one interaction.
TEST(ImplicitFeedback, CountsChangeTheWeightsAsDocumented) {
  const std::string dir = st::scratch_dir("implicit_counts");
  std::string text = "user,item,plays\n";
  for (int u = 0; u < 3; ++u) text += "u" + std::to_string(u) + ",a,1\n";
  for (int u = 3; u < 5; ++u) text += "u" + std::to_string(u) + ",b,100\n";
  for (int u = 0; u < 8; ++u) text += "u" + std::to_string(u) + ",c" + std::to_string(u) + ",1\n";
  const std::string path = st::write_file(dir, "plays.csv", text);
  const auto top_for_newcomer = [&](const std::string& feedback) {
    symgnn::RunConfig cfg = config_on(path, "paper");
    cfg.model = "popularity";
    cfg.train.ranker = "none";
    cfg.data.feedback = feedback;
    cfg.data.test_fraction = 0.0;
    cfg.data.val_fraction = 0.0;
    const symgnn::FitResult r = symgnn::fit(cfg, {});
    // User u7 rated neither a nor b: popularity's first item for them.
    const int64_t u7 = r.model->dataset().users.count - 1;
    const std::vector<symgnn::UserRecommendations> lists = symgnn::recommend(*r.model, {u7}, {});
    return r.model->dataset().items.ids[static_cast<size_t>(lists.front().items.front())];
  };
  EXPECT_EQ(top_for_newcomer("implicit"), "a");  // 3 interactions against 2
  EXPECT_EQ(top_for_newcomer("counts"), "b");    // 2 log(101) = 9.2 against 3 log(2) = 2.1
}

// ItemKNN under counts: the cosine of the weighted columns and the user's weighted row, as
// its header says, against the same sums by brute force; explain's parts add up to the score,
// and the model directory gives the weights back.
TEST(ImplicitFeedback, ItemKnnReadsCountsInTheCosineAndTheUsersRow) {
  const std::string dir = st::scratch_dir("implicit_itemknn_counts");
  const std::string path = write_plays(dir);
  symgnn::RunConfig cfg = config_on(path, "paper");
  cfg.model = "itemknn";
  cfg.train.ranker = "none";
  cfg.data.feedback = "counts";
  cfg.data.test_fraction = 0.1;
  cfg.data.val_fraction = 0.0;
  symgnn::FitOptions fo;
  fo.out_dir = dir + "/run";
  const symgnn::FitResult r = symgnn::fit(cfg, fo);
  const symgnn::Dataset& ds = r.model->dataset();
  // W of the interactions the final fit saw; S by brute force.
  const int64_t n1 = ds.users.count, n2 = ds.items.count;
  const std::vector<std::vector<double>> w = weights_seen(ds);
  std::vector<double> norm(static_cast<size_t>(n2), 0.0);
  for (const auto& row : w)
    for (size_t i = 0; i < row.size(); ++i) norm[i] += row[i] * row[i];
  const at::Tensor scores = st::all_scores(*r.model);
  for (size_t u = 0; u < static_cast<size_t>(n1); ++u)
    for (size_t j = 0; j < static_cast<size_t>(n2); ++j) {
      double expected = 0;
      for (size_t i = 0; i < static_cast<size_t>(n2); ++i) {
        if (i == j || w[u][i] == 0) continue;
        double dot = 0;
        for (size_t v = 0; v < static_cast<size_t>(n1); ++v) dot += w[v][i] * w[v][j];
        expected += w[u][i] * dot / std::sqrt(norm[i] * norm[j]);
      }
      EXPECT_NEAR(scores[static_cast<int64_t>(u)][static_cast<int64_t>(j)].item<double>(), expected, 1e-5)
          << "user " << u << ", item " << j;
      EXPECT_NEAR(explained(*r.model, static_cast<int64_t>(u), static_cast<int64_t>(j)), expected, 1e-5);
    }
  const symgnn::TrainedModel loaded = symgnn::TrainedModel::load(fo.out_dir);
  EXPECT_TRUE(torch::allclose(st::all_scores(loaded), scores, 1e-6, 1e-6));
}

// The item-based ranker under counts: a user's sum weighs each used item log(1 + count), so
// that every score is sum_i w_ui a_i . a_j over the unit rows a (its factors), checked by
// brute force for every user and item; explain's parts add up to it, and the model
// directory gives the weights back.
TEST(ImplicitFeedback, TheItemBasedRankerWeighsAUsersItemsByTheirCounts) {
  const std::string dir = st::scratch_dir("implicit_elsa_counts");
  const std::string path = write_plays(dir);
  symgnn::RunConfig cfg = config_on(path, "paper");
  cfg.model = "elsa";
  cfg.elsa.dims = "4";
  cfg.elsa.deep_hidden = "0";
  cfg.elsa.epochs = 3;
  cfg.train.ranker = "none";
  cfg.data.feedback = "counts";
  cfg.data.test_fraction = 0.1;
  cfg.data.val_fraction = 0.0;
  symgnn::FitOptions fo;
  fo.out_dir = dir + "/run";
  const symgnn::FitResult r = symgnn::fit(cfg, fo);
  const symgnn::Dataset& ds = r.model->dataset();
  const int64_t n1 = ds.users.count, n2 = ds.items.count;
  const std::vector<std::vector<double>> w = weights_seen(ds);
  const symgnn::ModelFactors f = symgnn::score_factors(*r.model);
  ASSERT_TRUE(f.factored);
  ASSERT_EQ(f.items, n2);
  const auto a = [&](size_t i, int64_t k) { return static_cast<double>(f.item_factors[i * f.dim + k]); };
  const at::Tensor scores = st::all_scores(*r.model);
  bool weights_matter = false;
  for (size_t u = 0; u < static_cast<size_t>(n1); ++u)
    for (size_t j = 0; j < static_cast<size_t>(n2); ++j) {
      // An item's own term, w_uj a_j . a_j = w_uj, is taken back out (its row has unit length).
      double expected = 0, binary = 0;
      for (size_t i = 0; i < static_cast<size_t>(n2); ++i) {
        if (i == j || w[u][i] == 0) continue;
        double dot = 0;
        for (int64_t k = 0; k < f.dim; ++k) dot += a(i, k) * a(j, k);
        expected += w[u][i] * dot;
        binary += dot;
      }
      const double got = scores[static_cast<int64_t>(u)][static_cast<int64_t>(j)].item<double>();
      EXPECT_NEAR(got, expected, 1e-5) << "user " << u << ", item " << j;
      weights_matter = weights_matter || std::abs(got - binary) > 1e-3;
      if (w[u][j] > 0) continue;  // explain answers "you rated it" there
      EXPECT_NEAR(explained(*r.model, static_cast<int64_t>(u), static_cast<int64_t>(j)), expected, 1e-5)
          << "user " << u << ", item " << j;
    }
  EXPECT_TRUE(weights_matter) << "the scores read as binary rows would be the same: the test shows nothing";
  const symgnn::TrainedModel loaded = symgnn::TrainedModel::load(fo.out_dir);
  EXPECT_TRUE(torch::allclose(st::all_scores(loaded), scores, 1e-6, 1e-6));
}

// The networks' ranking objective under counts weighs each positive log(1 + count): counts
// of e - 1 (weight 1 each) train the network the implicit pairs train, and counts that
// differ train another (models/objectives/objective.h; the weighted losses against their
// definitions: tests/models/test_objectives.cpp).
TEST(ImplicitFeedback, TheNetworksRankingLossWeighsPositivesByTheirCounts) {
  const std::string dir = st::scratch_dir("implicit_network_counts");
  std::string alike = "user,item,plays\n", differ = alike;
  for (int u = 0; u < 24; ++u)
    for (int i = 0; i < 15; ++i)
      if ((u * 5 + i * 3) % 4 == 0 || (u + i) % 7 == 0) {
        const std::string ids = "u" + std::to_string(u) + ",i" + std::to_string(i);
        alike += ids + ",1.718281828459045\n";  // e - 1: log(1 + count) = 1, the implicit value
        differ += ids + "," + std::to_string(1 + (u * 11 + i * 7) % 30) + "\n";
      }
  const auto scores_of = [&](const std::string& name, const std::string& text, const std::string& feedback) {
    symgnn::RunConfig cfg = config_on(st::write_file(dir, name + ".csv", text), "paper");
    cfg.model = "lowrank";
    cfg.train.objective = "ranking";
    cfg.train.epochs = 4;
    cfg.lowrank.hidden = 8;
    cfg.train.ranker = "none";
    cfg.data.feedback = feedback;
    symgnn::FitOptions fo;
    fo.out_dir = dir + "/" + name;
    return st::all_scores(*symgnn::fit(cfg, fo).model);
  };
  const at::Tensor implicit = scores_of("implicit", alike, "implicit");
  const at::Tensor same = scores_of("alike", alike, "counts");
  const at::Tensor weighed = scores_of("differ", differ, "counts");
  EXPECT_TRUE(torch::allclose(same, implicit, 1e-4, 1e-4)) << (same - implicit).abs().max().item<double>();
  EXPECT_GT((weighed - implicit).abs().max().item<double>(), 1e-3);
}

// Under counts, a user added after the fit (a file of user, item, count rows) is read as the
// fit read its users: EASE, ItemKNN and the item-based ranker score a newcomer with user 0's
// counts as user 0, from the model directory (where binary rows would score them otherwise).
TEST(ImplicitFeedback, ANewUsersCountsWeighAsATrainedUsersDo) {
  const std::string dir = st::scratch_dir("implicit_counts_newcomer");
  std::string text = "user,item,plays\n";
  for (int u = 0; u < 30; ++u)
    for (int i = 0; i < 12; ++i)
      if ((u * 7 + i * 5) % 4 != 0)
        text += "u" + std::to_string(u) + ",i" + std::to_string(i) + "," +
                std::to_string(1 + (u * 13 + i * 3) % 40) + "\n";
  const std::string path = st::write_file(dir, "plays.csv", text);
  for (const std::string kind : {"ease", "itemknn", "elsa"}) {
    symgnn::RunConfig cfg = config_on(path, "paper");
    cfg.model = kind;
    cfg.ease.lambdas = "10";
    cfg.elsa.dims = "4";
    cfg.elsa.deep_hidden = "0";
    cfg.elsa.epochs = 3;
    cfg.train.ranker = "none";
    cfg.data.feedback = "counts";
    symgnn::FitOptions fo;
    fo.out_dir = dir + "/" + kind;
    const symgnn::FitResult r = symgnn::fit(cfg, fo);
    const symgnn::Dataset& ds = r.model->dataset();
    // The newcomer's rows: user 0's interactions the final fit saw, as counts again.
    const int64_t twin = 0;
    std::string rows;
    bool weights_differ = false;
    float first = -1;
    for (const symgnn::RatingList* list : {&ds.train, &ds.validation})
      for (size_t e = 0; e < list->size(); ++e)
        if (list->user[e] == twin) {
          rows += "newcomer," + ds.items.id_of(list->item[e]) + "," +
                  std::to_string(std::lround(std::expm1(list->value[e]))) + "\n";
          weights_differ = weights_differ || (first >= 0 && list->value[e] != first);
          first = list->value[e];
        }
    ASSERT_TRUE(weights_differ) << "user 0's counts are all alike: the test would show nothing";
    const std::string ratings = st::write_file(dir, kind + "_new.csv", "user,item,plays\n" + rows);
    st::expect_scored_as_twin(symgnn::TrainedModel::load(fo.out_dir, "cpu", ratings), twin);
  }
}

// A user absent from training given by their clicks (a `user,item` file, a repeated row one
// click): the default's model takes them, its ranker lists them from their row as it lists
// a trained user with the same clicks, and the CSV names no predicted rating.
TEST(ImplicitFeedback, ANewUsersClicksGetTheListOfATrainedUserWithTheSameClicks) {
  const std::string dir = st::scratch_dir("implicit_new_user");
  const Files f = write_taste_files(dir);
  symgnn::FitOptions o;
  o.out_dir = dir + "/model";
  symgnn::RunConfig cfg = config_on(f.pairs);
  cfg.train.ranker = "ease";
  cfg.ease.lambdas = "50";
  // The ranker alone: the network trained for ranking has no row for a user it was not fitted
  // on, so a trained user's list may take its term where a newcomer's cannot
  // (RankerNetwork.ANewUserGetsTheListsWithoutTheNetworksTerm).
  cfg.train.ranker_network = "none";
  symgnn::fit(cfg, o);
  const symgnn::TrainedModel m = symgnn::TrainedModel::load(o.out_dir);
  // u7's clicks as the model holds them (training and validation), given again as a newcomer's.
  const symgnn::Dataset& ds = m.dataset();
  const int64_t u7 = m.user_index("u7");
  std::string clicks;
  for (const symgnn::RatingList* list : {&ds.train, &ds.validation})
    for (size_t e = 0; e < list->size(); ++e)
      if (list->user[e] == u7) clicks += "newcomer," + ds.items.id_of(list->item[e]) + "\n";
  ASSERT_FALSE(clicks.empty());
  const auto distinct = std::count(clicks.begin(), clicks.end(), '\n');
  clicks += clicks.substr(0, clicks.find('\n') + 1);  // a click given twice
  const std::string file = st::write_file(dir, "clicks.csv", clicks);
  std::string out, mine;
  ASSERT_EQ(
      st::run_symgnn("recommend --model " + o.out_dir + " --new-ratings " + file + " --user newcomer", &out),
      0)
      << out;
  ASSERT_EQ(st::run_symgnn("recommend --model " + o.out_dir + " --user u7", &mine), 0) << mine;
  EXPECT_EQ(out.rfind("user,item,rank\n", 0), 0u) << out;
  // The same items in the same order, the user's id aside.
  const auto items_of = [](const std::string& csv) {
    std::vector<std::string> items;
    std::istringstream in(csv);
    std::string line;
    std::getline(in, line);  // header
    while (std::getline(in, line) && line.find(',') != std::string::npos) {
      const size_t a = line.find(','), b = line.find(',', a + 1);
      items.push_back(line.substr(a + 1, b - a - 1));
    }
    return items;
  };
  EXPECT_EQ(items_of(out.substr(0, out.find("recommend:"))),
            items_of(mine.substr(0, mine.find("recommend:"))));
  EXPECT_EQ(items_of(out.substr(0, out.find("recommend:"))).size(), 10u) << out;
  // The repeated click is one interaction.
  EXPECT_NE(out.find("with " + std::to_string(distinct) + " new rating(s)"), std::string::npos) << out;
  // In memory too (serve's and Python's path): rows without a rating value are clicks.
  symgnn::NewNodes nodes;
  for (const symgnn::RatingList* list : {&ds.train, &ds.validation})
    for (size_t e = 0; e < list->size(); ++e)
      if (list->user[e] == u7) nodes.rows.ratings.push_back({"newcomer", ds.items.id_of(list->item[e]), 1.0});
  const symgnn::TrainedModel grown = m.with_new_nodes(nodes);
  const auto a = symgnn::recommend(grown, {grown.user_index("newcomer")}, {});
  const auto b = symgnn::recommend(grown, {grown.user_index("u7")}, {});
  EXPECT_EQ(a.front().items, b.front().items);
}
