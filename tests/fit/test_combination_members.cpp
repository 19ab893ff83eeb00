// train.auto's members (baseline.combination = members; fit/member_selection.h,
// fit/baseline_guard.h, models/baseline/neighbour_residuals.h): a member that carries signal
// is kept, noise is not and then the result is the baseline exactly; a user graph whose
// neighbours rated the same item alike becomes a member of the saved model, which predicts
// in memory, loaded, and after new users as the run reported.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "common/test_support.h"
#include "fit/member_selection.h"
#include "fit/rating_error_util.h"
#include "symgnn/data_rows.h"
#include "symgnn/explain.h"
#include "symgnn/fit.h"
#include "symgnn/trained_model.h"
#include "symgnn/update.h"

namespace sf = symgnn::fitting;
namespace st = symgnn::testing;

TEST(MemberSelection, KeepsASignalAndLeavesNoiseOut) {
  std::mt19937 rng(11);
  std::normal_distribution<double> n(0, 1);
  const size_t count = 2000;
  std::vector<double> signal(count), noise(count), t(count);
  for (size_t e = 0; e < count; ++e) {
    signal[e] = n(rng);
    noise[e] = n(rng);
    t[e] = 0.4 * signal[e] + n(rng);
  }
  const sf::MemberSelection s = sf::select_members({{"signal", signal}, {"noise", noise}}, t, 5);
  ASSERT_EQ(s.members.size(), 2u);
  EXPECT_TRUE(s.members[0].kept);
  EXPECT_NEAR(s.members[0].weight, 0.4, 0.06);
  EXPECT_GT(s.members[0].gain, s.members[0].gain_spread);
  EXPECT_FALSE(s.members[1].kept);
  EXPECT_EQ(s.members[1].weight, 0.0);
  EXPECT_LT(s.error_crossfit, s.error_baseline);
  // The folds' figures are those of a brute force: fold f holds positions f, f + 5, ...
  const std::vector<double> none = sf::fold_errors({}, t, 5);
  for (int64_t f = 0; f < 5; ++f) {
    double sse = 0, c = 0;
    for (size_t e = static_cast<size_t>(f); e < count; e += 5) sse += t[e] * t[e], ++c;
    EXPECT_NEAR(none[static_cast<size_t>(f)], std::sqrt(sse / c), 1e-12);
  }
}

TEST(MemberSelection, WeightsAreTheLeastSquaresOfTheKeptInTheOrderGiven) {
  // The stronger member, given second, joins first: each keeps its own weight.
  std::mt19937 rng(4);
  std::normal_distribution<double> n(0, 1);
  std::vector<double> weak(3000), strong(3000), t(3000);
  for (size_t e = 0; e < t.size(); ++e) {
    weak[e] = n(rng);
    strong[e] = n(rng);
    t[e] = 0.3 * weak[e] + 0.9 * strong[e] + 0.5 * n(rng);
  }
  const sf::MemberSelection s = sf::select_members({{"weak", weak}, {"strong", strong}}, t, 5);
  ASSERT_TRUE(s.members[0].kept && s.members[1].kept);
  // The two-column least squares (uncorrelated columns, so both weights are positive).
  double ww = 0, ss = 0, ws = 0, wt = 0, st_ = 0;
  for (size_t e = 0; e < t.size(); ++e) {
    ww += weak[e] * weak[e], ss += strong[e] * strong[e], ws += weak[e] * strong[e];
    wt += weak[e] * t[e], st_ += strong[e] * t[e];
  }
  const double det = ww * ss - ws * ws;
  EXPECT_NEAR(s.members[0].weight, (wt * ss - st_ * ws) / det, 1e-9);
  EXPECT_NEAR(s.members[1].weight, (st_ * ww - wt * ws) / det, 1e-9);
  // In sample, the kept set is never worse than the baseline (t = 0).
  double sse = 0, sse0 = 0;
  for (size_t e = 0; e < t.size(); ++e) {
    const double p = s.members[0].weight * weak[e] + s.members[1].weight * strong[e];
    sse += (t[e] - p) * (t[e] - p), sse0 += t[e] * t[e];
  }
  EXPECT_LT(sse, sse0);
}

