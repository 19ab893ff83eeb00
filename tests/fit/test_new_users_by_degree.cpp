// evaluate --protocol new-users by slices of graph degree (fit/new_users_by_degree.h): the
// degree counted against a brute-force count, and on a small set built here whose user graph
// puts users in every slice, the slices adding up to the whole: users, scored ratings, and
// the sums behind each figure (squared errors, absolute errors, the ranking's per-user means).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <set>
#include <sstream>

#include "common/test_support.h"
#include "fit/new_users_protocol.h"
#include "symgnn/config.h"
#include "symgnn/dataset.h"
#include "symgnn/metrics.h"
#include "symgnn/ranking.h"

namespace {

using symgnn::fitting::DegreeSlice;

/// 60 users x 30 items; user graph by u % 3: 0 none (degree 0), 1 two edges to users of
/// the third group (degree 2), 2 a clique of that group (degree 19 and more). Returns the
/// config, its data written under a scratch folder; `degree` gets each user's neighbours.
symgnn::RunConfig sliced_set(std::vector<int64_t>& degree) {
  const std::string dir = symgnn::testing::scratch_dir("new_users_by_degree");
  std::mt19937 gen(3);
  std::uniform_real_distribution<double> coin(0, 1);
  std::ostringstream ratings, edges;
  ratings << "user,item,rating\n";
  for (int u = 0; u < 60; ++u)
    for (int i = 0; i < 30; ++i)
      if (coin(gen) < 0.4)
        ratings << "u" << u << ",i" << i << "," << ((u + i) % 2 == 0 ? 4 + i % 2 : 1 + u % 3) << "\n";
  std::set<std::pair<int, int>> pairs;  // each undirected edge once
  for (int u = 2; u < 60; u += 3)
    for (int v = u + 3; v < 60; v += 3) pairs.insert({u, v});
  for (int u = 1; u < 60; u += 3) pairs.insert({u, u + 1}), pairs.insert({u, (u + 4) % 60});
  degree.assign(60, 0);
  for (const auto& [a, b] : pairs) {
    edges << "u" << a << ",u" << b << "\n";
    ++degree[static_cast<size_t>(a)], ++degree[static_cast<size_t>(b)];
  }
  symgnn::RunConfig cfg;
  cfg.model = "lowrank";
  cfg.data.source = symgnn::testing::write_file(dir, "ratings.csv", ratings.str());
  cfg.data.user_graph_file = symgnn::testing::write_file(dir, "edges.csv", edges.str());
  cfg.data.val_fraction = 0.1;
  cfg.graph.user_graph = "file";
  cfg.graph.item_graph = "identity";
  cfg.lowrank.hidden = 8;
  cfg.lowrank.layers = 2;
  cfg.lowrank.prior = "encoder";
  cfg.lowrank.prior_width = 16;
  cfg.train.epochs = 15;
  cfg.train.lr = 0.02;
  cfg.train.runs = 1;
  return cfg;
}

/// The slices of `field` pool to `whole`: counts add up, and so do the squared and absolute
/// errors and the sums of the per-user ranking means; coverage (distinct items over every
/// list) lies between the largest slice's and their sum.
void expect_pooled(const std::vector<DegreeSlice>& slices, symgnn::Evaluation DegreeSlice::*field,
                   const symgnn::Evaluation& whole) {
  int64_t ratings = 0, ranked = 0;
  double squared = 0, absolute = 0;
  for (const DegreeSlice& d : slices) {
    if (d.users == 0) continue;
    const symgnn::Evaluation& e = d.*field;
    EXPECT_EQ(e.test_ratings, d.scored_ratings) << d.label;
    ratings += e.test_ratings;
    ranked += e.ranking.users_evaluated;
    squared += std::pow(e.errors.at("rmse"), 2) * static_cast<double>(e.test_ratings);
    absolute += e.errors.at("mae") * static_cast<double>(e.test_ratings);
  }
  const auto n = static_cast<double>(whole.test_ratings);
  EXPECT_EQ(ratings, whole.test_ratings);
  EXPECT_EQ(ranked, whole.ranking.users_evaluated);
  EXPECT_NEAR(squared, std::pow(whole.errors.at("rmse"), 2) * n, 1e-6 * n);
  EXPECT_NEAR(absolute, whole.errors.at("mae") * n, 1e-6 * n);
  for (size_t k = 0; k < whole.ranking.at_k.size(); ++k) {
    for (const symgnn::MetricRow& m : symgnn::kMetrics) {
      if (m.needs != symgnn::MetricNeeds::ranking) continue;
      double sum = 0, largest = 0;
      for (const DegreeSlice& d : slices) {
        if (d.users == 0 || (d.*field).ranking.users_evaluated == 0) continue;
        const double v = symgnn::eval::metric_value((d.*field).ranking.at_k[k], m.name);
        sum += std::string(m.name) == "coverage"
                   ? v
                   : v * static_cast<double>((d.*field).ranking.users_evaluated);
        largest = std::max(largest, v);
      }
      const double all = symgnn::eval::metric_value(whole.ranking.at_k[k], m.name);
      if (std::string(m.name) == "coverage") {
        EXPECT_LE(largest, all + 1e-9);
        EXPECT_LE(all, sum + 1e-9);
      } else {
        EXPECT_NEAR(sum, all * static_cast<double>(whole.ranking.users_evaluated), 1e-6)
            << m.name << "@" << k;
      }
    }
  }
}

}  // namespace

