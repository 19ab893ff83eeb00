// A user folded into a loaded model (the door's Keep::user, symgnn/update.h: their receptive field alone,
// src/models/lowrank_fold.cpp) gets the rows the model grown by their ratings gives them
// (with_new_nodes): new users, with and without graph edges and side features, and trained
// users' fresh ratings, over the low-rank model's switches the fold-in covers; a model it does
// not cover gets the grown model, and input the grown model would refuse is refused by the
// door's check before any fold. The door itself (Update): what check reads and apply keeps.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>
#include <utility>

#include "infer/cold_lists.h"
#include "infer/model_parts.h"
#include "infer_test_util.h"
#include "symgnn/graph.h"
#include "symgnn/recommend.h"
#include "symgnn/update.h"

using namespace symgnn;
using symgnn::testing::folded_user;

namespace {

constexpr int kUsers = 40, kItems = 24;

/// The two-taste set with a ring of user follows and one side feature per user, fitted with
/// `sets` (two members averaged, a few epochs).
std::string fit_model(const std::string& tag, const std::vector<std::string>& extra,
                      bool graph_and_features) {
  const std::string csv = symgnn::testing::two_taste_csv(kUsers, kItems, 0.45, 23);
  // A k-NN item graph of rating rows: the item CGE's receptive field is more than the items
  // rated. `extra` comes last, so it may change any of these.
  std::vector<std::string> sets = {"train.epochs=3",       "lowrank.hidden=8",
                                   "train.average_last=2", "lowrank.prior_width=12",
                                   "graph.item_graph=knn", "graph.knn_source=ratings",
                                   "graph.knn_k=4",        "graph.user_graph=identity"};
  if (graph_and_features) {
    const std::string d = symgnn::testing::scratch_dir("fold_in_side_" + tag);
    std::ostringstream edges, features;
    edges << "a,b\n";
    features << "user,f1,f2\n";
    for (int u = 0; u < kUsers; ++u) {
      edges << "u" << u << ",u" << (u + 1) % kUsers << "\n";
      edges << "u" << u << ",u" << (u + 3) % kUsers << "\n";
      features << "u" << u << "," << (u % 2) << "," << (u % 5) * 0.5 << "\n";
    }
    symgnn::testing::write_file(d, "follows.csv", edges.str());
    symgnn::testing::write_file(d, "features.csv", features.str());
    sets.push_back("data.user_graph_file=" + d + "/follows.csv");
    sets.push_back("data.user_features_file=" + d + "/features.csv");
    sets.emplace_back("graph.user_graph=file");
  }
  sets.insert(sets.end(), extra.begin(), extra.end());
  return symgnn::testing::fit_csv("fold_in_" + tag, csv, sets);
}

/// The largest difference of two rows relative to their size.
double worst(const std::vector<float>& a, const std::vector<float>& b) {
  EXPECT_EQ(a.size(), b.size());
  double w = 0;
  for (size_t k = 0; k < std::min(a.size(), b.size()); ++k)
    w = std::max(w, std::abs(double(a[k]) - b[k]) / (1 + std::abs(double(b[k]))));
  return w;
}

/// The door's fold of `nodes` against with_new_nodes(nodes) for the user of the nodes.
void expect_fold_equals_grown(const TrainedModel& model, const NewNodes& nodes) {
  const std::optional<UserUpdate> folded = folded_user(model, nodes);
  ASSERT_TRUE(folded.has_value());
  const TrainedModel grown = model.with_new_nodes(nodes);
  const int64_t u = grown.dataset().users.count > model.users() ? model.users() : folded->user;
  EXPECT_EQ(folded->user, u);
  EXPECT_LT(worst(folded->scores, grown.score_all_items({u})), 1e-5);
  std::vector<int64_t> every(static_cast<size_t>(model.items()));
  for (size_t i = 0; i < every.size(); ++i) every[i] = static_cast<int64_t>(i);
  EXPECT_LT(worst(folded->ratings(every), grown.rating_all_items({u})), 1e-5);
  // A few items, in any order, as a list asks for them.
  const std::vector<int64_t> few = {9, 2, 17, 2};
  const std::vector<float> all = grown.rating_all_items({u}), asked = folded->ratings(few);
  ASSERT_EQ(asked.size(), few.size());
  for (size_t k = 0; k < few.size(); ++k)
    EXPECT_NEAR(asked[k], all[static_cast<size_t>(few[k])],
                1e-5 * (1 + std::abs(all[static_cast<size_t>(few[k])])));
  EXPECT_EQ(folded->seen, grown.seen_items()[static_cast<size_t>(u)]);
  EXPECT_EQ(folded->ranked_by, grown.ranker().empty() ? grown.name() : grown.ranker());
  // The lists agree too.
  RecommendOptions o;
  o.k = 5;
  const UserRecommendations a = recommend(*folded, o);
  const UserRecommendations b = recommend(grown, {u}, o).front();
  EXPECT_EQ(a.items, b.items);
  ASSERT_EQ(a.scores.size(), b.scores.size());
  for (size_t k = 0; k < a.scores.size(); ++k)
    EXPECT_NEAR(a.scores[k], b.scores[k], 1e-5 * (1 + std::abs(b.scores[k])));
  // A candidate list ranked as rank_items ranks it in the grown model.
  const std::vector<int64_t> candidates = {3, 11, 0, 20, 6};
  const UserRecommendations c = rank_items(*folded, candidates), d = rank_items(grown, u, candidates);
  EXPECT_EQ(c.items, d.items);
  for (size_t k = 0; k < c.scores.size(); ++k)
    EXPECT_NEAR(c.scores[k], d.scores[k], 1e-5 * (1 + std::abs(d.scores[k])));
}

/// A new user's ratings of items 1, 4, 9 and 14, and a trained user's two fresh ratings.
NewNodes new_user(const TrainedModel& model) {
  NewNodes nodes;
  int k = 0;
  for (const int64_t i : {1, 4, 9, 14})
    nodes.rows.ratings.push_back({"someone-new", model.dataset().items.id_of(i), 1.0 + (k++ % 5)});
  return nodes;
}

NewNodes fresh_ratings(const TrainedModel& model, int64_t u) {
  NewNodes nodes;
  const auto& seen = model.seen_items()[static_cast<size_t>(u)];
  for (int64_t i = 0, added = 0; i < model.items() && added < 2; ++i)
    if (!std::binary_search(seen.begin(), seen.end(), i))
      nodes.rows.ratings.push_back({model.dataset().users.id_of(u), model.dataset().items.id_of(i), 4}),
          ++added;
  return nodes;
}

}  // namespace