TEST(MemberSelection, NoiseAloneKeepsNothing) {
  // Twenty draws of a small carve with three noise members: none may be kept in most of
  // them (a kept member must gain by more than its spread over the folds).
  int kept = 0;
  for (uint32_t seed = 0; seed < 20; ++seed) {
    std::mt19937 rng(seed);
    std::normal_distribution<double> n(0, 1);
    std::vector<sf::MemberColumn> columns(3);
    std::vector<double> t(300);
    for (auto& c : columns) c.values.resize(t.size());
    for (size_t e = 0; e < t.size(); ++e) {
      t[e] = n(rng);
      for (auto& c : columns) c.values[e] = n(rng);
    }
    const sf::MemberSelection s = sf::select_members(columns, t, 5);
    for (const auto& m : s.members) kept += m.kept;
  }
  EXPECT_LE(kept, 3) << "of 60 noise members";
}

namespace {

/// 4 groups of 40 users; each group has its own taste for each of 60 items (an interaction
/// no bias can learn), which a user's graph neighbours reveal when they rated the same
/// item. `homophilous`: each user follows 8 of their group; else 8 users at random.
symgnn::DataRows tastes(bool homophilous) {
  symgnn::DataRows r;
  r.name = "group tastes";
  std::mt19937 rng(5);
  std::normal_distribution<double> n(0, 1);
  std::uniform_real_distribution<double> unit(0, 1);
  const int users = 160, items = 60, groups = 4;
  std::vector<double> taste(static_cast<size_t>(groups * items)), item_bias(items);
  for (auto& x : taste) x = 1.0 * n(rng);
  for (auto& x : item_bias) x = 0.5 * n(rng);
  for (int u = 0; u < users; ++u)
    for (int i = 0; i < items; ++i) {
      if (unit(rng) > 0.3) continue;
      const double v = 3.0 + item_bias[static_cast<size_t>(i)] +
                       taste[static_cast<size_t>((u % groups) * items + i)] + 0.5 * n(rng);
      r.users.push_back("u" + std::to_string(u));
      r.items.push_back("i" + std::to_string(i));
      r.ratings.push_back(std::round(std::clamp(v, 1.0, 5.0)));
    }
  // Items linked to the 3 whose group tastes are nearest: a user's residuals on an item's
  // neighbours say what they will give it.
  r.has_item_graph = true;
  for (int i = 0; i < items; ++i) {
    std::vector<std::pair<double, int>> d;
    for (int j = 0; j < items; ++j) {
      if (j == i) continue;
      double s = 0;
      for (int g = 0; g < groups; ++g) {
        const double x =
            taste[static_cast<size_t>(g * items + i)] - taste[static_cast<size_t>(g * items + j)];
        s += x * x;
      }
      d.emplace_back(s, j);
    }
    std::sort(d.begin(), d.end());
    for (int k = 0; k < 3; ++k)
      r.item_edges.push_back({"i" + std::to_string(i), "i" + std::to_string(d[k].second), 1.0});
  }
  r.has_user_graph = true;
  for (int u = 0; u < users; ++u)
    for (int k = 0; k < 8; ++k) {
      int v = static_cast<int>(unit(rng) * users);
      if (homophilous) v = (v / groups) * groups + u % groups;
      if (v != u) r.user_edges.push_back({"u" + std::to_string(u), "u" + std::to_string(v), 1.0});
    }
  return r;
}

symgnn::RunConfig small_run() {
  symgnn::RunConfig cfg = symgnn::preset_config("paper");
  cfg.train.epochs = 3;  // a network worth little: the members decide
  cfg.lowrank.hidden = 8;
  cfg.train.auto_choose = "on";
  cfg.data.val_fraction = 0.2;
  return cfg;
}

/// Checks that the run's model, in memory and `loaded`, predicts the test ratings alike and
/// at the run's test RMSE, and that a user's row of ratings (recommend's path) holds the
/// members as the pairs do; returns the loaded model's test predictions.
std::vector<float> predicts_as_the_run(const symgnn::FitResult& r, const symgnn::TrainedModel& loaded) {
  const symgnn::RatingList& test = loaded.dataset().test;
  const std::vector<float> p = loaded.predict(test.user, test.item);
  const std::vector<float> q = r.model->predict(test.user, test.item);
  EXPECT_EQ(p.size(), q.size());
  for (size_t k = 0; k < p.size() && k < q.size(); ++k) EXPECT_NEAR(p[k], q[k], 1e-5) << k;
  EXPECT_NEAR(st::rmse_of(p, test), r.metrics.mean("test_rmse"), 1e-5);
  const int64_t user = test.user.front();
  std::vector<int64_t> users(static_cast<size_t>(loaded.items()), user), items;
  for (int64_t i = 0; i < loaded.items(); ++i) items.push_back(i);
  const std::vector<float> pairs = loaded.predict(users, items);
  const std::vector<float> row = loaded.rating_all_items({user});
  EXPECT_EQ(row.size(), pairs.size());
  const float lo = loaded.rating_min(), hi = loaded.rating_max();
  for (size_t i = 0; i < row.size() && i < pairs.size(); ++i)
    EXPECT_NEAR(std::clamp(row[i], lo, hi), pairs[i], 1e-5) << i;
  return p;
}

}  // namespace

