// Nodes a graph edit creates (Delta::Edge::create, symgnn/delta.h): a new item joins by its
// edges alone and is found by similar() from the items it links to, a new user joins by
// follows alone and gets a list from the model; the ranker beside the model grows by the same
// nodes; the journal replays them; the edits a creation cannot take are one line each.
#include <gtest/gtest.h>
#include <torch/types.h>
#include <torch/utils.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "infer/graph_journal.h"
#include "infer/model_parts.h"
#include "infer_test_util.h"
#include "symgnn/error.h"
#include "symgnn/explain.h"
#include "symgnn/graph_edit.h"
#include "symgnn/model.h"
#include "symgnn/model_dir.h"
#include "symgnn/trained_model.h"

using namespace symgnn;

namespace {

/// A low-rank model reading a user graph (pairs of follows) and an item graph (chains of the
/// items of one taste: the even items, the odd items), with `ranker`; its directory.
std::string two_graph_model(const std::string& tag, const std::string& ranker, bool item_features = false,
                            const std::string& cold_lists = "neighbours") {
  const std::string d = symgnn::testing::scratch_dir("infer_graph_create_" + tag);
  symgnn::testing::write_file(d, "ratings.csv", symgnn::testing::two_taste_csv(24, 18, 0.4, 5));
  std::string follows, links;
  for (int u = 0; u + 1 < 24; u += 2)
    follows += "u" + std::to_string(u) + ",u" + std::to_string(u + 1) + "\n";
  for (int i = 0; i + 2 < 18; ++i) links += "i" + std::to_string(i) + ",i" + std::to_string(i + 2) + "\n";
  symgnn::testing::write_file(d, "follows.csv", follows);
  symgnn::testing::write_file(d, "links.csv", links);
  std::string features;  // the taste of each item, as two columns
  for (int i = 0; i < 18; ++i) features += "i" + std::to_string(i) + (i % 2 == 0 ? ",1,0\n" : ",0,1\n");
  symgnn::testing::write_file(d, "features.csv", features);
  RunConfig cfg = start_config("", "");
  cfg.data.source = d + "/ratings.csv";
  cfg.data.user_graph_file = d + "/follows.csv";
  cfg.data.item_graph_file = d + "/links.csv";
  if (item_features) cfg.data.item_features_file = d + "/features.csv";
  cfg.data.test_fraction = 0.2;
  for (const std::string s : {"model=lowrank", "lowrank.variant=G", "graph.user_graph=file",
                              "graph.item_graph=file", "train.epochs=8", "lowrank.hidden=8"})
    apply_override(cfg, s);
  apply_override(cfg, "train.ranker=" + ranker);
  apply_override(cfg, "train.cold_lists=" + cold_lists);
  FitOptions o;
  o.out_dir = d + "/run";
  o.overwrite = true;
  fit(cfg, o);
  return o.out_dir;
}

std::vector<Delta::Edge> new_item_linked_to_evens() {
  std::vector<Delta::Edge> edits;
  for (const char* to : {"i0", "i2", "i4", "i6", "i8"}) {
    Delta::Edge e = graph_edit("item", "add", "fresh", to, 1.0);
    e.create = true;
    edits.push_back(e);
  }
  return edits;
}

}  // namespace