TEST(FoldIn, EqualsTheGrownModelOverTheLowRankSwitches) {
  const std::vector<std::pair<std::string, std::vector<std::string>>> configs = {
      {"default", {}},
      {"ease", {"train.ranker=ease"}},
      {"symmetric", {"lowrank.prior_norm=symmetric"}},
      {"learned_sum", {"lowrank.fusion=learned", "lowrank.prior_stacking=sum", "lowrank.decoder=dot"}},
      {"ranking", {"train.objective=ranking", "train.ranker=none"}},
      {"no_ranker_three_layers", {"train.ranker=none", "lowrank.layers=3", "lowrank.cge_bias=true"}},
      // The residual on the bias baseline: a new user's b_u from their ratings, as the grown
      // model's nodes_added fits it.
      {"offset", {"lowrank.offset=baseline", "lowrank.biases=false"}},
  };
  for (const auto& [tag, sets] : configs) {
    SCOPED_TRACE(tag);
    const TrainedModel model = TrainedModel::load(fit_model(tag, sets, false));
    ASSERT_EQ(model.name(), tag == "offset" ? "lowrank-G+offset" : "lowrank-G");
    // EASE's row of a trained user is theirs as served plus the new items' (fold_in.cpp).
    if (tag == "ease") {
      EXPECT_EQ(model.ranker(), "ease");
    }
    expect_fold_equals_grown(model, new_user(model));
    expect_fold_equals_grown(model, fresh_ratings(model, 7));
    expect_fold_equals_grown(model, fresh_ratings(model, 0));
  }
}

TEST(FoldIn, ANewUsersFollowsAndFeaturesEnterAsTheGrownModelTakesThem) {
  const TrainedModel model = TrainedModel::load(fit_model("graph", {}, true));
  ASSERT_EQ(model.dataset().users.graph_origin, GraphOrigin::File);
  NewNodes nodes = new_user(model);
  nodes.rows.edges = {{"someone-new", "u3", 1.0}, {"someone-new", "u17", 2.5}};
  nodes.rows.features = {{"someone-new", {1.0, 2.0}}};
  expect_fold_equals_grown(model, nodes);
  // Without edges (an isolated row) or features (zeros), and a trained user's fresh ratings
  // over the follow graph (their neighbours gather from them).
  expect_fold_equals_grown(model, new_user(model));
  expect_fold_equals_grown(model, fresh_ratings(model, 12));
}

