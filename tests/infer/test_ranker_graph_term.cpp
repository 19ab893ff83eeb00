// The user graph's term on a ranker's lists (infer/ranker_graph_term.h): the lists, the
// label, the explanation and a served user's fold-in all read the same formula, worked here
// by brute force, and a graph edit changes the lists at once.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <string>
#include <vector>

#include "common/test_support.h"
#include "infer/cold_lists.h"
#include "infer/ranker_graph_term.h"
#include "infer_test_util.h"
#include "symgnn/config.h"
#include "symgnn/explain.h"
#include "symgnn/fit.h"
#include "symgnn/graph_edit.h"
#include "symgnn/trained_model.h"

using namespace symgnn;

namespace {

/// `model` (the baseline, or a short lowrank run, which folds users in) with `ranker` beside it beside it and
/// the user graph's term at weight 1.5, shrinkage 1, on 60 users in 3 groups of tastes over 30 items; each
/// user follows 3 of their group (and is followed by 3).
TrainedModel fitted_with_term(const std::string& tag, const std::string& model = "baseline",
                              const std::string& ranker = "popularity",
                              const std::string& direction = "both") {
  const std::string dir = symgnn::testing::scratch_dir(tag);
  std::ofstream csv(dir + "/ratings.csv");
  csv << "user,item,rating\n";
  for (int u = 0; u < 60; ++u)
    for (int k = 0; k < 8; ++k) {
      const int item = 10 * (u % 3) + (u / 3 + 3 * k) % 10;
      csv << "u" << u << ",i" << item << "," << 3 + (u + k) % 3 << "\n";
    }
  csv.close();
  std::ofstream graph(dir + "/follows.csv");
  for (int u = 0; u < 60; ++u)
    for (int k = 1; k <= 3; ++k) graph << "u" << u << ",u" << (u + 3 * k) % 60 << "\n";
  graph.close();
  RunConfig cfg = preset_config("recommended");
  cfg.train.auto_choose = "off";
  cfg.train.epochs = 2;
  cfg.data.source = dir + "/ratings.csv";
  cfg.data.user_graph_file = dir + "/follows.csv";
  cfg.model = model;
  cfg.graph.user_graph = "file";
  cfg.graph.item_graph = "identity";
  cfg.train.threads = 1;
  cfg.train.ranker = ranker;
  cfg.train.ranker_graph = "user";
  cfg.train.ranker_graph_weight = 1.5;
  cfg.train.ranker_graph_shrinkage = 1;
  cfg.train.ranker_graph_direction = direction;
  FitOptions fo;
  fo.out_dir = dir + "/run";
  fit(cfg, fo);
  return TrainedModel::load(fo.out_dir);
}

/// The term's formula by hand for user u of `m`: the ranker's row scaled to a largest entry
/// of 1, plus 1.5 x the linked raters' shares over (their count + 1); the linked are those
/// the follows file links u to `direction`'s way (out: whom u follows; in: who follows u).
std::vector<double> by_hand(const TrainedModel& m, int64_t u, const std::string& direction = "both") {
  const std::vector<float> raw = m.ranker_scores({u});
  double most = 0;
  for (const float s : raw) most = std::max(most, std::abs(double(s)));
  const Dataset& ds = m.dataset();
  std::vector<int64_t> linked;
  const auto rated = [&](int64_t v) {
    return std::count(ds.train.user.begin(), ds.train.user.end(), v) +
               std::count(ds.validation.user.begin(), ds.validation.user.end(), v) >
           0;
  };
  for (size_t e = 0; e < ds.users.graph.size(); ++e) {
    const int64_t s = ds.users.graph.src[e], d = ds.users.graph.dst[e];
    if (direction != "both") break;
    if (s == u && d != u && rated(d)) linked.push_back(d);
    if (d == u && s != u && rated(s)) linked.push_back(s);
  }
  const EdgeList& given = ds.users.directed;
  for (size_t e = 0; e < given.size() && direction != "both"; ++e) {
    const int64_t a = given.src[e], b = given.dst[e];
    if (direction == "out" && a == u && rated(b)) linked.push_back(b);
    if (direction == "in" && b == u && rated(a)) linked.push_back(a);
  }
  std::sort(linked.begin(), linked.end());
  linked.erase(std::unique(linked.begin(), linked.end()), linked.end());
  std::vector<double> out(raw.size());
  for (size_t i = 0; i < raw.size(); ++i) out[i] = raw[i] / most;
  for (const RatingList* list : {&ds.train, &ds.validation})
    for (size_t e = 0; e < list->size(); ++e)
      if (std::binary_search(linked.begin(), linked.end(), list->user[e]))
        out[static_cast<size_t>(list->item[e])] +=
            1.5 * (list->value[e] - ds.rating_min) / (ds.rating_max - ds.rating_min) / (linked.size() + 1.0);
  return out;
}

void expect_rows_by_hand(const TrainedModel& m, int64_t u, const std::string& direction = "both") {
  const std::vector<float> row = m.score_all_items({u});
  const std::vector<double> want = by_hand(m, u, direction);
  ASSERT_EQ(row.size(), want.size());
  for (size_t i = 0; i < row.size(); ++i) EXPECT_NEAR(row[i], want[i], 1e-5) << "user " << u << " item " << i;
}

}  // namespace