TEST(CombinationMembers, AUserGraphWhoseNeighboursRateAlikeJoinsTheSavedModel) {
  const symgnn::RunConfig cfg = small_run();
  const symgnn::Dataset ds = symgnn::load_rows(tastes(true), cfg.data);
  symgnn::FitOptions fo;
  fo.data = &ds;
  fo.out_dir = st::scratch_dir("members_homophilous") + "/run";
  const symgnn::FitResult r = symgnn::fit(cfg, fo);
  const nlohmann::json& g = r.metrics.figures["auto"]["combination"];
  ASSERT_EQ(g["mode"], "members") << g.dump();
  EXPECT_GT(g["weights"]["user_neighbours"].get<double>(), 0.2) << g.dump();
  EXPECT_LT(g["val_rmse_combination"].get<double>(), g["val_rmse_baseline"].get<double>() - 0.05) << g.dump();
  // The verdict leads the summary and names the member.
  ASSERT_FALSE(r.summary.empty());
  EXPECT_EQ(r.summary[0].rfind("kept: the bias baseline + ", 0), 0u) << r.summary[0];
  EXPECT_NE(r.summary[0].find("user graph's neighbours"), std::string::npos) << r.summary[0];
  // The test figure beats the baseline's by the members' margin.
  const double baseline_test = r.metrics.figures["baseline"]["test_rmse"].get<double>();
  EXPECT_LT(r.metrics.mean("test_rmse"), baseline_test - 0.05);
  const symgnn::TrainedModel loaded = symgnn::TrainedModel::load(fo.out_dir);
  const symgnn::RatingList& test = loaded.dataset().test;
  const std::vector<float> p = predicts_as_the_run(r, loaded);
  const float lo = loaded.rating_min(), hi = loaded.rating_max();
  // The rating's explanation is exact: the baseline, the members' ratings by whose they are.
  symgnn::ExplainOptions eo;
  eo.target = "rating";
  eo.top = 1000;
  int neighbour_parts = 0;
  for (size_t k = 0; k < 20 && k < test.size(); ++k) {
    const symgnn::Explanation e = symgnn::explain(loaded, test.user[k], test.item[k], eo);
    ASSERT_TRUE(e.exact) << e.method;
    double sum = 0;
    for (const auto& part : e.parts) {
      sum += part.value;
      if (part.source == "neighbour") {
        ++neighbour_parts;
        EXPECT_NE(part.text.find("rated it"), std::string::npos) << part.text;
      }
    }
    EXPECT_NEAR(sum, e.score, 1e-4);
    EXPECT_NEAR(std::clamp(static_cast<float>(e.score), lo, hi), p[k], 1e-4);
    // In one sentence: the people followed and the followers who rated it, counted over
    // every part (the file's follows are one-way: each part says which way it links).
    int64_t followed = 0, followers = 0;
    for (const auto& part : e.parts)
      if (part.source == "neighbour" && part.linked)
        (part.text.find("who follows you") != std::string::npos ? followers : followed) += 1;
    if (followed > 0) {
      const std::string want = std::to_string(followed) + (followed == 1 ? " person you follow rated it"
                                                                         : " people you follow rated it");
      EXPECT_NE(e.sentence.find(want), std::string::npos) << e.sentence;
    }
    if (followers > 0) {
      const std::string want =
          std::to_string(followers) +
          (followers == 1 ? " person who follows you rated it" : " people who follow you rated it");
      EXPECT_NE(e.sentence.find(want), std::string::npos) << e.sentence;
    }
  }
  EXPECT_GT(neighbour_parts, 0);
}