TEST(GraphCreate, ANewItemJoinsByItsEdgesAloneAndIsFoundFromThem) {
  const std::string dir = two_graph_model("item", "ease");
  const TrainedModel m = TrainedModel::load(dir);
  const std::vector<Delta::Edge> edits = new_item_linked_to_evens();
  const TrainedModel edited = apply_graph_edits(m, edits);
  ASSERT_EQ(edited.items(), m.items() + 1);
  ASSERT_EQ(edited.users(), m.users());
  const int64_t fresh = edited.item_index("fresh");
  EXPECT_EQ(fresh, m.items());
  // Its graph row holds the five edges, both ways; it has no ratings.
  int64_t entries = 0;
  const EdgeList& g = edited.dataset().items.graph;
  for (size_t e = 0; e < g.src.size(); ++e) entries += (g.src[e] == fresh) + (g.dst[e] == fresh);
  EXPECT_EQ(entries, 10);
  for (const int64_t i : edited.dataset().train.item) EXPECT_NE(i, fresh);
  // Found among the five nearest of every item it links to, by the model's representations.
  ASSERT_EQ(edited.similarity_basis(NodeSide::items), "representations");
  for (const char* to : {"i0", "i2", "i4", "i6", "i8"}) {
    bool found = false;
    for (const SimilarNode& s : edited.similar(NodeSide::items, edited.item_index(to), 5))
      found |= s.index == fresh;
    EXPECT_TRUE(found) << "not among the 5 nearest of " << to;
  }
  // The EASE ranker beside it grew by the item: a column of zeros, its exact fit for an item
  // nobody rated; the other columns are the ranker's as before.
  const std::vector<float> before = symgnn::testing::every_users_scores(m),
                           after = symgnn::testing::every_users_scores(edited);
  ASSERT_EQ(after.size(), static_cast<size_t>(m.users() * (m.items() + 1)));
  double other_columns = 0;
  for (int64_t u = 0; u < m.users(); ++u) {
    if (m.seen_items()[static_cast<size_t>(u)].empty()) continue;
    for (int64_t i = 0; i < m.items(); ++i)
      other_columns =
          std::max(other_columns, double(std::abs(after[static_cast<size_t>(u * (m.items() + 1) + i)] -
                                                  before[static_cast<size_t>(u * m.items() + i)])));
    EXPECT_EQ(after[static_cast<size_t>(u * (m.items() + 1) + fresh)], 0.0f);
  }
  EXPECT_LT(other_columns, 1e-6);
  // Predicted ratings come from the model, which places it through the graph.
  const std::vector<float> r = edited.predict({0, 1, 2}, {fresh, fresh, fresh});
  for (const float v : r) EXPECT_TRUE(std::isfinite(v));

  // A user rating its neighbours (new, or trained) moves its row, as the grown model moves it:
  // a fold-in gathers it again.
  symgnn::testing::expect_fold_equals_growth(edited, {{"stranger", "i0", 5}, {"stranger", "i2", 4}});
  for (int64_t i = 0; i < m.items(); ++i)
    if (!std::binary_search(m.seen_items()[1].begin(), m.seen_items()[1].end(), i)) {
      symgnn::testing::expect_fold_equals_growth(
          edited, {{m.dataset().users.id_of(1), m.dataset().items.id_of(i), 4}});
      break;
    }
  // Rated itself: placed by its rating from then on.
  symgnn::testing::expect_fold_equals_growth(edited, {{"stranger", "fresh", 5}, {"stranger", "i2", 4}});

  // Journalled: every load creates it again, at the same index, to the same scores; compacted:
  // a directory that holds it.
  EXPECT_EQ(infer::append_graph_journal(dir, edits), 1);
  const TrainedModel reloaded = TrainedModel::load(dir);
  EXPECT_EQ(reloaded.item_index("fresh"), fresh);
  EXPECT_LT(symgnn::testing::largest_difference(symgnn::testing::every_users_scores(reloaded), after), 1e-5);
  const std::string compacted = symgnn::testing::scratch_dir("infer_graph_create_compacted") + "/out";
  EXPECT_EQ(compact_model_dir(dir, compacted, "cpu"), 1);
  const TrainedModel from_compacted = TrainedModel::load(compacted);
  EXPECT_EQ(from_compacted.items(), edited.items());
  EXPECT_LT(symgnn::testing::largest_difference(symgnn::testing::every_users_scores(from_compacted), after),
            1e-5);
}

namespace {

/// "newcomer", created by follows of u0, u2 and u4.
std::vector<Delta::Edge> newcomer_follows() {
  std::vector<Delta::Edge> edits;
  for (const char* to : {"u0", "u2", "u4"}) {
    Delta::Edge e = graph_edit("user", "add", "newcomer", to, 1.0);
    e.create = true;
    edits.push_back(e);
  }
  return edits;
}

}  // namespace

