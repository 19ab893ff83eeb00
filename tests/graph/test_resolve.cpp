// Tests of src/graph/resolve.cpp: each graph.{user,item}_graph policy and its errors, on a
// small Dataset filled by hand (no loaders).
#include <gtest/gtest.h>
#include <torch/types.h>

#include <string>
#include <vector>

#include "symgnn/config.h"
#include "symgnn/error.h"
#include "symgnn/graph.h"

namespace symgnn::graph {
namespace {

/// 6 users with a file graph and 2-D features; 5 items with neither. Ratings: train on
/// a pattern with two user groups; validation and test ratings that would change the
/// rating-vector k-NN graph if they leaked into it.
Dataset small_dataset() {
  Dataset ds;
  ds.name = "tiny";
  ds.users.count = 6;
  ds.users.graph.num_nodes = 6;
  ds.users.graph_origin = GraphOrigin::File;
  for (int64_t u = 0; u + 1 < 6; ++u) {
    ds.users.graph.add(u, u + 1, 1.0f);
    ds.users.graph.add(u + 1, u, 1.0f);
  }
  ds.users.features.rows = 6;
  ds.users.features.cols = 2;
  ds.users.features.values = {1, 0, 1, 0.1f, 0.9f, 0, 0, 1, 0.1f, 1, 0, 0.8f};
  ds.items.count = 5;
  ds.items.graph.num_nodes = 5;
  ds.items.graph_origin = GraphOrigin::None;
  const float r[6][5] = {{5, 4, 0, 0, 1}, {4, 5, 0, 1, 0}, {5, 0, 1, 0, 0},
                         {0, 1, 5, 4, 0}, {1, 0, 4, 5, 0}, {0, 0, 5, 0, 4}};
  for (int64_t u = 0; u < 6; ++u)
    for (int64_t i = 0; i < 5; ++i)
      if (r[u][i] > 0) ds.train.add(u, i, r[u][i]);
  ds.validation.add(0, 2, 5.0f);
  ds.validation.add(0, 3, 5.0f);
  ds.test.add(2, 3, 5.0f);
  ds.test.add(5, 1, 5.0f);
  ds.rating_min = 1;
  ds.rating_max = 5;
  return ds;
}

GraphConfig config(const std::string& user, const std::string& item) {
  GraphConfig cfg;
  cfg.user_graph = user;
  cfg.item_graph = item;
  cfg.knn_k = 2;
  return cfg;
}

at::Tensor train_matrix(const Dataset& ds) {
  auto h = torch::zeros({ds.users.count, ds.items.count});
  for (size_t e = 0; e < ds.train.size(); ++e) h[ds.train.user[e]][ds.train.item[e]] = ds.train.value[e];
  return h;
}

void expect_same_graph(const EdgeList& a, const EdgeList& b) {
  EXPECT_EQ(a.num_nodes, b.num_nodes);
  EXPECT_EQ(a.src, b.src);
  EXPECT_EQ(a.dst, b.dst);
  EXPECT_EQ(a.weight, b.weight);
}

TEST(ResolveGraphs, AutoKeepsFileGraphAndWarnsOnIdentity) {
  Dataset ds = small_dataset();
  const EdgeList file_graph = ds.users.graph;
  ::testing::internal::CaptureStderr();
  const std::vector<std::string> notes = resolve_graphs(ds, config("auto", "auto"));
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");  // said to the caller, not printed
  EXPECT_EQ(ds.users.graph_origin, GraphOrigin::File);
  expect_same_graph(ds.users.graph, file_graph);
  EXPECT_EQ(ds.items.graph_origin, GraphOrigin::Identity);
  EXPECT_EQ(ds.items.graph.size(), 0u);
  EXPECT_EQ(ds.items.graph.num_nodes, 5);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0], "warning: tiny: no item graph in the file; using the identity (graph.item_graph=auto)");
}

TEST(ResolveGraphs, AutoBuildsKnnFromFeaturesWhenNoFileGraph) {
  Dataset ds = small_dataset();
  ds.users.graph = EdgeList{};
  ds.users.graph_origin = GraphOrigin::None;
  const std::vector<std::string> notes = resolve_graphs(ds, config("auto", "identity"));
  EXPECT_EQ(ds.users.graph_origin, GraphOrigin::Knn);
  const auto f = torch::tensor(ds.users.features.values).view({6, 2});
  expect_same_graph(ds.users.graph, knn_graph(f, 2));
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("2-NN graph of the user features"), std::string::npos) << notes[0];
}