TEST(FoldIn, WhatItDoesNotCoverIsLeftToTheGrownModel) {
  const TrainedModel full = TrainedModel::load(fit_model("full", {"lowrank.variant=full"}, false));
  EXPECT_FALSE(folded_user(full, new_user(full)).has_value());  // attention reads every row
  // A k-NN user graph links a new user by itself (the grown model does); a trained user's
  // fresh ratings leave their row of it as it is.
  const TrainedModel knn = TrainedModel::load(fit_model("knn_users", {"graph.user_graph=knn"}, false));
  ASSERT_EQ(knn.dataset().users.graph_origin, GraphOrigin::Knn);
  EXPECT_FALSE(folded_user(knn, new_user(knn)).has_value());
  expect_fold_equals_grown(knn, fresh_ratings(knn, 5));
  const TrainedModel model = TrainedModel::load(fit_model("default", {}, false));
  const Dataset& ds = model.dataset();
  // What the fold cannot place grows the model: a new item.
  NewNodes unknown = new_user(model);
  unknown.rows.ratings.push_back({"someone-new", "no-such-item", 4});
  EXPECT_FALSE(folded_user(model, unknown).has_value());
  // What the door's check refuses is refused before any fold, in the growth's own words: a pair
  // the model learned from, a value off the scale, several users for one answer, edges where the
  // user graph is the identity.
  NewNodes again = fresh_ratings(model, 3);
  again.rows.ratings.push_back({ds.users.id_of(3), ds.items.id_of(model.seen_items()[3].front()), 4});
  NewNodes off_level = new_user(model);
  off_level.rows.ratings.back().value = 3.5;
  NewNodes two_users = new_user(model);
  two_users.rows.ratings.push_back({"someone-else", ds.items.id_of(2), 4});
  NewNodes edges = new_user(model);
  edges.rows.edges = {{"someone-new", ds.users.id_of(1), 1.0}};
  EXPECT_THROW(apply(model, again.rows, Keep::user), DataError);
  EXPECT_THROW(apply(model, off_level.rows, Keep::user), DataError);
  EXPECT_THROW(apply(model, two_users.rows, Keep::user), ConfigError);
  EXPECT_THROW(apply(model, edges.rows, Keep::user), ConfigError);
  EXPECT_THROW(model.with_new_nodes(again), DataError);
  EXPECT_THROW(model.with_new_nodes(off_level), DataError);
}

namespace {

/// `f` throws E whose message holds `part`.
template <typename E, typename F>
void expect_error(F f, const std::string& part) {
  try {
    f();
    ADD_FAILURE() << "no error; expected one with " << part;
  } catch (const E& e) {
    EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
  }
}

}  // namespace

TEST(Update, CheckReadsAChangeOnceWithoutChangingTheModel) {
  const TrainedModel model = TrainedModel::load(fit_model("graph", {}, true));
  const int64_t users = model.users(), items = model.items();
  // New ratings: checked against the model's own indexes; nothing joins.
  check(model, new_user(model).rows);
  EXPECT_EQ(model.users(), users);
  Delta learned = fresh_ratings(model, 3).rows;
  learned.ratings.push_back({"u3", model.dataset().items.id_of(model.seen_items()[3].front()), 4});
  expect_error<DataError>([&] { check(model, learned); }, "is already in the model's data");
  expect_error<ConfigError>([&] { check(model, Delta{}); }, "the change is empty");
  // Graph edits: each read against the graphs as the edits before it leave them.
  const auto edits = [](std::vector<Delta::Edge> e) {
    Delta d;
    d.edges = std::move(e);
    return d;
  };
  const Delta::Edge add(NodeSide::users, EdgeOp::add, "u1", "u20"),
      remove(NodeSide::users, EdgeOp::remove, "u1", "u20");
  check(model, edits({add, remove}));
  expect_error<ConfigError>([&] { check(model, edits({remove})); }, "edits[0]: no edge ('u1', 'u20')");
  expect_error<ConfigError>(
      [&] {
        check(model, edits({add, remove, remove}));
      },
      "edits[2]: no edge ('u1', 'u20')");
  Delta::Edge create(NodeSide::users, EdgeOp::add, "newbie", "u1");
  create.create = true;
  const Delta::Edge to_created(NodeSide::users, EdgeOp::add, "newbie", "u2");
  check(model, edits({create, to_created}));  // the node the first edit creates
  expect_error<ConfigError>([&] { check(model, edits({to_created})); }, "edits[0]: 'newbie' is no user");
  // What apply keeps: a user answers one user; a model holds the change.
  expect_error<ConfigError>([&] { apply(model, edits({add}), Keep::user); }, "Keep::model");
  const Applied grown = apply(model, new_user(model).rows, Keep::model);
  ASSERT_TRUE(grown.model.has_value());
  EXPECT_EQ(grown.model->users(), users + 1);
  const Applied folded = apply(model, new_user(model).rows, Keep::user);
  ASSERT_TRUE(folded.user.has_value());
  EXPECT_TRUE(folded.user->folded());
  EXPECT_EQ(folded.user->user, users);
  EXPECT_EQ(&folded.user->model(), &model);
  // A new item is no row of the model: the user is read from the model grown by them.
  Delta with_item = new_user(model).rows;
  with_item.ratings.push_back({"someone-new", "new-item", 5});
  const Applied read = apply(model, with_item, Keep::user);
  EXPECT_FALSE(read.user->folded());
  EXPECT_EQ(read.user->model().items(), items + 1);
  RecommendOptions o;
  o.k = 5;
  const UserRecommendations a = recommend(*read.user, o),
                            b = recommend(read.user->model(), {read.user->user}, o).front();
  EXPECT_EQ(a.items, b.items);
  EXPECT_EQ(a.scores, b.scores);
}

