// train.ranker_network (fit/ranker_network_choice.h, infer/ranker_network_term.h): the network
// trained for ranking joins the ranker's lists by one formula, checked here by brute force, in
// memory and as a model directory loads, in the label, the explanation and a known user's
// fold-in; auto keeps it only where validation gains, and leaves no folder where it does not.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "common/test_support.h"
#include "fit/ranker_network_choice.h"
#include "infer/model_parts.h"
#include "infer/ranker_graph_term.h"
#include "infer/ranker_network_term.h"
#include "symgnn/config.h"
#include "symgnn/explain.h"
#include "symgnn/fit.h"
#include "symgnn/trained_model.h"
#include "symgnn/update.h"

namespace fs = std::filesystem;
namespace st = symgnn::testing;

namespace {

/// The default preset's ranker beside the bias baseline (or `model`) on a small synthetic set (its user and
/// item graphs given), the network's term as `network` says, no other term on the lists.
symgnn::RunConfig small_config(const std::string& network, const std::string& model = "baseline") {
  symgnn::RunConfig cfg = symgnn::preset_config("recommended");
  cfg.model = model;
  cfg.data.synthetic_users = 120;
  cfg.data.synthetic_items = 60;
  cfg.data.synthetic_density = 0.2;
  cfg.data.val_fraction = 0.2;
  cfg.train.ranker = "ease";
  cfg.train.ranker_graph = "none";
  cfg.train.ranker_quality = "none";
  cfg.train.ranker_network = network;
  cfg.train.ranker_network_weight = 0.7;
  cfg.train.threads = 1;
  return cfg;
}

}  // namespace

TEST(RankerNetworkTerm, TheNetworksRowIsCentredAndItsTopIsOne) {
  const std::vector<float> row = {1.0f, 3.0f, 2.0f, -2.0f};  // mean 1, top 3
  std::vector<float> out(4);
  symgnn::infer::scaled_network_row(row.data(), 4, out.data());
  EXPECT_NEAR(out[0], 0.0, 1e-6);
  EXPECT_NEAR(out[1], 1.0, 1e-6);
  EXPECT_NEAR(out[2], 0.5, 1e-6);
  EXPECT_NEAR(out[3], -1.5, 1e-6);
  const std::vector<float> flat = {2.0f, 2.0f};
  std::vector<float> zero(2, 9.0f);
  symgnn::infer::scaled_network_row(flat.data(), 2, zero.data());
  EXPECT_EQ(zero, (std::vector<float>{0.0f, 0.0f}));
}

TEST(RankerNetworkTerm, TheListsRowIsScaledAndItemsTheNetworkDoesNotKnowGetNoTerm) {
  // The ranker's row (largest |entry| 4), five items; the network knows the first four.
  std::vector<float> row = {4.0f, -1.0f, 2.0f, 0.0f, 1.0f};
  const std::vector<float> net = {0.0f, 2.0f, 1.0f, 1.0f};  // mean 1, top 2: scaled -1, 1, 0, 0
  symgnn::infer::add_network_term(row.data(), 5, net.data(), 4, 0.5, /*scaled=*/false);
  const std::vector<double> expected = {1.0 - 0.5, -0.25 + 0.5, 0.5, 0.0, 0.25};
  for (size_t i = 0; i < 5; ++i) EXPECT_NEAR(row[i], expected[i], 1e-6) << i;
  // Already scaled (another term mixed in): the row is taken as it is.
  std::vector<float> scaled = {0.5f, 0.5f, 0.5f, 0.5f, 0.5f};
  symgnn::infer::add_network_term(scaled.data(), 5, net.data(), 4, 1.0, /*scaled=*/true);
  EXPECT_NEAR(scaled[0], -0.5, 1e-6);
  EXPECT_NEAR(scaled[1], 1.5, 1e-6);
  EXPECT_NEAR(scaled[4], 0.5, 1e-6);
}

