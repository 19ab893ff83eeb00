/// @file test_synthetic.cpp
/// The synthetic generator: the statistics its doc comment promises, determinism, speed, and
/// that its graphs carry the signal (a graph-neighbourhood predictor beats one without graphs).
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <map>
#include <numeric>

#include "data/loaders.h"
#include "symgnn/config.h"
#include "symgnn/dataset.h"
#include "symgnn/error.h"

using symgnn::DataConfig;
using symgnn::Dataset;
using symgnn::data::make_synthetic;

namespace {

std::vector<std::vector<int64_t>> adjacency(const symgnn::NodeSet& side) {
  std::vector<std::vector<int64_t>> nb(static_cast<size_t>(side.count));
  for (size_t k = 0; k < side.graph.size(); ++k) nb[side.graph.src[k]].push_back(side.graph.dst[k]);
  return nb;
}

double rmse(const std::vector<double>& pred, const symgnn::RatingList& truth) {
  double s = 0;
  for (size_t k = 0; k < truth.size(); ++k) s += (pred[k] - truth.value[k]) * (pred[k] - truth.value[k]);
  return std::sqrt(s / static_cast<double>(truth.size()));
}

// Regularised global mean + user bias + item bias: the best a model ignoring graphs and
// interactions does cheaply.
std::vector<double> bias_predictions(const Dataset& ds) {
  const double mu = std::accumulate(ds.train.value.begin(), ds.train.value.end(), 0.0) / ds.train.size();
  std::vector<double> bu(ds.users.count, 0), bi(ds.items.count, 0);
  for (int it = 0; it < 10; ++it) {
    std::vector<double> su(ds.users.count, 0), si(ds.items.count, 0), nu(ds.users.count, 5),
        ni(ds.items.count, 5);
    for (size_t k = 0; k < ds.train.size(); ++k) {
      su[ds.train.user[k]] += ds.train.value[k] - mu - bi[ds.train.item[k]];
      nu[ds.train.user[k]] += 1;
    }
    for (int64_t u = 0; u < ds.users.count; ++u) bu[u] = su[u] / nu[u];
    for (size_t k = 0; k < ds.train.size(); ++k) {
      si[ds.train.item[k]] += ds.train.value[k] - mu - bu[ds.train.user[k]];
      ni[ds.train.item[k]] += 1;
    }
    for (int64_t i = 0; i < ds.items.count; ++i) bi[i] = si[i] / ni[i];
  }
  std::vector<double> pred;
  for (size_t k = 0; k < ds.test.size(); ++k) pred.push_back(mu + bu[ds.test.user[k]] + bi[ds.test.item[k]]);
  return pred;
}

// Mean training rating over (user or its graph neighbours) x (item or its graph neighbours).
std::vector<double> graph_predictions(const Dataset& ds) {
  const auto nu = adjacency(ds.users), ni = adjacency(ds.items);
  std::map<std::pair<int64_t, int64_t>, float> train;
  for (size_t k = 0; k < ds.train.size(); ++k)
    train[{ds.train.user[k], ds.train.item[k]}] = ds.train.value[k];
  const double mu = std::accumulate(ds.train.value.begin(), ds.train.value.end(), 0.0) / ds.train.size();
  std::vector<double> pred;
  for (size_t k = 0; k < ds.test.size(); ++k) {
    std::vector<int64_t> us = nu[ds.test.user[k]], is = ni[ds.test.item[k]];
    us.push_back(ds.test.user[k]);
    is.push_back(ds.test.item[k]);
    double sum = 0, n = 0;
    for (int64_t u : us)
      for (int64_t i : is)
        if (auto it = train.find({u, i}); it != train.end()) sum += it->second, n += 1;
    pred.push_back(n > 0 ? (sum + mu) / (n + 1) : mu);
  }
  return pred;
}

}  // namespace