TEST(CombinationMembers, SimilarItemsJoinWhereNoGraphIsGiven) {
  // The group tastes without either graph: what a user gave the items that their raters
  // rate alike (item k-NN) is the member, kept in the saved model and predicted alike loaded.
  symgnn::RunConfig cfg = small_run();
  symgnn::DataRows rows = tastes(true);
  rows.has_user_graph = rows.has_item_graph = false;
  rows.user_edges.clear();
  rows.item_edges.clear();
  const symgnn::Dataset ds = symgnn::load_rows(rows, cfg.data);
  symgnn::FitOptions fo;
  fo.data = &ds;
  fo.out_dir = st::scratch_dir("members_knn") + "/run";
  const symgnn::FitResult r = symgnn::fit(cfg, fo);
  const nlohmann::json& g = r.metrics.figures["auto"]["combination"];
  EXPECT_GT(g["weights"]["item_knn"].get<double>(), 0.2) << g.dump();
  EXPECT_EQ(g["knn_neighbours"].get<int64_t>(), cfg.baseline.knn_neighbours);
  EXPECT_LT(g["val_rmse_combination"].get<double>(), g["val_rmse_baseline"].get<double>() - 0.05) << g.dump();
  ASSERT_FALSE(r.summary.empty());
  EXPECT_NE(r.summary[0].find("item k-NN"), std::string::npos) << r.summary[0];
  const double baseline_test = r.metrics.figures["baseline"]["test_rmse"].get<double>();
  EXPECT_LT(r.metrics.mean("test_rmse"), baseline_test - 0.05);
  const symgnn::TrainedModel loaded = symgnn::TrainedModel::load(fo.out_dir);
  const symgnn::RatingList& test = loaded.dataset().test;
  predicts_as_the_run(r, loaded);
  // Explained exactly: the user's ratings of the similar items are the parts.
  symgnn::ExplainOptions eo;
  eo.target = "rating";
  eo.top = 1000;
  const symgnn::Explanation e = symgnn::explain(loaded, test.user[0], test.item[0], eo);
  ASSERT_TRUE(e.exact) << e.method;
  double sum = 0;
  int rated = 0;
  for (const auto& part : e.parts) {
    sum += part.value;
    if (part.source != "rated") continue;
    ++rated;
    EXPECT_TRUE(part.similar);
    EXPECT_NE(part.text.find("which the same people rate alike"), std::string::npos) << part.text;
  }
  EXPECT_NEAR(sum, e.score, 1e-4);
  EXPECT_GT(rated, 0);
  EXPECT_NE(e.sentence.find("you rated " + std::to_string(rated) + (rated == 1 ? " item" : " items") +
                            " the same people rate alike"),
            std::string::npos)
      << e.sentence;
  // baseline.knn_neighbours = 0: no such member is tried.
  cfg.baseline.knn_neighbours = 0;
  symgnn::FitOptions none;
  none.data = &ds;
  const symgnn::FitResult off = symgnn::fit(cfg, none);
  for (const auto& m : off.metrics.figures["auto"]["combination"]["members"])
    EXPECT_EQ(m["name"].get<std::string>().find("k-NN"), std::string::npos) << m.dump();
}

TEST(CombinationMembers, ARandomGraphIsNotKeptAndWeightsModeKeepsRound4sForm) {
  symgnn::RunConfig cfg = small_run();
  const symgnn::Dataset ds = symgnn::load_rows(tastes(false), cfg.data);
  symgnn::FitOptions fo;
  fo.data = &ds;
  const symgnn::FitResult r = symgnn::fit(cfg, fo);
  const nlohmann::json& g = r.metrics.figures["auto"]["combination"];
  EXPECT_EQ(g["weights"]["user_neighbours"].get<double>(), 0.0) << g.dump();
  EXPECT_EQ(g["weights"]["intercept"].get<double>(), 0.0);
  cfg.baseline.combination = "weights";
  const symgnn::FitResult w = symgnn::fit(cfg, fo);
  const nlohmann::json& gw = w.metrics.figures["auto"]["combination"];
  EXPECT_FALSE(gw.contains("members")) << gw.dump();
  EXPECT_LE(gw["val_rmse_combination"].get<double>(),
            std::min(gw["val_rmse_model"].get<double>(), gw["val_rmse_baseline"].get<double>()) + 1e-9);
}