TEST(RankerNetworkChoice, TheNetworksConfigIsTheRankingOneOnTheRunsDataAndTheGivenGraphs) {
  symgnn::RunConfig cfg = small_config("auto");
  cfg.train.seed = 7;
  symgnn::GraphConfig given;
  given.user_graph = "file";
  symgnn::Dataset ds;
  ds.rating_min = 1, ds.rating_max = 5;
  const symgnn::RunConfig n = symgnn::fitting::ranking_network_config(cfg, given, ds);
  EXPECT_EQ(n.model, "lowrank");
  EXPECT_EQ(n.train.objective, "ranking");
  EXPECT_EQ(n.train.protocol, "early_stop");
  EXPECT_EQ(n.train.ranker, "none");
  EXPECT_EQ(n.train.ranker_network, "none");
  EXPECT_EQ(n.train.seed, 7);
  EXPECT_EQ(n.graph.user_graph, "file");
  EXPECT_EQ(n.graph.knn_source, "interactions");
  EXPECT_EQ(n.data.synthetic_users, 120);
  EXPECT_DOUBLE_EQ(n.train.positive_min, 4.0);
  ds.feedback = "implicit";
  EXPECT_DOUBLE_EQ(symgnn::fitting::ranking_network_config(cfg, given, ds).train.positive_min, 0.0);
}

TEST(RankerNetwork, OnTheListsAreTheRankersScaledRowPlusTheNetworksInMemoryAndLoaded) {
  const std::string dir = st::scratch_dir("ranker_network_on");
  symgnn::FitOptions fo;
  fo.out_dir = dir;
  const symgnn::FitResult r = symgnn::fit(small_config("on"), fo);
  ASSERT_TRUE(r.model);
  ASSERT_TRUE(fs::exists(dir + "/ranker_network/model.pt"));
  const auto& record = r.metrics.figures.at("ranker").at("network");
  EXPECT_EQ(record.at("chosen"), "on");
  EXPECT_DOUBLE_EQ(record.at("weight").get<double>(), 0.7);

  const symgnn::TrainedModel loaded = symgnn::TrainedModel::load(dir);
  ASSERT_TRUE(loaded.parts().ranker && loaded.parts().ranker->network());
  const symgnn::TrainedModel& network = *loaded.parts().ranker->network();
  const int64_t n2 = loaded.items();
  std::vector<int64_t> users;
  for (int64_t u = 0; u < loaded.users(); u += 7) users.push_back(u);
  const std::vector<float> ranker = loaded.ranker_scores(users);
  const std::vector<float> net = network.score_all_items(users);
  const std::vector<float> got = loaded.score_all_items(users);
  const std::vector<float> in_memory = r.model->score_all_items(users);
  const double tol = 1e-5;  // float sums in another order on another CPU
  for (size_t k = 0; k < users.size(); ++k) {
    if (loaded.cold_listed(users[k])) continue;
    const float* s = ranker.data() + k * static_cast<size_t>(n2);
    const float* n = net.data() + k * static_cast<size_t>(n2);
    const double scale = symgnn::infer::ranker_row_scale(s, n2);
    double mean = 0, top = n[0];
    for (int64_t i = 0; i < n2; ++i) mean += n[i], top = std::max<double>(top, n[i]);
    mean /= static_cast<double>(n2);
    for (int64_t i = 0; i < n2; ++i) {
      const double expected = s[i] / scale + 0.7 * (n[i] - mean) / (top - mean);
      const size_t at = k * static_cast<size_t>(n2) + static_cast<size_t>(i);
      ASSERT_NEAR(got[at], expected, tol) << "user " << users[k] << " item " << i;
      ASSERT_NEAR(in_memory[at], got[at], tol);
    }
    EXPECT_NE(loaded.ranked_by(users[k]).find("and the network trained for ranking"), std::string::npos);
  }
  // The explanation's parts sum to the list's score, one of them the network's.
  const int64_t user = users[1], item = 3;
  const symgnn::Explanation e = symgnn::explain(loaded, user, item);
  EXPECT_TRUE(e.exact);
  EXPECT_NEAR(e.score, got[static_cast<size_t>(n2) + static_cast<size_t>(item)], 1e-4);
  EXPECT_NE(e.method.find("network trained for ranking"), std::string::npos);
}