TEST(GraphCreate, ANewUserJoinsByFollowsAloneAndIsListedByThem) {
  const std::string dir = two_graph_model("user_cold", "ease");
  const TrainedModel m = TrainedModel::load(dir);
  const TrainedModel edited = apply_graph_edits(m, newcomer_follows());
  const int64_t u = edited.user_index("newcomer");
  ASSERT_EQ(u, m.users());
  ASSERT_TRUE(edited.cold_listed(u));
  EXPECT_FALSE(edited.cold_listed(0));
  // Their list, by brute force: the followed users' ratings as shares of the 1-5 scale,
  // popularity (counts over the most rated item's) as one more voice (infer/cold_lists.h).
  const Dataset& ds = edited.dataset();
  std::vector<double> count(static_cast<size_t>(edited.items())), sum(count.size());
  std::set<int64_t> raters;
  for (const RatingList* list : {&ds.train, &ds.validation})
    for (size_t e = 0; e < list->size(); ++e) {
      const int64_t v = list->user[e], i = list->item[e];
      count[static_cast<size_t>(i)] += 1;
      if (v == 0 || v == 2 || v == 4) {
        raters.insert(v);
        sum[static_cast<size_t>(i)] += (list->value[e] - ds.rating_min) / (ds.rating_max - ds.rating_min);
      }
    }
  ASSERT_EQ(raters.size(), 3u);
  const double most = *std::max_element(count.begin(), count.end());
  const std::vector<float> row = edited.score_all_items({u});
  ASSERT_EQ(row.size(), count.size());
  for (size_t i = 0; i < count.size(); ++i)
    EXPECT_NEAR(row[i], (sum[i] + count[i] / most) / 4.0, 1e-6) << "item " << i;
  EXPECT_NE(edited.ranked_by(u).find("the 3 people linked"), std::string::npos) << edited.ranked_by(u);
  EXPECT_EQ(edited.ranked_by(0), "ease");
  // The explanation of their top item names the people they follow who rated it; exact.
  const auto top = static_cast<int64_t>(std::max_element(row.begin(), row.end()) - row.begin());
  ExplainOptions eo;
  eo.target = "list";
  const Explanation e = explain(edited, u, top, eo);
  EXPECT_TRUE(e.exact);
  EXPECT_NEAR(e.score, row[static_cast<size_t>(top)], 1e-6);
  double parts = 0;
  int named = 0;
  for (const ExplanationPart& p : e.parts) {
    parts += p.value;
    if (p.source == "neighbour") {
      ++named;
      EXPECT_TRUE(p.linked) << p.text;
      EXPECT_NE(p.text.find("whom you follow"), std::string::npos) << p.text;
    }
  }
  EXPECT_NEAR(parts, e.score, 1e-6);
  EXPECT_GT(named, 0);
  // A user nobody rated beside: popularity's list.
  Delta::Edge alone = graph_edit("user", "add", "loner", "newcomer", 1.0);
  alone.create = true;
  const TrainedModel lonely = apply_graph_edits(edited, {alone});
  const int64_t l = lonely.user_index("loner");
  const std::vector<float> pop = lonely.score_all_items({l});
  for (size_t i = 0; i < count.size(); ++i) EXPECT_NEAR(pop[i], count[i] / most, 1e-6);
  EXPECT_NE(lonely.ranked_by(l).find("popularity"), std::string::npos);
}

TEST(GraphCreate, ANewUserJoinsByFollowsAloneAndGetsTheModelsListUnderColdListsModel) {
  const std::string dir = two_graph_model("user", "ease", false, "model");
  const TrainedModel m = TrainedModel::load(dir);
  const TrainedModel edited = apply_graph_edits(m, newcomer_follows());
  ASSERT_EQ(edited.users(), m.users() + 1);
  const int64_t u = edited.user_index("newcomer");
  ASSERT_EQ(u, m.users());
  EXPECT_TRUE(edited.seen_items()[static_cast<size_t>(u)].empty());
  EXPECT_FALSE(edited.cold_listed(u));
  // The ranker (EASE) has nothing to score them from; their list is the model's own scores,
  // which differ between items (no list of ties).
  const std::vector<float> row = edited.score_all_items({u});
  std::set<float> distinct(row.begin(), row.end());
  EXPECT_GT(distinct.size(), static_cast<size_t>(edited.items() / 2));
  {
    torch::NoGradGuard no_grad;
    at::Tensor sum;
    for (const auto& member : edited.parts().members) {
      const at::Tensor s = member->score_items(torch::tensor({u}), edited.items());
      sum = sum.defined() ? sum + s : s;
    }
    sum = (sum / static_cast<double>(edited.parts().members.size()))
              .to(torch::kCPU, torch::kFloat)
              .contiguous();
    const std::vector<float> own(sum.data_ptr<float>(), sum.data_ptr<float>() + sum.numel());
    EXPECT_LT(symgnn::testing::largest_difference(row, own), 1e-6);
  }
  // Trained users with ratings are still ranked by EASE: their rows unchanged.
  const std::vector<float> before = m.score_all_items({0, 5}), after = edited.score_all_items({0, 5});
  EXPECT_LT(symgnn::testing::largest_difference(before, after), 1e-6);
  // The newcomer then rates, and a user they follow rates: each folded in as the model grown by
  // those ratings places them (the newcomer by their ratings from then on).
  symgnn::testing::expect_fold_equals_growth(edited, {{"newcomer", "i0", 5}, {"newcomer", "i2", 4}});
  for (int64_t i = 0; i < m.items(); ++i)
    if (!std::binary_search(m.seen_items()[0].begin(), m.seen_items()[0].end(), i)) {
      symgnn::testing::expect_fold_equals_growth(
          edited, {{m.dataset().users.id_of(0), m.dataset().items.id_of(i), 4}});
      break;
    }
}

