// make_context on a tiny hand-built Dataset: graphs, features, per-class priors, statistics.
#include <gtest/gtest.h>
#include <torch/types.h>

#include <algorithm>
#include <cmath>

#include "lowrank_test_util.h"
#include "symgnn/error.h"
#include "symgnn/model.h"

namespace symgnn::models {
namespace {

Dataset hand_built() {
  Dataset ds;
  ds.name = "hand";
  ds.users.count = 3;
  ds.items.count = 4;
  // Users: a path 0 - 1 - 2 from a file; items: identity.
  ds.users.graph.num_nodes = 3;
  for (auto [a, b] : {std::pair<int64_t, int64_t>{0, 1}, {1, 2}}) {
    ds.users.graph.add(a, b, 1.0f);
    ds.users.graph.add(b, a, 1.0f);
  }
  ds.users.graph_origin = GraphOrigin::File;
  ds.items.graph_origin = GraphOrigin::Identity;
  ds.users.features.rows = 3;
  ds.users.features.cols = 2;
  ds.users.features.values = {1, 2, 3, 4, 5, 6};
  ds.train.add(0, 0, 1.0f);
  ds.train.add(0, 3, 2.0f);
  ds.train.add(1, 1, 2.0f);
  ds.train.add(2, 2, 3.0f);
  ds.validation.add(2, 3, 1.0f);  // never in the prior
  ds.rating_levels = {1, 2, 3};
  ds.rating_min = 1;
  ds.rating_max = 3;
  return ds;
}

TEST(LowRankContext, BuildsGraphsFeaturesPriorsAndStatistics) {
  const ModelContext ctx = make_context(hand_built());
  EXPECT_EQ(ctx.n1, 3);
  EXPECT_EQ(ctx.n2, 4);
  const double s = 1 / std::sqrt(2.0);
  const at::Tensor at1 = torch::tensor({0.0, s, 0.0, s, 0.0, s, 0.0, s, 0.0}, torch::kDouble).reshape({3, 3});
  EXPECT_TRUE(torch::allclose(ctx.at1.to_dense().to(torch::kDouble), at1, 1e-6, 1e-6)) << ctx.at1.to_dense();
  EXPECT_TRUE(ctx.at2.identity);
  ASSERT_TRUE(ctx.f1.defined());
  EXPECT_TRUE(torch::equal(ctx.f1, torch::tensor({1.f, 2.f, 3.f, 4.f, 5.f, 6.f}).reshape({3, 2})));
  EXPECT_FALSE(ctx.f2.defined());
  EXPECT_EQ(ctx.levels, (std::vector<float>{1, 2, 3}));
  EXPECT_TRUE(torch::equal(ctx.train_users, torch::tensor({0, 0, 1, 2}, torch::kLong)));
  EXPECT_TRUE(torch::equal(ctx.train_items, torch::tensor({0, 3, 1, 2}, torch::kLong)));
  EXPECT_TRUE(torch::equal(ctx.train_values, torch::tensor({1.f, 2.f, 2.f, 3.f})));

  ASSERT_EQ(ctx.h.size(), 3u);
  ASSERT_EQ(ctx.ht.size(), 3u);
  std::vector<at::Tensor> expected;
  for (int k = 0; k < 3; ++k) expected.push_back(torch::zeros({3, 4}));
  expected[0][0][0] = 1;
  expected[1][0][3] = 1;
  expected[1][1][1] = 1;
  expected[2][2][2] = 1;
  for (size_t k = 0; k < 3; ++k) {
    EXPECT_TRUE(torch::equal(ctx.h[k].to_dense(), expected[k])) << k;
    EXPECT_TRUE(torch::equal(ctx.ht[k].to_dense(), expected[k].t())) << k;
  }
  EXPECT_FLOAT_EQ(ctx.global_mean, 2.0f);
  EXPECT_FLOAT_EQ(ctx.rating_std, static_cast<float>(std::sqrt(0.5)));
  EXPECT_FLOAT_EQ(ctx.rating_min, 1.0f);
  EXPECT_FLOAT_EQ(ctx.rating_max, 3.0f);

  const ModelContext moved = ctx.to(torch::Device(torch::kCPU));
  EXPECT_TRUE(torch::equal(moved.h[1].to_dense(), expected[1]));
}

TEST(LowRankContext, DerivesLevelsWhenAbsentAndRejectsOffLevelRatings) {
  Dataset ds = hand_built();
  ds.rating_levels.clear();
  ds.rating_min = ds.rating_max = 0;
  const ModelContext ctx = make_context(ds);
  EXPECT_EQ(ctx.levels, (std::vector<float>{1, 2, 3}));
  EXPECT_FLOAT_EQ(ctx.rating_max, 3.0f);

  ds = hand_built();
  ds.train.value[0] = 1.5f;
  EXPECT_THROW(make_context(ds), DataError);
}

TEST(LowRankContext, BinsAContinuousTargetIntoQuantileClassesForThePriors) {
  // 400 distinct values (log play counts, say): more than kMaxPriorClasses levels.
  Dataset ds;
  ds.name = "continuous";
  ds.users.count = 20;
  ds.items.count = 20;
  ds.users.graph_origin = ds.items.graph_origin = GraphOrigin::Identity;
  for (int64_t e = 0; e < 400; ++e) ds.train.add(e / 20, e % 20, 0.01f * static_cast<float>((e * 37) % 400));
  ds.rating_min = 0;
  ds.rating_max = 4;
  const ModelContext ctx = make_context(ds);
  EXPECT_EQ(ctx.levels.size(), 400u);  // the decoder still sees every value (decoder auto: dot)
  ASSERT_EQ(ctx.h.size(), static_cast<size_t>(kBinnedPriorClasses));
  // Every rating in exactly one class, 40 each, and the classes ordered by value.
  int64_t total = 0;
  float prev_max = -1;
  for (size_t k = 0; k < ctx.h.size(); ++k) {
    const at::Tensor d = ctx.h[k].to_dense();
    EXPECT_EQ(d.sum().item<float>(), 40.0f) << "class " << k;
    total += static_cast<int64_t>(d.sum().item<float>());
    float lo = 1e9, hi = -1;
    for (size_t e = 0; e < ds.train.size(); ++e)
      if (d[ds.train.user[e]][ds.train.item[e]].item<float>() > 0) {
        lo = std::min(lo, ds.train.value[e]);
        hi = std::max(hi, ds.train.value[e]);
      }
    EXPECT_GT(lo, prev_max) << "class " << k;
    prev_max = hi;
  }
  EXPECT_EQ(total, 400);
  // At or below the limit, one class per level, as before.
  Dataset few = ds;
  for (auto& v : few.train.value) v = std::round(v);
  EXPECT_EQ(make_context(few).h.size(), make_context(few).levels.size());
}

// SharedGraphs: a context over the same nodes shares the graph tensors of one already built
// (the same storage, so they are held once), side by side; a side whose graph, links or
// features differ builds its own, equal to what it builds alone.
TEST(LowRankContext, SharesTheGraphTensorsOfAContextOverTheSameNodes) {
  const Dataset ds = hand_built();
  const ModelContext first = make_context(ds);
  Dataset more = ds;  // more ratings, the same nodes: the retrain's data
  more.train.add(1, 3, 1.0f);
  const ModelContext second = make_context(more, {&ds, &first});
  EXPECT_TRUE(second.at1.values.is_same(first.at1.values));
  EXPECT_TRUE(second.at1.col_idx.is_same(first.at1.col_idx));
  EXPECT_TRUE(second.f1.is_same(first.f1));
  EXPECT_TRUE(second.at2.identity);
  EXPECT_EQ(second.train_values.numel(), first.train_values.numel() + 1);

  Dataset other = ds;  // one user edge fewer, one feature changed
  other.users.graph = EdgeList{};
  other.users.graph.num_nodes = 3;
  other.users.graph.add(0, 1, 1.0f);
  other.users.graph.add(1, 0, 1.0f);
  other.users.features.values[5] = 7;
  const ModelContext alone = make_context(other), given = make_context(other, {&ds, &first});
  EXPECT_FALSE(given.at1.values.is_same(first.at1.values));
  EXPECT_TRUE(torch::equal(given.at1.to_dense(), alone.at1.to_dense()));
  EXPECT_FALSE(torch::equal(given.at1.to_dense(), first.at1.to_dense()));
  EXPECT_TRUE(torch::equal(given.f1, alone.f1));
  Dataset identity = ds;  // the models read the identity over the same file graph
  identity.users.links_only = true;
  EXPECT_TRUE(make_context(identity, {&ds, &first}).at1.identity);
}

TEST(LowRankContext, RequiresResolvedGraphs) {
  Dataset ds = hand_built();
  ds.items.graph_origin = GraphOrigin::None;
  EXPECT_ANY_THROW(make_context(ds));
}

}  // namespace
}  // namespace symgnn::models
