// The graphs' neighbour members (models/baseline/neighbour_residuals.h) against a brute
// force over every rating and edge: pairs, whole rows, and the graph read from At.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <set>

#include "models/baseline/neighbour_residuals.h"
#include "symgnn/graph.h"

namespace sm = symgnn::models;

namespace {

struct Small {
  symgnn::RatingList ratings;
  sm::Biases b;
  std::set<std::pair<int64_t, int64_t>> user_edges, item_edges;  // both directions
  int64_t n1 = 25, n2 = 30;
};

Small make_small(uint32_t seed) {
  Small s;
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> unit(0, 1);
  for (int64_t u = 0; u < s.n1; ++u)
    for (int64_t i = 0; i < s.n2; ++i)
      if (unit(rng) < 0.3) s.ratings.add(u, i, static_cast<float>(1 + std::floor(unit(rng) * 5)));
  s.b.mu = 3.1;
  for (int64_t u = 0; u < s.n1; ++u) s.b.user.push_back(unit(rng) - 0.5);
  for (int64_t i = 0; i < s.n2; ++i) s.b.item.push_back(unit(rng) - 0.5);
  for (int k = 0; k < 60; ++k) {
    const auto u = static_cast<int64_t>(unit(rng) * s.n1), v = static_cast<int64_t>(unit(rng) * s.n1);
    if (u != v) s.user_edges.insert({u, v}), s.user_edges.insert({v, u});
    const auto i = static_cast<int64_t>(unit(rng) * s.n2), j = static_cast<int64_t>(unit(rng) * s.n2);
    if (i != j) s.item_edges.insert({i, j}), s.item_edges.insert({j, i});
  }
  return s;
}

sm::NeighbourGraph graph_of(const std::set<std::pair<int64_t, int64_t>>& edges, int64_t n) {
  sm::NeighbourGraph g;
  g.ptr.assign(static_cast<size_t>(n) + 1, 0);
  for (const auto& [a, b] : edges) ++g.ptr[static_cast<size_t>(a) + 1];
  for (size_t k = 1; k < g.ptr.size(); ++k) g.ptr[k] += g.ptr[k - 1];
  for (const auto& [a, b] : edges) g.idx.push_back(b);  // the set is ordered by (a, b)
  return g;
}

/// The residual of (u, i), or NaN where u did not rate i.
double residual(const Small& s, int64_t u, int64_t i) {
  for (size_t k = 0; k < s.ratings.size(); ++k)
    if (s.ratings.user[k] == u && s.ratings.item[k] == i) return s.ratings.value[k] - s.b.predict(u, i);
  return std::nan("");
}

}  // namespace

TEST(NeighbourResiduals, PairsAndRowsAreTheShrunkMeansOfTheNeighboursResiduals) {
  const Small s = make_small(7);
  const sm::NeighbourResiduals idx(s.ratings, s.b, graph_of(s.user_edges, s.n1),
                                   graph_of(s.item_edges, s.n2));
  const double lu = 2.0, li = 5.0;
  const sm::NeighbourWeights w{0.7, lu, 0.4, li};
  int covered = 0;
  for (int64_t u = 0; u < s.n1; ++u) {
    std::vector<float> row(static_cast<size_t>(s.n2), 0.0f);
    idx.add_row(u, w, row.data(), s.n2);
    for (int64_t i = 0; i < s.n2; ++i) {
      double us = 0, uc = 0, is = 0, ic = 0;
      for (const auto& [a, v] : s.user_edges)
        if (a == u)
          if (const double r = residual(s, v, i); !std::isnan(r)) us += r, uc += 1;
      for (const auto& [a, j] : s.item_edges)
        if (a == i)
          if (const double r = residual(s, u, j); !std::isnan(r)) is += r, ic += 1;
      const sm::NeighbourSum pu = idx.user_sum(u, i), pi = idx.item_sum(u, i);
      EXPECT_NEAR(pu.sum, us, 1e-9);
      EXPECT_EQ(pu.count, uc);
      EXPECT_NEAR(pi.sum, is, 1e-9);
      EXPECT_EQ(pi.count, ic);
      const double want = (uc > 0 ? 0.7 * us / (lu + uc) : 0.0) + (ic > 0 ? 0.4 * is / (li + ic) : 0.0);
      EXPECT_NEAR(row[static_cast<size_t>(i)], want, 1e-5) << u << "," << i;
      covered += uc > 0 && ic > 0;
    }
  }
  EXPECT_GT(covered, 20);  // the check covered pairs with both members
}

TEST(NeighbourResiduals, TheGraphIsAtsOffDiagonalPatternAndTheIdentityHasNone) {
  symgnn::NodeSet side;
  side.count = 5;
  side.graph.num_nodes = 5;
  // Both directions, as the loaders store an edge (symgnn/dataset.h's EdgeList).
  side.graph.add(0, 1, 2.0f);
  side.graph.add(1, 0, 2.0f);
  side.graph.add(3, 3, 1.0f);  // a self-loop is no neighbour
  side.graph.add(2, 4, 0.5f);
  side.graph.add(4, 2, 0.5f);
  side.graph_origin = symgnn::GraphOrigin::File;
  const sm::NeighbourGraph g = sm::neighbour_graph(symgnn::graph::normalized_adjacency(side));
  ASSERT_EQ(g.nodes(), 5);
  const std::vector<int64_t> want_ptr = {0, 1, 2, 3, 3, 4}, want_idx = {1, 0, 4, 2};
  EXPECT_EQ(g.ptr, want_ptr);
  EXPECT_EQ(g.idx, want_idx);
  symgnn::NodeSet none;
  none.count = 5;
  none.graph.num_nodes = 5;
  none.graph_origin = symgnn::GraphOrigin::Identity;
  const sm::NeighbourGraph e = sm::neighbour_graph(symgnn::graph::normalized_adjacency(none));
  EXPECT_EQ(e.nodes(), 5);
  EXPECT_TRUE(e.empty());
}