namespace {

/// A new user `id` given by follows alone (no rating): an added user-side link to each of
/// `follows`; `create`: the same links as a graph edit that creates `id` with the first.
Delta follows_of(const std::string& id, const std::vector<std::string>& follows, bool create = false) {
  Delta d;
  for (const std::string& v : follows) d.edges.emplace_back(NodeSide::users, EdgeOp::add, id, v);
  d.edges.front().create = create;
  return d;
}

/// The ratings the model learned from, by (user, item).
std::map<std::pair<int64_t, int64_t>, float> ratings_of(const Dataset& ds) {
  std::map<std::pair<int64_t, int64_t>, float> out;
  for (const RatingList* r : {&ds.train, &ds.validation})
    for (size_t e = 0; e < r->size(); ++e) out.emplace(std::make_pair(r->user[e], r->item[e]), r->value[e]);
  return out;
}

}  // namespace

// Issue 63: a new user known only by whom they follow is listed by those people (as the user a
// graph edit creating them with the same links), folded in where the members fold and the
// model lists users without ratings so; read from the edited model elsewhere.
TEST(FoldIn, ANewUserGivenByFollowsAloneIsTheUserAGraphEditWouldCreate) {
  const std::vector<std::string> follows = {"u17", "u3", "u30"};
  const TrainedModel model =
      TrainedModel::load(fit_model("follows", {"train.ranker=ease", "train.cold_lists=neighbours"}, true));
  ASSERT_TRUE(model.lists_cold());
  const Applied a = apply(model, follows_of("someone-new", follows), Keep::user);
  ASSERT_TRUE(a.user.has_value());
  EXPECT_TRUE(a.user->folded());
  EXPECT_EQ(a.user->user, model.users());
  EXPECT_TRUE(a.user->seen.empty());
  std::vector<int64_t> linked;
  for (const std::string& v : follows) linked.push_back(model.user_index(v));
  std::sort(linked.begin(), linked.end());
  EXPECT_EQ(a.user->linked, linked);
  EXPECT_NE(a.user->ranked_by.find("the 3 people linked in the user graph who rated"), std::string::npos)
      << a.user->ranked_by;
  // The same user created by a graph edit: the same scores, words and list.
  const Applied edited = apply(model, follows_of("someone-new", follows, true), Keep::model);
  ASSERT_TRUE(edited.model.has_value());
  const TrainedModel& e = *edited.model;
  const int64_t u = e.user_index("someone-new");
  ASSERT_EQ(u, model.users());
  EXPECT_TRUE(e.cold_listed(u));
  EXPECT_LT(worst(a.user->scores, e.score_all_items({u})), 1e-6);
  EXPECT_EQ(a.user->ranked_by, e.ranked_by(u));
  RecommendOptions o;
  o.k = 6;
  const UserRecommendations mine = recommend(*a.user, o);
  EXPECT_EQ(mine.items, recommend(e, {u}, o).front().items);
  // Each listed item's raters among the follows, as an explanation names them, by brute force.
  const auto rated = ratings_of(model.dataset());
  int named = 0;
  for (const int64_t item : mine.items) {
    std::vector<std::pair<int64_t, float>> want, got;
    for (const int64_t v : linked)
      if (const auto it = rated.find({v, item}); it != rated.end()) want.emplace_back(v, it->second);
    for (const infer::ColdPart& p : model.cold_lists().linked_parts_among(a.user->linked, item))
      got.emplace_back(p.user, p.rating);
    EXPECT_EQ(got, want) << "item " << item;
    named += static_cast<int>(got.size());
  }
  EXPECT_GT(named, 0) << "no listed item was rated by a followed person: the check saw nothing";
  // The shown ratings: the members' for a user with no rated item. The fold's row gathers from
  // the people followed and nothing links back (as for a new user with ratings, where it equals
  // with_new_nodes to 1e-5), while the edit links both ways and recomputes those people's rows:
  // here 4e-4 apart, relative.
  const std::vector<float> shown = a.user->ratings(mine.items), edited_all = e.rating_all_items({u});
  ASSERT_EQ(shown.size(), mine.items.size());
  std::vector<float> edited_shown;
  for (const int64_t i : mine.items) edited_shown.push_back(edited_all[static_cast<size_t>(i)]);
  EXPECT_LT(worst(shown, edited_shown), 2e-3);

  // Without a ranker the lists of users without ratings are the network's: the fold declines
  // and the user is read from the edited model.
  const TrainedModel plain = TrainedModel::load(fit_model("follows_plain", {"train.ranker=none"}, true));
  ASSERT_FALSE(plain.lists_cold());
  const Applied b = apply(plain, follows_of("someone-new", follows), Keep::user);
  ASSERT_TRUE(b.user.has_value());
  EXPECT_FALSE(b.user->folded());
  const TrainedModel pe =
      std::move(*apply(plain, follows_of("someone-new", follows, true), Keep::model).model);
  EXPECT_EQ(recommend(*b.user, o).items, recommend(pe, {pe.user_index("someone-new")}, o).front().items);

  // Errors name the row; a model without a user graph takes no such user; as a graph edit
  // (Keep::model) the same rows create no node.
  Delta unknown = follows_of("someone-new", {"u3", "nobody"});
  expect_error<DataError>([&] { apply(model, unknown, Keep::user); }, "new edges row 2: 'nobody' is no user");
  Delta twice = follows_of("someone-new", {"u3", "u3"});
  expect_error<DataError>([&] { apply(model, twice, Keep::user); }, "'u3' is named twice");
  Delta weightless = follows_of("someone-new", {"u3"});
  weightless.edges.front().weight = 0;
  expect_error<DataError>([&] { apply(model, weightless, Keep::user); }, "must be finite and above 0");
  const TrainedModel no_graph = TrainedModel::load(fit_model("default", {}, false));
  expect_error<ConfigError>([&] { apply(no_graph, follows_of("someone-new", {"u3"}), Keep::user); },
                            "takes no such edit");
  expect_error<ConfigError>([&] { apply(model, follows_of("someone-new", follows), Keep::model); },
                            "'someone-new' is no user");
}

