// The items' ratings on a ranker's lists (infer/ranker_quality_term.h): the lists, the label,
// the explanation and a served user's fold-in all read the same formula, worked here by hand.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "common/test_support.h"
#include "infer_test_util.h"
#include "symgnn/config.h"
#include "symgnn/explain.h"
#include "symgnn/fit.h"
#include "symgnn/recommend.h"
#include "symgnn/trained_model.h"

using namespace symgnn;

namespace {

/// `model` with `ranker` beside it and the items' ratings at weight 0.7, shrinkage 2 (and the
/// user graph's term at weight 1.5 where `graph`), on 60 users rating 8 of 30 items; item i is
/// rated 5 by most where i is even, 2 where it is odd.
TrainedModel fitted_with_quality(const std::string& tag, const std::string& model, const std::string& ranker,
                                 bool graph) {
  const std::string dir = symgnn::testing::scratch_dir(tag);
  std::ofstream csv(dir + "/ratings.csv");
  csv << "user,item,rating\n";
  for (int u = 0; u < 60; ++u)
    for (int k = 0; k < 8; ++k) {
      const int item = 10 * (u % 3) + (u / 3 + 3 * k) % 10;
      csv << "u" << u << ",i" << item << "," << (item % 2 == 0 ? 5 - (u + k) % 2 : 2 + (u + k) % 2) << "\n";
    }
  csv.close();
  std::ofstream follows(dir + "/follows.csv");
  for (int u = 0; u < 60; ++u) follows << "u" << u << ",u" << (u + 3) % 60 << "\n";
  follows.close();
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
  cfg.train.ranker_graph = graph ? "user" : "none";
  cfg.train.ranker_graph_weight = 1.5;
  cfg.train.ranker_graph_shrinkage = 1;
  cfg.train.ranker_quality = "item";
  cfg.train.ranker_quality_weight = 0.7;
  cfg.train.ranker_quality_shrinkage = 2;
  FitOptions fo;
  fo.out_dir = dir + "/run";
  fit(cfg, fo);
  return TrainedModel::load(fo.out_dir);
}

/// q(i) by hand from the model's training and validation ratings: each rating less its
/// rater's mean, summed per item, over (raters + 2), over the scale's width.
std::vector<double> quality_by_hand(const TrainedModel& m) {
  const Dataset& ds = m.dataset();
  std::vector<double> sum(static_cast<size_t>(m.users()), 0), count(static_cast<size_t>(m.users()), 0);
  for (const RatingList* list : {&ds.train, &ds.validation})
    for (size_t e = 0; e < list->size(); ++e)
      sum[static_cast<size_t>(list->user[e])] += list->value[e], ++count[static_cast<size_t>(list->user[e])];
  std::vector<double> dev(static_cast<size_t>(m.items()), 0), raters(static_cast<size_t>(m.items()), 0);
  for (const RatingList* list : {&ds.train, &ds.validation})
    for (size_t e = 0; e < list->size(); ++e) {
      const auto u = static_cast<size_t>(list->user[e]);
      dev[static_cast<size_t>(list->item[e])] += list->value[e] - sum[u] / count[u];
      ++raters[static_cast<size_t>(list->item[e])];
    }
  std::vector<double> q(dev.size());
  for (size_t i = 0; i < q.size(); ++i) q[i] = dev[i] / (raters[i] + 2) / (ds.rating_max - ds.rating_min);
  return q;
}

}  // namespace

TEST(RankerQualityTerm, ListsLabelAndExplanationReadTheFormula) {
  const TrainedModel m = fitted_with_quality("ranker_quality_term_lists", "baseline", "popularity", false);
  ASSERT_TRUE(m.ranker_quality_term());
  ASSERT_FALSE(m.ranker_graph_term());
  const std::vector<double> q = quality_by_hand(m);
  for (const int64_t u : {0, 7, 31}) {
    const std::vector<float> raw = m.ranker_scores({u});
    double most = 0;
    for (const float s : raw) most = std::max(most, std::abs(double(s)));
    const std::vector<float> row = m.score_all_items({u});
    for (size_t i = 0; i < row.size(); ++i)
      EXPECT_NEAR(row[i], raw[i] / most + 0.7 * q[i], 1e-5) << "user " << u << " item " << i;
  }
  // Well-rated (even) items lead the lists now; popularity alone cannot tell them apart.
  RecommendOptions ro;
  ro.k = 5;
  const std::vector<int64_t> top = recommend(m, {0}, ro).front().items;
  ASSERT_EQ(top.size(), 5u);
  for (const int64_t i : top) EXPECT_EQ(std::stoi(m.dataset().items.id_of(i).substr(1)) % 2, 0) << i;
  EXPECT_EQ(m.ranked_by(0), "popularity and the items' ratings");
  ExplainOptions eo;
  eo.top = 1000;
  const int64_t item = top.front();
  const Explanation x = explain(m, 0, item, eo);
  EXPECT_TRUE(x.exact);
  EXPECT_NEAR(x.score, m.score_all_items({0})[static_cast<size_t>(item)], 1e-5);
  double sum = 0;
  bool said = false;
  for (const ExplanationPart& p : x.parts) {
    sum += p.value;
    if (p.text.find("how well it is rated") != std::string::npos) {
      said = true;
      EXPECT_NEAR(p.value, 0.7 * q[static_cast<size_t>(item)], 1e-5);
    }
  }
  EXPECT_NEAR(sum, x.score, 1e-5);
  EXPECT_TRUE(said) << x.method;
}

TEST(RankerQualityTerm, AfterTheUserGraphsTermAndInAServedUsersFoldIn) {
  const TrainedModel m = fitted_with_quality("ranker_quality_term_fold", "lowrank", "itemknn", true);
  ASSERT_TRUE(m.ranker_quality_term());
  ASSERT_TRUE(m.ranker_graph_term());
  const std::vector<double> q = quality_by_hand(m);
  for (bool known : {false, true}) {
    NewNodes nodes;
    const std::string id = known ? "u5" : "someone-new";
    for (const char* item : {"i0", "i11"})
      if (!known || std::string(item) == "i11") nodes.rows.ratings.push_back({id, item, 5.0});
    if (!known) nodes.rows.edges = {{id, "u3", 1.0}};
    const std::optional<UserUpdate> folded = symgnn::testing::folded_user(m, nodes);
    ASSERT_TRUE(folded.has_value()) << id;
    const TrainedModel grown = m.with_new_nodes(nodes);
    ASSERT_TRUE(grown.ranker_quality_term());
    // The grown model keeps the items' ratings it was fitted with.
    for (size_t i = 0; i < q.size(); ++i) EXPECT_NEAR(grown.item_quality()[i], q[i], 1e-6) << i;
    const int64_t u = grown.user_index(id);
    const std::vector<float> want = grown.score_all_items({u});
    ASSERT_EQ(folded->scores.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i)
      EXPECT_NEAR(folded->scores[i], want[i], 1e-5) << id << " item " << i;
    EXPECT_EQ(folded->ranked_by, grown.ranked_by(u)) << id;
    EXPECT_NE(grown.ranked_by(u).find("and the items' ratings"), std::string::npos) << grown.ranked_by(u);
  }
}