TEST(CombinationMembers, AUserFoldedInGetsTheMembersOfTheGrownModel) {
  // The model serve folds users into (low-rank G with the encoder), small and short.
  symgnn::RunConfig cfg = symgnn::preset_config("recommended");
  cfg.train.epochs = 3;
  cfg.lowrank.hidden = 8;
  cfg.lowrank.prior = "encoder";
  cfg.lowrank.prior_width = 12;
  cfg.train.ranker = "none";
  cfg.data.val_fraction = 0.2;
  const symgnn::Dataset ds = symgnn::load_rows(tastes(true), cfg.data);
  symgnn::FitOptions fo;
  fo.data = &ds;
  fo.out_dir = st::scratch_dir("members_fold_in") + "/run";
  const symgnn::FitResult r = symgnn::fit(cfg, fo);
  const nlohmann::json& w = r.metrics.figures["auto"]["combination"]["weights"];
  // Both members, so that the fold-in covers each (the item graph links items of near tastes).
  ASSERT_GT(w["user_neighbours"].get<double>(), 0.0) << w.dump();
  ASSERT_GT(w["item_neighbours"].get<double>(), 0.0) << w.dump();
  const symgnn::TrainedModel model = symgnn::TrainedModel::load(fo.out_dir);
  const auto check = [&](const symgnn::NewNodes& nodes) {
    const symgnn::Applied applied = symgnn::apply(model, nodes.rows, symgnn::Keep::user);
    ASSERT_TRUE(applied.user->folded());
    const symgnn::UserUpdate* folded = &*applied.user;
    const symgnn::TrainedModel grown = model.with_new_nodes(nodes);
    const int64_t u = folded->user;
    std::vector<int64_t> every(static_cast<size_t>(model.items()));
    for (size_t i = 0; i < every.size(); ++i) every[i] = static_cast<int64_t>(i);
    const std::vector<float> got = folded->ratings(every), want = grown.rating_all_items({u});
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-5 * (1 + std::abs(want[i]))) << i;
    const std::vector<int64_t> few = {7, 2, 30};
    const std::vector<float> asked = folded->ratings(few);
    for (size_t k = 0; k < few.size(); ++k)
      EXPECT_NEAR(asked[k], want[static_cast<size_t>(few[k])], 1e-5) << k;
  };
  // A new user who follows three users of group 1 and rated four items; without follows; a
  // trained user's fresh ratings.
  symgnn::NewNodes fresh;
  for (const int i : {1, 5, 9, 13}) fresh.rows.ratings.push_back({"newcomer", "i" + std::to_string(i), 4.0});
  symgnn::NewNodes follows = fresh;
  follows.rows.edges = {{"newcomer", "u1", 1.0}, {"newcomer", "u5", 1.0}, {"newcomer", "u9", 1.0}};
  check(follows);
  check(fresh);
  const symgnn::Dataset& d = model.dataset();
  symgnn::NewNodes again;
  const auto& seen = model.seen_items()[3];
  for (int64_t i = 0, added = 0; i < model.items() && added < 2; ++i)
    if (!std::binary_search(seen.begin(), seen.end(), i))
      again.rows.ratings.push_back({d.users.id_of(3), d.items.id_of(i), 2.0}), ++added;
  check(again);
}

namespace {

/// "both 0.8123, out 0.8101, in 0.8300" (metrics.json's link_direction.user_tried) as
/// (direction, figure) pairs.
std::vector<std::pair<std::string, double>> tried_directions(const std::string& text) {
  std::vector<std::pair<std::string, double>> out;
  size_t at = 0;
  while (at < text.size()) {
    const size_t space = text.find(' ', at), comma = text.find(", ", at);
    const std::string figure =
        text.substr(space + 1, comma == std::string::npos ? std::string::npos : comma - space - 1);
    out.emplace_back(text.substr(at, space - at), figure == "none" ? std::nan("") : std::stod(figure));
    at = comma == std::string::npos ? text.size() : comma + 2;
  }
  return out;
}

}  // namespace