TEST(NewUsersByDegree, NeighbourCountsMatchABruteForceCount) {
  EXPECT_EQ(symgnn::fitting::degree_slice(0), 0u);
  EXPECT_EQ(symgnn::fitting::degree_slice(1), 1u);
  EXPECT_EQ(symgnn::fitting::degree_slice(5), 1u);
  EXPECT_EQ(symgnn::fitting::degree_slice(6), 2u);
  std::mt19937 gen(11);
  for (int trial = 0; trial < 50; ++trial) {
    // Random rows with repeated entries, self-loops and entries without their twin (a node
    // added after the fit has a row that nothing gathers from).
    const int n = 1 + trial % 25;
    std::uniform_int_distribution<int> node(0, n - 1);
    symgnn::EdgeList g;
    g.num_nodes = n;
    for (int e = 0; e < 3 * n; ++e) g.add(node(gen), node(gen), 1.0f);
    std::vector<std::vector<char>> dense(static_cast<size_t>(n),
                                         std::vector<char>(static_cast<size_t>(n), 0));
    for (size_t e = 0; e < g.size(); ++e)
      dense[static_cast<size_t>(g.src[e])][static_cast<size_t>(g.dst[e])] = 1;
    const std::vector<int64_t> counted = symgnn::fitting::neighbour_counts(g);
    ASSERT_EQ(counted.size(), static_cast<size_t>(n));
    for (int u = 0; u < n; ++u) {
      int64_t expected = 0;
      for (int v = 0; v < n; ++v) expected += v != u && dense[static_cast<size_t>(u)][static_cast<size_t>(v)];
      EXPECT_EQ(counted[static_cast<size_t>(u)], expected) << "trial " << trial << ", node " << u;
    }
  }
}

TEST(NewUsersByDegree, SlicesAddUpToTheWhole) {
  std::vector<int64_t> degree;
  const symgnn::RunConfig cfg = sliced_set(degree);
  symgnn::fitting::NewUsersProtocol p;
  p.hold_out = 0.3;
  p.fold_in = 0.7;
  p.seed = 5;
  p.eval.ks = {5, 10};
  const symgnn::fitting::NewUsersReport r = symgnn::fitting::evaluate_new_users(cfg, p, nullptr);
  ASSERT_TRUE(r.by_degree_note.empty()) << r.by_degree_note;
  ASSERT_EQ(r.by_degree.size(), 3u);
  EXPECT_EQ(r.by_degree[0].label, "0");
  EXPECT_EQ(r.by_degree[1].label, "1-5");
  EXPECT_EQ(r.by_degree[2].label, ">5");

  // Each held-out user in the slice of the degree the set was built with (by id: the
  // loader numbers the users its own way).
  const symgnn::Dataset ds = symgnn::load_dataset(cfg.data);
  std::vector<int64_t> expected(3, 0);
  for (const int64_t u : r.held_out_users)
    ++expected[symgnn::fitting::degree_slice(degree.at(std::stoul(ds.users.id_of(u).substr(1))))];
  int64_t users = 0, scored = 0;
  for (size_t s = 0; s < 3; ++s) {
    EXPECT_EQ(r.by_degree[s].users, expected[s]) << r.by_degree[s].label;
    EXPECT_GT(r.by_degree[s].users, 0) << r.by_degree[s].label;  // the set puts users in every slice
    users += r.by_degree[s].users;
    scored += r.by_degree[s].scored_ratings;
  }
  EXPECT_EQ(users, r.held_out);
  EXPECT_EQ(scored, r.scored_ratings);
  expect_pooled(r.by_degree, &DegreeSlice::model, r.model);
  ASSERT_TRUE(r.has_ease);
  expect_pooled(r.by_degree, &DegreeSlice::ease, r.ease);
}