TEST(RankerGraphTerm, ListsLabelAndExplanationReadTheFormula) {
  const TrainedModel m = fitted_with_term("ranker_graph_term_lists");
  ASSERT_TRUE(m.ranker_graph_term());
  ASSERT_EQ(m.ranker(), "popularity");
  for (const int64_t u : {0, 7, 31}) expect_rows_by_hand(m, u);
  const int64_t u = m.user_index("u0");
  EXPECT_NE(m.ranked_by(u).find("popularity and the 6 people linked in the user graph"), std::string::npos)
      << m.ranked_by(u);
  // An item a linked person rated: the explanation names them, and its parts sum to the score.
  const int64_t friend_ = m.user_index("u3");
  int64_t item = -1;
  for (size_t e = 0; e < m.dataset().train.size(); ++e)
    if (m.dataset().train.user[e] == friend_) item = m.dataset().train.item[e];
  ASSERT_GE(item, 0);
  ExplainOptions eo;
  eo.top = 1000;
  const Explanation x = explain(m, u, item, eo);
  EXPECT_TRUE(x.exact);
  EXPECT_NEAR(x.score, m.score_all_items({u})[static_cast<size_t>(item)], 1e-5);
  double sum = 0;
  bool named = false;
  for (const ExplanationPart& p : x.parts) {
    sum += p.value;
    named = named || (p.source == "neighbour" && p.user == friend_);
  }
  EXPECT_NEAR(sum, x.score, 1e-5);
  EXPECT_TRUE(named) << x.method;
  EXPECT_NE(x.sentence.find("you follow rated it"), std::string::npos) << x.sentence;
}

TEST(RankerGraphTerm, AGraphEditChangesTheListsAtOnce) {
  const TrainedModel m = fitted_with_term("ranker_graph_term_edit");
  const int64_t u = m.user_index("u0");
  // u0 (group 0) follows u1 (group 1): group 1's items gain.
  const TrainedModel edited = apply_graph_edits(m, {graph_edit("user", "add", "u0", "u1")});
  expect_rows_by_hand(edited, u);
  const std::vector<float> before = m.score_all_items({u}), after = edited.score_all_items({u});
  const int64_t group_one = m.item_index("i10");
  EXPECT_GT(after[static_cast<size_t>(group_one)] - before[static_cast<size_t>(group_one)], 0.05);
  EXPECT_NE(edited.ranked_by(u).find("the 7 people"), std::string::npos) << edited.ranked_by(u);
}

TEST(RankerGraphTerm, AServedUsersFoldInEqualsTheGrownModel) {
  const TrainedModel m = fitted_with_term("ranker_graph_term_fold", "lowrank", "itemknn");
  for (const bool known : {false, true}) {
    NewNodes nodes;
    const std::string id = known ? "u5" : "someone-new";
    for (const char* item : {"i0", "i11"})
      if (!known || std::string(item) == "i11") nodes.rows.ratings.push_back({id, item, 5.0});
    if (!known) nodes.rows.edges = {{id, "u3", 1.0}, {id, "u6", 1.0}};
    const std::optional<UserUpdate> folded = symgnn::testing::folded_user(m, nodes);
    ASSERT_TRUE(folded.has_value()) << id;
    const TrainedModel grown = m.with_new_nodes(nodes);
    const int64_t u = grown.user_index(id);
    const std::vector<float> want = grown.score_all_items({u});
    ASSERT_EQ(folded->scores.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i)
      EXPECT_NEAR(folded->scores[i], want[i], 1e-5) << id << " item " << i;
    EXPECT_EQ(folded->ranked_by, grown.ranked_by(u)) << id;
  }
}

TEST(RankerGraphTerm, ADirectedFilesTermReadsItsLinksOneWayEverywhere) {
  // The follows file is one-way (u follows u+3, u+6, u+9): out reads the 3 people a user
  // follows, in the 3 who follow them; lists, label, explanation and a served user's fold-in
  // agree in each.
  for (const std::string direction : {"out", "in"}) {
    SCOPED_TRACE(direction);
    const TrainedModel m =
        fitted_with_term("ranker_graph_term_" + direction, "lowrank", "itemknn", direction);
    ASSERT_GT(m.dataset().users.directed.size(), 0u);
    for (const int64_t u : {0, 7, 31}) expect_rows_by_hand(m, u, direction);
    const int64_t u = m.user_index("u0");
    EXPECT_NE(m.ranked_by(u).find("the 3 people linked in the user graph"), std::string::npos)
        << m.ranked_by(u);
    // An item only the linked that way rated is explained by them alone.
    const int64_t linked = m.user_index(direction == "out" ? "u3" : "u57");
    ExplainOptions eo;
    eo.top = 1000;
    eo.target = "list";
    for (size_t e = 0; e < m.dataset().train.size(); ++e) {
      if (m.dataset().train.user[e] != linked) continue;
      const Explanation x = explain(m, u, m.dataset().train.item[e], eo);
      for (const ExplanationPart& p : x.parts) {
        if (p.source != "neighbour") continue;
        EXPECT_TRUE(direction == "out" ? p.text.find("whom you follow") != std::string::npos
                                       : p.text.find("who follows you") != std::string::npos)
            << p.text;
      }
    }
    // A new user given their follows: out reads them; in, nobody follows them yet.
    NewNodes nodes;
    nodes.rows.ratings.push_back({"someone-new", "i0", 5.0});
    nodes.rows.edges = {{"someone-new", "u3", 1.0}, {"someone-new", "u6", 1.0}};
    const std::optional<UserUpdate> folded = symgnn::testing::folded_user(m, nodes);
    ASSERT_TRUE(folded.has_value());
    const TrainedModel grown = m.with_new_nodes(nodes);
    const int64_t v = grown.user_index("someone-new");
    const std::vector<float> want = grown.score_all_items({v});
    for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(folded->scores[i], want[i], 1e-5) << i;
    EXPECT_EQ(folded->ranked_by, grown.ranked_by(v));
    EXPECT_EQ(folded->ranked_by.find("linked in the user graph") != std::string::npos, direction == "out")
        << folded->ranked_by;
  }
}
