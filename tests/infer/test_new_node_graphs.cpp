// New nodes in the graphs and side features (infer/new_ratings.h): a model with a user
// graph from a file and user features is given new users with their ratings, feature rows
// and edges. Their graph rows gather from the trained users they link to; no trained
// user's row changes, so trained users' predictions do not move; an edge between two trained
// users in the same file is a graph edit (symgnn/graph_edit.h); and files the model has no use
// for or features of the wrong width are errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <set>
#include <sstream>

#include "infer/new_node_files.h"
#include "infer_test_util.h"
#include "symgnn/error.h"
#include "symgnn/graph_edit.h"
#include "symgnn/trained_model.h"

using namespace symgnn;

namespace {

/// 30 users x 20 items with two tastes (even users like even items); users u0..u24 train,
/// u25..u29 arrive later. User graph: a ring over the same-taste users (u and u + 2);
/// user features: the taste, one-hot.
struct GraphFixture {
  std::string dir;
  GraphFixture() {
    dir = symgnn::testing::scratch_dir("infer_new_node_graphs");
    std::mt19937 gen(5);
    std::uniform_real_distribution<double> coin(0, 1);
    std::ostringstream train, held, edges, feats, held_edges, held_feats;
    train << "user,item,rating\n";
    held << "user,item,rating\n";
    for (int u = 0; u < 30; ++u) {
      for (int i = 0; i < 20; ++i) {
        if (coin(gen) > 0.5) continue;
        (u < 25 ? train : held) << "u" << u << ",i" << i << "," << ((u % 2 == i % 2) ? 5 : 1) << "\n";
      }
      (u < 25 ? feats : held_feats) << "u" << u << "," << (u % 2 == 0 ? "1,0" : "0,1") << "\n";
    }
    for (int u = 0; u + 2 < 25; ++u) edges << "u" << u << ",u" << u + 2 << "\n";
    for (int u = 25; u < 30; ++u)
      held_edges << "u" << u << ",u" << u - 6 << "\nu" << u << ",u" << u - 8 << "\n";
    symgnn::testing::write_file(dir, "held.csv", held.str());
    symgnn::testing::write_file(dir, "edges.csv", edges.str());
    symgnn::testing::write_file(dir, "features.csv", feats.str());
    symgnn::testing::write_file(dir, "held_edges.csv", held_edges.str());
    symgnn::testing::write_file(dir, "held_features.csv", held_feats.str());
    RunConfig cfg;
    cfg.model = "lowrank";
    cfg.data.val_fraction = 0;
    cfg.data.user_graph_file = dir + "/edges.csv";
    cfg.data.user_features_file = dir + "/features.csv";
    cfg.graph.user_graph = "file";
    cfg.graph.item_graph = "identity";
    cfg.lowrank.hidden = 8;
    cfg.lowrank.layers = 2;
    cfg.lowrank.prior = "encoder";
    cfg.lowrank.id_embedding = false;
    cfg.lowrank.prior_width = 16;
    cfg.lowrank.prior_side_width = 4;
    cfg.lowrank.decoder = "classes";
    cfg.train.epochs = 60;
    cfg.train.lr = 0.02;
    cfg.train.runs = 1;
    symgnn::testing::train_on_csv(dir, train.str(), cfg);
  }
  NewNodeFiles nodes(bool with_edges, bool with_features) const {
    NewNodeFiles n;
    n.ratings = dir + "/held.csv";
    if (with_edges) n.user_graph_file = dir + "/held_edges.csv";
    if (with_features) n.user_features_file = dir + "/held_features.csv";
    return n;
  }
};

const GraphFixture& graph_fixture() {
  static const GraphFixture f;
  return f;
}

std::vector<float> all_scores(const TrainedModel& m, int64_t first, int64_t last) {
  std::vector<int64_t> users;
  for (int64_t u = first; u < last; ++u) users.push_back(u);
  return m.score_all_items(users);
}

template <typename E>
std::string error_of(const NewNodeFiles& n) {
  try {
    TrainedModel::load(graph_fixture().dir + "/run", "cpu", n);
  } catch (const E& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST(NewNodeGraphs, NewUsersGetTheirFeatureRowsAndGraphRowsOnly) {
  const GraphFixture& f = graph_fixture();
  const TrainedModel plain = TrainedModel::load(f.dir + "/run", "cpu", f.nodes(false, false));
  const TrainedModel full = TrainedModel::load(f.dir + "/run", "cpu", f.nodes(true, true));
  const NewRatingsSummary& s = full.new_ratings();
  EXPECT_EQ(s.new_users, 5);
  EXPECT_EQ(s.user_features, 5);
  EXPECT_EQ(s.user_edges, 10);  // two edges per new user, their rows only
  EXPECT_EQ(s.user_graph_how, "file");
  EXPECT_EQ(plain.new_ratings().user_edges, 0);

  const Dataset& ds = full.dataset();
  ASSERT_EQ(ds.users.features.rows, 30);
  for (int64_t u = 25; u < 30; ++u) {
    const int number = std::stoi(ds.users.id_of(u).substr(1));
    EXPECT_EQ(ds.users.features.values[static_cast<size_t>(u * 2)], number % 2 == 0 ? 1.0f : 0.0f);
    EXPECT_EQ(plain.dataset().users.features.values[static_cast<size_t>(u * 2)], 0.0f);  // zeros without
  }
  // The trained rows are the same edges in both; the new rows gather from trained users.
  std::set<std::pair<int64_t, int64_t>> trained_plain, trained_full;
  for (size_t e = 0; e < plain.dataset().users.graph.size(); ++e)
    trained_plain.emplace(plain.dataset().users.graph.src[e], plain.dataset().users.graph.dst[e]);
  for (size_t e = 0; e < ds.users.graph.size(); ++e) {
    if (ds.users.graph.src[e] < 25)
      trained_full.emplace(ds.users.graph.src[e], ds.users.graph.dst[e]);
    else
      EXPECT_LT(ds.users.graph.dst[e], 25);
  }
  EXPECT_EQ(trained_plain, trained_full);
}

TEST(NewNodeGraphs, EdgesMoveTheNewUsersPredictionsAndNoTrainedUsers) {
  const GraphFixture& f = graph_fixture();
  const TrainedModel without = TrainedModel::load(f.dir + "/run", "cpu", f.nodes(false, true));
  const TrainedModel with = TrainedModel::load(f.dir + "/run", "cpu", f.nodes(true, true));
  const std::vector<float> a = all_scores(without, 0, 25), b = all_scores(with, 0, 25);
  ASSERT_EQ(a.size(), b.size());
  for (size_t k = 0; k < a.size(); ++k) EXPECT_FLOAT_EQ(a[k], b[k]) << k;
  const std::vector<float> na = all_scores(without, 25, 30), nb = all_scores(with, 25, 30);
  double moved = 0;
  for (size_t k = 0; k < na.size(); ++k)
    moved = std::max(moved, static_cast<double>(std::abs(na[k] - nb[k])));
  EXPECT_GT(moved, 1e-4);
}

TEST(NewNodeGraphs, FilesTheModelCannotUseAreErrorsNamingThem) {
  const GraphFixture& f = graph_fixture();
  NewNodeFiles n = f.nodes(false, false);
  symgnn::testing::write_file(f.dir, "unknown_edge.csv", "u25,u1\nu3,nobody\n");
  n.user_graph_file = f.dir + "/unknown_edge.csv";
  std::string e = error_of<DataError>(n);
  EXPECT_NE(e.find("unknown_edge.csv"), std::string::npos) << e;

  // A self-loop: the line, and no training key (data.graph_self_loops reads the training files).
  n = f.nodes(false, false);
  symgnn::testing::write_file(f.dir, "loop.csv", "u25,u1\nu25,u25\n");
  n.user_graph_file = f.dir + "/loop.csv";
  e = error_of<DataError>(n);
  EXPECT_NE(e.find("loop.csv:2: self-loop ('u25', 'u25')"), std::string::npos) << e;
  EXPECT_EQ(e.find("data.graph_self_loops"), std::string::npos) << e;

  n = f.nodes(false, false);
  symgnn::testing::write_file(f.dir, "wide.csv", "u25,1,0,0\nu26,0,1,0\nu27,1,0,0\nu28,0,1,0\nu29,1,0,0\n");
  n.user_features_file = f.dir + "/wide.csv";
  e = error_of<DataError>(n);
  EXPECT_NE(e.find("wide.csv: 3 feature column(s)"), std::string::npos) << e;

  n = f.nodes(false, false);
  symgnn::testing::write_file(f.dir, "trained_row.csv", "u25,1,0\nu3,0,1\n");
  n.user_features_file = f.dir + "/trained_row.csv";
  e = error_of<DataError>(n);
  EXPECT_NE(e.find("trained_row.csv:2"), std::string::npos) << e;

  n = f.nodes(false, false);
  symgnn::testing::write_file(f.dir, "item_edges.csv", "i1,i2\n");
  n.item_graph_file = f.dir + "/item_edges.csv";
  e = error_of<ConfigError>(n);
  EXPECT_NE(e.find("item_edges.csv: the model's item graph is the identity"), std::string::npos) << e;

  n = f.nodes(false, false);
  n.item_features_file = f.dir + "/held_features.csv";
  e = error_of<ConfigError>(n);
  EXPECT_NE(e.find("the model's items have no side features"), std::string::npos) << e;
}

TEST(NewNodeGraphs, EdgesAndFeatureRowsInMemoryEqualTheFiles) {
  const GraphFixture& f = graph_fixture();
  const TrainedModel from_files = TrainedModel::load(f.dir + "/run", "cpu", f.nodes(true, true));
  // The same edges and features as values (no file written), on the model in memory.
  const TrainedModel trained = TrainedModel::load(f.dir + "/run");
  NewNodeFiles ratings;
  ratings.ratings = f.dir + "/held.csv";
  NewNodes rows = infer::read_new_node_files(ratings, trained.dataset());
  for (int u = 25; u < 30; ++u) {
    const std::string id = "u" + std::to_string(u);
    rows.rows.edges.push_back({id, "u" + std::to_string(u - 6), 1.0});
    rows.rows.edges.push_back({id, "u" + std::to_string(u - 8), 1.0});
    rows.rows.features.push_back({id, {u % 2 == 0 ? 1.0 : 0.0, u % 2 == 0 ? 0.0 : 1.0}});
  }
  const TrainedModel in_memory = trained.with_new_nodes(rows);
  EXPECT_EQ(in_memory.new_ratings().user_edges, from_files.new_ratings().user_edges);
  EXPECT_EQ(in_memory.new_ratings().user_features, 5);
  const std::vector<float> a = all_scores(from_files, 0, from_files.users()),
                           b = all_scores(in_memory, 0, in_memory.users());
  ASSERT_EQ(a.size(), b.size());
  for (size_t k = 0; k < a.size(); ++k) ASSERT_NEAR(a[k], b[k], 1e-5 * (1 + std::abs(a[k]))) << k;
  // Bad rows: one line naming the rows as given, by the files' reader.
  const auto error = [&](const NewNodes& n) -> std::string {
    try {
      trained.with_new_nodes(n);
    } catch (const Error& e) {
      return e.what();
    }
    return "no error";
  };
  NewNodes bad = rows;
  bad.rows.edges_name = "edges";
  bad.rows.edges.push_back({"u26", "nobody", 1.0});
  EXPECT_NE(error(bad).find("edges:11: "), std::string::npos) << error(bad);
  bad = rows;
  bad.rows.features_name = "features";
  bad.rows.features[2].values.push_back(3.0);
  EXPECT_NE(error(bad).find("features"), std::string::npos) << error(bad);
  bad = rows;
  bad.rows.edges[0].a = "u\t25";
  EXPECT_NE(error(bad).find("new edges[0]: node id "), std::string::npos) << error(bad);
  EXPECT_NE(error(bad).find("holds a tab, which the files symgnn reads and writes cannot hold"),
            std::string::npos)
      << error(bad);
}

TEST(NewNodeGraphs, EdgesBetweenTrainedUsersAreGraphEditsOfTheLoadedModel) {
  const GraphFixture& f = graph_fixture();
  // The new users' edges and a follow between two trained users (u3, u10), in one file.
  symgnn::testing::write_file(f.dir, "mixed_edges.csv", "u25,u19\nu26,u20\nu3,u10,2\n");
  symgnn::testing::write_file(f.dir, "new_only_edges.csv", "u25,u19\nu26,u20\n");
  NewNodeFiles mixed = f.nodes(false, true), new_only = f.nodes(false, true);
  mixed.user_graph_file = f.dir + "/mixed_edges.csv";
  new_only.user_graph_file = f.dir + "/new_only_edges.csv";
  const TrainedModel loaded = TrainedModel::load(f.dir + "/run", "cpu", mixed);
  EXPECT_GT(loaded.new_ratings().user_edits, 0);
  // As the model loaded with the new users' edges alone, then edited (apply_graph_edits).
  const TrainedModel edited = apply_graph_edits(TrainedModel::load(f.dir + "/run", "cpu", new_only),
                                                {graph_edit("user", "add", "u3", "u10", 2.0)});
  ASSERT_EQ(loaded.users(), edited.users());
  const std::vector<float> a = all_scores(loaded, 0, 30), b = all_scores(edited, 0, 30);
  ASSERT_EQ(a.size(), b.size());
  for (size_t k = 0; k < a.size(); ++k) EXPECT_NEAR(a[k], b[k], 1e-5 * (1 + std::abs(b[k]))) << k;
  // And the follow moved the trained users' predictions: the graph was edited.
  const TrainedModel plain = TrainedModel::load(f.dir + "/run", "cpu", new_only);
  const std::vector<float> c = all_scores(plain, 0, 25), d = all_scores(loaded, 0, 25);
  double moved = 0;
  for (size_t k = 0; k < c.size(); ++k) moved = std::max(moved, static_cast<double>(std::abs(c[k] - d[k])));
  EXPECT_GT(moved, 1e-4);
}