TEST(RankerNetwork, AutoKeepsItOnlyWhereValidationGainsAndLeavesNoFolderOtherwise) {
  const std::string dir = st::scratch_dir("ranker_network_auto");
  symgnn::FitOptions fo;
  fo.out_dir = dir;
  const symgnn::FitResult r = symgnn::fit(small_config("auto"), fo);
  const auto& record = r.metrics.figures.at("ranker").at("network");
  ASSERT_TRUE(record.contains("gain"));
  const double gain = record.at("gain").get<double>(), se = record.at("gain_standard_error").get<double>();
  const bool kept = gain > 0 && gain > se;
  EXPECT_EQ(record.at("chosen"), kept ? "on" : "none");
  EXPECT_EQ(fs::exists(dir + "/ranker_network/model.pt"), kept);
  EXPECT_EQ(r.model->config().train.ranker_network, kept ? "on" : "none");
  // The users who follow 5 or more, reported apart: a subset of the judged.
  const auto& five = record.at("with_5_or_more_follows");
  EXPECT_LE(five.at("users").get<int64_t>(), record.at("validation_users").get<int64_t>());
  // The folder loads either way, and lists as it was fitted.
  const symgnn::TrainedModel loaded = symgnn::TrainedModel::load(dir);
  EXPECT_EQ(loaded.parts().ranker->network() != nullptr, kept);
  // A budget the network cannot fit in leaves it out, untried, with the reason.
  symgnn::RunConfig tight = small_config("auto");
  tight.train.ranker_budget = 1e-9;
  const symgnn::FitResult t = symgnn::fit(tight, symgnn::FitOptions{});
  const auto& why = t.metrics.figures.at("ranker").at("network");
  EXPECT_EQ(why.at("chosen"), "none");
  EXPECT_NE(why.at("why").get<std::string>().find("train.ranker_budget"), std::string::npos);
}

TEST(RankerNetwork, AKnownUsersFoldInTakesItsTermAndANewUserGetsTheListsWithoutIt) {
  const std::string dir = st::scratch_dir("ranker_network_fold_in");
  symgnn::FitOptions fo;
  fo.out_dir = dir;
  // Beside a network of ratings trained briefly, a kind that places new users (the bias
  // baseline does not).
  symgnn::RunConfig cfg = small_config("on", "lowrank");
  cfg.train.epochs = 3;
  cfg.train.auto_choose = "off";
  symgnn::fit(cfg, fo);
  const symgnn::TrainedModel m = symgnn::TrainedModel::load(dir);
  const symgnn::TrainedModel& network = *m.parts().ranker->network();
  const symgnn::Dataset& ds = m.dataset();
  const int64_t n2 = m.items();
  // A trained user with ratings, and an item they did not rate.
  int64_t user = -1, fresh = -1;
  for (int64_t u = 0; u < m.users() && user < 0; ++u) {
    const std::vector<int64_t>& seen = m.seen_items()[static_cast<size_t>(u)];
    if (seen.size() < 3) continue;
    for (int64_t i = 0; i < n2; ++i)
      if (!std::binary_search(seen.begin(), seen.end(), i)) {
        user = u, fresh = i;
        break;
      }
  }
  ASSERT_GE(user, 0);
  // Their fresh rating: EASE's row is linear in the rated items, so the list is the known row
  // plus the fresh item's, scaled, plus the network's term of the user as fitted.
  symgnn::NewNodes known;
  known.rows.ratings.push_back({ds.users.id_of(user), ds.items.id_of(fresh), 5.0});
  const symgnn::Applied a = symgnn::apply(m, known, symgnn::Keep::user);
  ASSERT_TRUE(a.user);
  EXPECT_NE(a.user->ranked_by.find("the network trained for ranking"), std::string::npos)
      << a.user->ranked_by;
  std::vector<float> row = m.ranker_scores({user});
  const std::vector<float> added = m.parts().ranker->rated_rows({{fresh}});
  for (int64_t i = 0; i < n2; ++i) row[static_cast<size_t>(i)] += added[static_cast<size_t>(i)];
  const std::vector<float> net = network.score_all_items({user});
  symgnn::infer::add_network_term(row.data(), n2, net.data(), network.items(), 0.7, false);
  for (int64_t i = 0; i < n2; ++i)
    ASSERT_NEAR(a.user->scores[static_cast<size_t>(i)], row[static_cast<size_t>(i)], 1e-5) << i;
  // A newcomer with the same ratings: the ranker's row from them, no network term.
  symgnn::NewNodes newcomer;
  for (const int64_t i : m.seen_items()[static_cast<size_t>(user)])
    newcomer.rows.ratings.push_back({"newcomer", ds.items.id_of(i), 4.0});
  newcomer.rows.ratings.push_back({"newcomer", ds.items.id_of(fresh), 5.0});
  const symgnn::Applied b = symgnn::apply(m, newcomer, symgnn::Keep::user);
  ASSERT_TRUE(b.user);
  EXPECT_EQ(b.user->ranked_by.find("network"), std::string::npos) << b.user->ranked_by;
  std::vector<int64_t> items = m.seen_items()[static_cast<size_t>(user)];
  items.push_back(fresh);
  const std::vector<float> alone = m.parts().ranker->rated_rows({items});
  for (int64_t i = 0; i < n2; ++i)
    ASSERT_NEAR(b.user->scores[static_cast<size_t>(i)], alone[static_cast<size_t>(i)], 1e-5) << i;
}