TEST(GraphCreate, WhatACreationCannotTakeIsOneLine) {
  const std::string dir = two_graph_model("bad", "none");
  const TrainedModel m = TrainedModel::load(dir);
  const auto refused = [&](Delta::Edge e, const std::string& needle) {
    try {
      apply_graph_edits(m, {e});
      ADD_FAILURE() << "accepted: " << needle;
    } catch (const ConfigError& x) {
      EXPECT_NE(std::string(x.what()).find(needle), std::string::npos) << x.what();
      EXPECT_EQ(std::string(x.what()).find('\n'), std::string::npos);
    }
  };
  refused(graph_edit("item", "add", "i0", "nowhere", 1),
          "edits[0]: 'nowhere' is no item of the model (set create");
  Delta::Edge removal = graph_edit("item", "remove", "i0", "nowhere", 1);
  removal.create = true;
  refused(removal, "create: only an edge added creates a node");
  Delta::Edge loop = graph_edit("item", "add", "nowhere", "nowhere", 1);
  loop.create = true;
  refused(loop, "is a self-loop");
  Delta::Edge empty = graph_edit("user", "add", "", "u0", 1);
  empty.create = true;
  refused(empty, "an empty user id");
  // The one id rule (data/id_rule.h): a created node's id is written by export and the lists
  // as it is, so what those files cannot hold is refused here too, whichever door it came by.
  for (const auto& [id, why] : std::vector<std::pair<std::string, std::string>>{
           {"a,b", "holds a comma"},
           {"a\"b", "holds a double quote (quoted fields are not read: the quotes stay part of the id)"},
           {"a\tb", "holds a tab"},
           {"a\nb", "holds a line break"},
           {std::string("a\0b", 3), "holds a control character (byte 0x00)"},
           {" padded", "has surrounding spaces"},
           {std::string(2000, 'x'), "is 2000 bytes long (at most 1024)"}}) {
    Delta::Edge odd = graph_edit("user", "add", id, "u0", 1);
    odd.create = true;
    refused(odd, "edits[0]: user id ");
    refused(odd, why + ", which the files symgnn reads and writes cannot hold");
  }
  // Two new nodes linked to each other only: both created, in the order named.
  Delta::Edge pair = graph_edit("item", "add", "x", "y", 1);
  pair.create = true;
  const TrainedModel two = apply_graph_edits(m, {pair});
  EXPECT_EQ(two.items(), m.items() + 2);
  EXPECT_EQ(two.item_index("x"), m.items());
  EXPECT_EQ(two.item_index("y"), m.items() + 1);
}

TEST(GraphCreate, ACreatedItemsFeaturesTakeTheirShareInPlaceOfItsNeighbours) {
  const std::string dir = two_graph_model("features", "none", true);
  const TrainedModel m = TrainedModel::load(dir);
  ASSERT_EQ(m.dataset().items.features.cols, 2);
  std::vector<Delta::Edge> plain = new_item_linked_to_evens(), odd = plain;
  odd[0].features = {0, 1};  // the other taste's features
  const TrainedModel without = apply_graph_edits(m, plain), with = apply_graph_edits(m, odd);
  const int64_t fresh = with.item_index("fresh");
  const FeatureMatrix& f = with.dataset().items.features;
  EXPECT_EQ(f.values[static_cast<size_t>(fresh * 2)], 0.0f);
  EXPECT_EQ(f.values[static_cast<size_t>(fresh * 2 + 1)], 1.0f);
  // Its own features move its ratings (the prior's side branch), and nothing else's.
  std::vector<int64_t> users, items;
  for (int64_t u = 0; u < m.users(); ++u) users.push_back(u), items.push_back(fresh);
  EXPECT_GT(symgnn::testing::largest_difference(with.predict(users, items), without.predict(users, items)),
            1e-4);
  // Journalled with them; folds still equal the grown model.
  EXPECT_EQ(infer::append_graph_journal(dir, odd), 1);
  EXPECT_LT(symgnn::testing::largest_difference(symgnn::testing::every_users_scores(TrainedModel::load(dir)),
                                                symgnn::testing::every_users_scores(with)),
            1e-5);
  symgnn::testing::expect_fold_equals_growth(with, {{"stranger", "i0", 5}, {"stranger", "i2", 4}});
  // Refused, one line each: a count that is not the side's, features without create, for an end
  // that is no new node, on a side without features.
  const auto refused = [&](const TrainedModel& model, const Delta::Edge& e, const std::string& needle) {
    try {
      apply_graph_edits(model, {e});
      ADD_FAILURE() << "accepted: " << needle;
    } catch (const ConfigError& x) {
      EXPECT_NE(std::string(x.what()).find(needle), std::string::npos) << x.what();
    }
  };
  Delta::Edge e = graph_edit("item", "add", "new", "i0", 1.0);
  e.create = true;
  e.features = {1};
  refused(m, e, "features: 1 value(s); the model's item features have 2");
  e.create = false;
  e.features = {1, 0};
  refused(m, e, "features: only for the node an edit creates");
  e.create = true;
  e.a = "i1";
  e.b = "new";
  refused(m, e, "'i1' is already an item");
  Delta::Edge u = graph_edit("user", "add", "newcomer", "u0", 1.0);
  u.create = true;
  u.features = {1};
  refused(m, u, "the model's users have no side features");
}