TEST(Synthetic, DefaultStatistics) {
  const DataConfig cfg;
  const Dataset ds = make_synthetic(cfg);
  EXPECT_EQ(ds.name, "synthetic");
  EXPECT_EQ(ds.users.count, 300);
  EXPECT_EQ(ds.items.count, 300);
  EXPECT_TRUE(ds.users.ids.empty());
  EXPECT_EQ(ds.train.size() + ds.test.size(), 7200u);  // 0.08 * 300 * 300
  EXPECT_EQ(ds.test.size(), 720u);
  EXPECT_EQ(ds.rating_levels, (std::vector<float>{1, 2, 3, 4, 5}));
  EXPECT_EQ(ds.rating_min, 1);
  EXPECT_EQ(ds.rating_max, 5);
  EXPECT_NO_THROW(symgnn::validate_dataset(ds, "synthetic"));

  // Pinned: a change here changes the default dataset (update synthetic.cpp's table).
  EXPECT_EQ(ds.users.graph.size(), 2562u);
  EXPECT_EQ(ds.items.graph.size(), 2490u);
  for (const symgnn::NodeSet* side : {&ds.users, &ds.items}) {
    EXPECT_EQ(side->graph_origin, symgnn::GraphOrigin::File);
    const double mean_degree = static_cast<double>(side->graph.size()) / side->count;
    EXPECT_GT(mean_degree, 7.0);
    EXPECT_LT(mean_degree, 10.5);
    for (size_t k = 0; k < side->graph.size(); ++k) {
      EXPECT_NE(side->graph.src[k], side->graph.dst[k]);
      EXPECT_EQ(side->graph.weight[k], 1.0f);
    }
  }
  // Every level is used and the ratings centre near 3.
  std::map<float, int> histogram;
  double mean = 0;
  for (float v : ds.train.value) histogram[v]++, mean += v;
  mean /= ds.train.size();
  EXPECT_EQ(histogram.size(), 5u);
  EXPECT_NEAR(mean, 3.0, 0.1);
  EXPECT_NEAR(histogram[3.0f] / double(ds.train.size()), 0.36, 0.03);
  EXPECT_NEAR(histogram[1.0f] / double(ds.train.size()), 0.09, 0.02);
}

TEST(Synthetic, DeterministicBySeed) {
  DataConfig cfg;
  const Dataset a = make_synthetic(cfg), b = make_synthetic(cfg);
  EXPECT_EQ(a.train.user, b.train.user);
  EXPECT_EQ(a.train.item, b.train.item);
  EXPECT_EQ(a.train.value, b.train.value);
  EXPECT_EQ(a.test.value, b.test.value);
  EXPECT_EQ(a.users.graph.dst, b.users.graph.dst);
  cfg.synthetic_seed = 8;
  const Dataset c = make_synthetic(cfg);
  EXPECT_NE(a.train.item, c.train.item);
  cfg.synthetic_seed = 7;
  cfg.split_seed = 5;  // same matrix, another split
  const Dataset d = make_synthetic(cfg);
  EXPECT_EQ(d.train.size(), a.train.size());
  EXPECT_NE(d.test.item, a.test.item);
  EXPECT_EQ(d.users.graph.dst, a.users.graph.dst);
}

TEST(Synthetic, IsFast) {
  const auto start = std::chrono::steady_clock::now();
  const Dataset ds = make_synthetic(DataConfig{});
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(ms, 50.0);
  EXPECT_FALSE(ds.train.empty());
}

TEST(Synthetic, GraphsCarryTheSignal) {
  const Dataset ds = make_synthetic(DataConfig{});
  const double without = rmse(bias_predictions(ds), ds.test);
  const double with = rmse(graph_predictions(ds), ds.test);
  std::cout << "test RMSE: biases " << without << ", graph neighbourhood mean " << with << "\n";
  EXPECT_LT(with, 0.85 * without);
}

TEST(Synthetic, OtherSizes) {
  DataConfig cfg;
  cfg.synthetic_users = 10;
  cfg.synthetic_items = 37;
  cfg.synthetic_communities = 1;
  cfg.synthetic_density = 1.0;
  cfg.synthetic_noise = 0.0;
  const Dataset ds = make_synthetic(cfg);
  EXPECT_EQ(ds.num_ratings(), 370u);
  EXPECT_NO_THROW(symgnn::validate_dataset(ds, "synthetic"));
  cfg.synthetic_communities = 50;  // more communities than users: one each
  EXPECT_NO_THROW(symgnn::validate_dataset(make_synthetic(cfg), "synthetic"));
  cfg.synthetic_users = cfg.synthetic_items = 100000;
  EXPECT_THROW(make_synthetic(cfg), symgnn::DataError);
}