// A user graph the network does without stays for the lists (NodeSet::links_only), as on
// Douban's default: a new user's follows then reach the lists alone, and the user is still
// folded in (it used to grow the model: 270 ms a request there against about 2 ms).
TEST(FoldIn, ANewUsersFollowsReachTheListsAloneWhereTheNetworkReadsTheIdentity) {
  const TrainedModel trained = TrainedModel::load(fit_model("links_only", {"train.ranker=ease"}, true));
  infer::ModelParts parts = trained.parts();
  parts.cfg.graph.user_graph = "identity";
  parts.ds.users.links_only = true;
  const TrainedModel model(infer::rebuilt_parts(parts, parts.ds));
  ASSERT_TRUE(graph::models_read_identity(model.dataset().users));
  NewNodes nodes = new_user(model);
  nodes.rows.edges = {{"someone-new", "u3", 1.0}, {"someone-new", "u17", 1.0}};
  expect_fold_equals_grown(model, nodes);
  // With the user graph's term on the lists, the followed people who rated join them as they
  // join the grown model's.
  parts.cfg.train.ranker_graph = "user";
  parts.cfg.train.ranker_graph_weight = 0.5;
  parts.cfg.train.ranker_graph_shrinkage = 0;
  const TrainedModel termed(infer::rebuilt_parts(parts, parts.ds));
  const std::optional<UserUpdate> folded = folded_user(termed, nodes);
  ASSERT_TRUE(folded.has_value());
  const TrainedModel grown = termed.with_new_nodes(nodes);
  const int64_t u = termed.users();
  EXPECT_LT(worst(folded->scores, grown.score_all_items({u})), 1e-5);
  EXPECT_EQ(folded->ranked_by, grown.ranked_by(u));
  EXPECT_NE(folded->ranked_by.find("people linked in the user graph who rated"), std::string::npos)
      << folded->ranked_by;
  std::vector<int64_t> follows = {termed.user_index("u3"), termed.user_index("u17")};
  std::sort(follows.begin(), follows.end());
  EXPECT_EQ(folded->linked, follows);
}