TEST(ResolveGraphs, FilePolicyRequiresAFileGraph) {
  Dataset ds = small_dataset();
  EXPECT_NO_THROW(resolve_graphs(ds, config("file", "identity")));
  EXPECT_EQ(ds.users.graph_origin, GraphOrigin::File);
  Dataset missing = small_dataset();
  try {
    resolve_graphs(missing, config("file", "file"));
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("graph.item_graph = file"), std::string::npos) << e.what();
  }
}

TEST(ResolveGraphs, KnnFromFeatures) {
  Dataset ds = small_dataset();
  resolve_graphs(ds, config("knn", "identity"));
  EXPECT_EQ(ds.users.graph_origin, GraphOrigin::Knn);
  expect_same_graph(ds.users.graph, knn_graph(torch::tensor(ds.users.features.values).view({6, 2}), 2));
}

TEST(ResolveGraphs, KnnWithoutFeaturesPointsToRatings) {
  Dataset ds = small_dataset();
  try {
    resolve_graphs(ds, config("file", "knn"));
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("graph.item_graph = knn"), std::string::npos) << what;
    EXPECT_NE(what.find("graph.knn_source = ratings"), std::string::npos) << what;
  }
}

TEST(ResolveGraphs, KnnFromTrainingRatingsOnly) {
  Dataset ds = small_dataset();
  GraphConfig cfg = config("knn", "knn");
  cfg.knn_source = "ratings";
  resolve_graphs(ds, cfg);
  const auto h = train_matrix(ds);
  EXPECT_EQ(ds.users.graph_origin, GraphOrigin::Knn);
  EXPECT_EQ(ds.items.graph_origin, GraphOrigin::Knn);
  expect_same_graph(ds.users.graph, knn_graph(h, 2));
  expect_same_graph(ds.items.graph, knn_graph(h.t().contiguous(), 2));
  // Including validation and test ratings would give other graphs: they must not leak.
  auto leaked = h.clone();
  leaked[0][2] = 5;
  leaked[0][3] = 5;
  leaked[2][3] = 5;
  leaked[5][1] = 5;
  const EdgeList with_leak = knn_graph(leaked, 2);
  EXPECT_FALSE(with_leak.src == ds.users.graph.src && with_leak.dst == ds.users.graph.dst);
}

TEST(ResolveGraphs, AutoHonoursRatingRowNeighbours) {
  // With knn_source = ratings, "auto" keeps a file graph and builds the missing one from
  // the training rating rows (not from features, not the identity).
  Dataset ds = small_dataset();
  const EdgeList file_graph = ds.users.graph;
  GraphConfig cfg = config("auto", "auto");
  cfg.knn_source = "ratings";
  const std::vector<std::string> notes = resolve_graphs(ds, cfg);
  EXPECT_EQ(ds.users.graph_origin, GraphOrigin::File);
  expect_same_graph(ds.users.graph, file_graph);
  EXPECT_EQ(ds.items.graph_origin, GraphOrigin::Knn);
  expect_same_graph(ds.items.graph, knn_graph(train_matrix(ds).t().contiguous(), 2));
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("training rating rows"), std::string::npos) << notes[0];
}

TEST(ResolveGraphs, IdentityReplacesAFileGraphForTheModels) {
  // A user graph from a file stays for the lists and the people (NodeSet::links_only) while
  // every model reads the identity; another side's graph is dropped.
  Dataset ds = small_dataset();
  const size_t edges = ds.users.graph.size();
  ASSERT_GT(edges, 0u);
  resolve_graphs(ds, config("identity", "identity"));
  EXPECT_EQ(ds.users.graph_origin, GraphOrigin::File);
  EXPECT_TRUE(ds.users.links_only);
  EXPECT_EQ(ds.users.graph.size(), edges);
  EXPECT_TRUE(normalized_adjacency(ds.users).identity);
  EXPECT_EQ(ds.items.graph_origin, GraphOrigin::Identity);
  EXPECT_EQ(ds.items.graph.size(), 0u);
  EXPECT_TRUE(normalized_adjacency(ds.items).identity);
}

TEST(ResolveGraphs, RejectsUnknownPolicyAndBadFeatures) {
  Dataset ds = small_dataset();
  EXPECT_THROW(resolve_graphs(ds, config("magic", "auto")), ConfigError);
  Dataset bad = small_dataset();
  bad.users.features.values.pop_back();
  EXPECT_THROW(resolve_graphs(bad, config("knn", "identity")), DataError);
}

}  // namespace
}  // namespace symgnn::graph