TEST(NeighbourResiduals, NodesBeyondTheIndexHaveNoTerm) {
  const Small s = make_small(3);
  const sm::NeighbourResiduals idx(s.ratings, s.b, graph_of(s.user_edges, s.n1),
                                   graph_of(s.item_edges, s.n2));
  EXPECT_EQ(idx.user_sum(s.n1 + 3, 0).count, 0);
  EXPECT_EQ(idx.item_sum(0, s.n2 + 3).count, 0);
  std::vector<float> row(static_cast<size_t>(s.n2) + 5, 0.0f);
  idx.add_row(s.n1 + 1, sm::NeighbourWeights{1, 1, 1, 1}, row.data(), s.n2 + 5);
  for (const float v : row) EXPECT_EQ(v, 0.0f);
}

TEST(NeighbourResiduals, ADirectedGraphsMemberReadsItsLinksOneWayAndRowsAgreeWithPairs) {
  // One-way links over the small set's nodes: out reads u -> v as given, in reads them
  // reversed, both reads the symmetric graph (At's pattern); a row (add_row) agrees with the
  // pairs in each direction, the item side's included (a row gathers from the items rated).
  const Small s = make_small(5);
  std::mt19937 rng(9);
  const auto side_of = [&](int64_t n, std::set<std::pair<int64_t, int64_t>>& links) {
    symgnn::NodeSet side;
    side.count = n;
    side.graph.num_nodes = side.directed.num_nodes = n;
    side.graph_origin = symgnn::GraphOrigin::File;
    std::set<std::pair<int64_t, int64_t>> both;
    for (int k = 0; k < 3 * static_cast<int>(n); ++k) {
      const auto a = static_cast<int64_t>(rng() % n), b = static_cast<int64_t>(rng() % n);
      if (a == b || links.count({b, a})) continue;  // one way only
      links.insert({a, b});
      both.insert({a, b}), both.insert({b, a});
    }
    for (const auto& [a, b] : links) side.directed.add(a, b, 1.0f);
    for (const auto& [a, b] : both) side.graph.add(a, b, 1.0f);
    return side;
  };
  std::set<std::pair<int64_t, int64_t>> user_links, item_links;
  const symgnn::NodeSet users = side_of(s.n1, user_links), items = side_of(s.n2, item_links);
  const auto reversed = [](const std::set<std::pair<int64_t, int64_t>>& l) {
    std::set<std::pair<int64_t, int64_t>> r;
    for (const auto& [a, b] : l) r.insert({b, a});
    return r;
  };
  const auto at1 = symgnn::graph::normalized_adjacency(users),
             at2 = symgnn::graph::normalized_adjacency(items);
  const auto l1 = symgnn::graph::directed_links(users), l2 = symgnn::graph::directed_links(items);
  ASSERT_TRUE(l1.row_ptr.defined());
  for (const sm::LinkDirection d : {sm::LinkDirection::out, sm::LinkDirection::in, sm::LinkDirection::both}) {
    SCOPED_TRACE(symgnn::to_string(d));
    std::set<std::pair<int64_t, int64_t>> want_users = user_links, want_items = item_links;
    if (d == sm::LinkDirection::in) want_users = reversed(user_links), want_items = reversed(item_links);
    if (d == sm::LinkDirection::both)
      for (const auto& e : reversed(user_links)) want_users.insert(e);
    if (d == sm::LinkDirection::both)
      for (const auto& e : reversed(item_links)) want_items.insert(e);
    const sm::NeighbourGraph gu = sm::neighbour_graph(at1, l1, d), gi = sm::neighbour_graph(at2, l2, d);
    const sm::NeighbourGraph wu = graph_of(want_users, s.n1), wi = graph_of(want_items, s.n2);
    EXPECT_EQ(gu.ptr, wu.ptr);
    EXPECT_EQ(gu.idx, wu.idx);
    EXPECT_EQ(gi.ptr, wi.ptr);
    EXPECT_EQ(gi.idx, wi.idx);
    const sm::NeighbourResiduals idx(s.ratings, s.b, gu, gi);
    const sm::NeighbourWeights w{0.6, 2.0, 0.5, 3.0};
    for (int64_t u = 0; u < s.n1; ++u) {
      std::vector<float> row(static_cast<size_t>(s.n2), 0.0f);
      idx.add_row(u, w, row.data(), s.n2);
      for (int64_t i = 0; i < s.n2; ++i) {
        const sm::NeighbourSum pu = idx.user_sum(u, i), pi = idx.item_sum(u, i);
        EXPECT_NEAR(row[static_cast<size_t>(i)], pu.term(2.0) * 0.6 + pi.term(3.0) * 0.5, 1e-5)
            << u << "," << i;
      }
    }
  }
  // An undirected graph has no links: every direction reads At.
  symgnn::NodeSet plain = users;
  plain.directed = symgnn::EdgeList{};
  EXPECT_FALSE(symgnn::graph::directed_links(plain).row_ptr.defined());
  EXPECT_EQ(sm::neighbour_graph(at1, symgnn::graph::directed_links(plain), sm::LinkDirection::out).idx,
            sm::neighbour_graph(at1).idx);
}