TEST(CombinationMembers, ADirectedGraphsMemberReadsTheDirectionThatValidatesAndKeepsIt) {
  // tastes(true) gives one-way follows (each user follows 8 of their group): the member tries
  // both, out and in on the folds and reads the best; forced to one direction, the saved model
  // reads those links alone, loaded and explained.
  symgnn::RunConfig cfg = small_run();
  const symgnn::Dataset ds = symgnn::load_rows(tastes(true), cfg.data);
  ASSERT_GT(ds.users.directed.size(), 0u);
  symgnn::FitOptions fo;
  fo.data = &ds;
  const symgnn::FitResult r = symgnn::fit(cfg, fo);
  const nlohmann::json& g = r.metrics.figures["auto"]["combination"];
  ASSERT_TRUE(g.contains("link_direction")) << g.dump();
  const auto tried = tried_directions(g["link_direction"]["user_tried"].get<std::string>());
  ASSERT_EQ(tried.size(), 3u) << g.dump();
  EXPECT_EQ(tried[0].first, "both");
  EXPECT_EQ(tried[1].first, "out");
  EXPECT_EQ(tried[2].first, "in");
  // The chosen one has the least figure (kept where the member is).
  ASSERT_GT(g["weights"]["user_neighbours"].get<double>(), 0.0) << g.dump();
  const std::string chosen = g["link_direction"]["user"];
  double least = 1e9;
  std::string best;
  for (const auto& [d, e] : tried)
    if (e < least) least = e, best = d;
  EXPECT_EQ(chosen, best) << g.dump();
  // The item graph's file gave its links one way too (3 nearest of each item).
  EXPECT_FALSE(g["link_direction"]["item_tried"].get<std::string>().empty());

  for (const std::string direction : {"out", "in"}) {
    SCOPED_TRACE(direction);
    cfg.baseline.link_direction = direction;
    fo.out_dir = st::scratch_dir("members_direction_" + direction) + "/run";
    const symgnn::FitResult one = symgnn::fit(cfg, fo);
    const nlohmann::json& h = one.metrics.figures["auto"]["combination"];
    ASSERT_GT(h["weights"]["user_neighbours"].get<double>(), 0.0) << h.dump();
    EXPECT_EQ(h["link_direction"]["user"], direction);
    EXPECT_NE(one.summary[0].find("user graph's " + direction + "-links"), std::string::npos)
        << one.summary[0];
    const symgnn::TrainedModel loaded = symgnn::TrainedModel::load(fo.out_dir);
    predicts_as_the_run(one, loaded);
    // Every neighbour in an exact explanation is linked that way: people the user follows
    // (out) or who follow them (in), named so.
    std::set<std::pair<int64_t, int64_t>> links;
    const symgnn::EdgeList& l = loaded.dataset().users.directed;
    for (size_t e = 0; e < l.size(); ++e) links.insert({l.src[e], l.dst[e]});
    symgnn::ExplainOptions eo;
    eo.target = "rating";
    eo.top = 1000;
    int neighbours = 0;
    const symgnn::RatingList& test = loaded.dataset().test;
    for (size_t k = 0; k < 30 && k < test.size(); ++k) {
      const symgnn::Explanation e = symgnn::explain(loaded, test.user[k], test.item[k], eo);
      ASSERT_TRUE(e.exact) << e.method;
      for (const auto& part : e.parts) {
        if (part.source != "neighbour") continue;
        ++neighbours;
        const int64_t u = test.user[k], v = part.user;
        EXPECT_TRUE(direction == "out" ? links.count({u, v}) : links.count({v, u})) << u << " " << v;
        if (!links.count({u, v}))
          EXPECT_NE(part.text.find("who follows you"), std::string::npos) << part.text;
        else
          EXPECT_NE(part.text.find("whom you follow"), std::string::npos) << part.text;
      }
    }
    EXPECT_GT(neighbours, 0);
  }
  // both: the symmetric graph the network reads, tried alone.
  cfg.baseline.link_direction = "both";
  fo.out_dir.clear();
  const symgnn::FitResult plain = symgnn::fit(cfg, fo);
  const nlohmann::json& b = plain.metrics.figures["auto"]["combination"]["link_direction"];
  EXPECT_EQ(b["user"], "both");
  EXPECT_EQ(tried_directions(b["user_tried"].get<std::string>()).size(), 1u) << b.dump();
  EXPECT_NE(plain.summary[0].find("user graph's neighbours"), std::string::npos) << plain.summary[0];
}
