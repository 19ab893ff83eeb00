// measure(model, split, names) (src/eval/measure.h): the one entry point to the figures,
// against the errors and the ranking metrics computed directly, and ErrorSums over parts.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <vector>

#include "eval/errors.h"
#include "eval/measure.h"
#include "symgnn/metrics.h"
#include "symgnn/ranking.h"

using namespace symgnn;

namespace {

/// Two users over 5 items: user 0 ranks 3, 1, 0, user 1 ranks 4, 2, 0; their relevant items
/// are {1} and {0, 3}.
eval::RankingReport two_users(const std::vector<int64_t>& ks) {
  eval::RankingAccumulator acc(ks, 5);
  acc.add({3, 1, 0}, {1});
  acc.add({4, 2, 0}, {0, 3});
  return acc.report();
}

}  // namespace

TEST(Measure, NamesGiveTheRowsOfOneDifferenceListAndOneRanking) {
  const std::vector<double> d = {0.5, -1.0, 2.0};
  int differences_taken = 0;
  std::vector<std::vector<int64_t>> ranked_at;
  eval::Measurable m;
  m.differences = [&] {
    ++differences_taken;
    return d;
  };
  m.rank = [&](const std::vector<int64_t>& ks) {
    ranked_at.push_back(ks);
    return two_users(ks);
  };
  const eval::Figures f = eval::measure(m, "val", {"rmse", "mae", "ndcg@2", "precision@1", "ndcg@1"});
  EXPECT_EQ(differences_taken, 1);
  ASSERT_EQ(ranked_at.size(), 1u);
  EXPECT_EQ(ranked_at[0], (std::vector<int64_t>{1, 2}));  // every k asked, ascending, once
  EXPECT_DOUBLE_EQ(f.at("val_rmse"), std::sqrt((0.25 + 1 + 4) / 3));
  EXPECT_DOUBLE_EQ(f.at("val_mae"), (0.5 + 1 + 2) / 3);
  // By hand: user 0 finds item 1 at rank 2 (NDCG@2 = (1/log2 3) / 1), user 1 nothing in 2.
  EXPECT_DOUBLE_EQ(f.at("val_ndcg@2"), (1 / std::log2(3.0)) / 2);
  EXPECT_DOUBLE_EQ(f.at("val_ndcg@1"), 0.0);
  EXPECT_DOUBLE_EQ(f.at("val_precision@1"), 0.0);
  EXPECT_EQ(f.size(), 5u);
  const eval::RankingReport r = two_users({2});
  EXPECT_DOUBLE_EQ(f.at("val_ndcg@2"), eval::metric_value(r.at_k[0], "ndcg"));
}

TEST(Measure, WhatTheModelCannotGiveIsLeftOut) {
  eval::Measurable predictions_only;
  predictions_only.differences = [] { return std::vector<double>{1.0}; };
  eval::Figures f = eval::measure(predictions_only, "test", {"rmse", "ndcg@10"});
  EXPECT_EQ(f.size(), 1u);
  EXPECT_DOUBLE_EQ(f.at("test_rmse"), 1.0);
  // No held-out ratings, no relevant user: nothing.
  eval::Measurable empty;
  empty.differences = [] { return std::vector<double>{}; };
  empty.rank = [](const std::vector<int64_t>& ks) { return eval::RankingAccumulator(ks, 3).report(); };
  EXPECT_TRUE(eval::measure(empty, "test", {"rmse", "ndcg@10"}).empty());
  // Bare names for an empty split.
  EXPECT_EQ(eval::measure(predictions_only, "", {"mae"}).count("mae"), 1u);
}

TEST(Measure, ANameThatIsNoRowIsRefused) {
  eval::Measurable m;
  for (const char* bad : {"rmsee", "ndcg", "rmse@10", "val_rmse", "ndcg@0"})
    EXPECT_THROW(eval::measure(m, "val", {bad}), std::invalid_argument) << bad;
}

TEST(Measure, EveryRowOfTheTableIsAName) {
  std::vector<std::string> names = eval::prediction_metrics();
  for (const std::string& r : eval::ranking_metrics(5)) names.push_back(r);
  size_t rows = 0;
  for (const MetricRow& row : kMetrics) ++rows, (void)row;
  EXPECT_EQ(names.size(), rows);
  eval::Measurable m;
  m.differences = [] { return std::vector<double>{0.5}; };
  m.rank = two_users;
  EXPECT_EQ(eval::measure(m, "test", names).size(), rows);
  EXPECT_EQ(ranking_figure("val"), "val_ndcg@10");  // the ranking criterion, at its cut-off
  EXPECT_EQ(ranking_figure(), "ndcg@10");
}

TEST(Measure, ErrorSumsPooledOverPartsEqualOneList) {
  const std::vector<double> a = {0.5, -1.0}, b = {2.0, 0.25, -0.75};
  eval::ErrorSums parts;
  parts.add(a);
  parts.add(b);
  std::vector<double> all = a;
  all.insert(all.end(), b.begin(), b.end());
  for (const MetricRow& row : kMetrics)
    if (row.needs == MetricNeeds::predictions) {
      EXPECT_NEAR(parts.value(row), eval::error_of(row, all), 1e-15) << row.name;
    } else {
      EXPECT_THROW(parts.value(row), std::logic_error) << row.name;
    }
  EXPECT_EQ(parts.count(), 5u);
  EXPECT_TRUE(std::isnan(eval::ErrorSums().value(rating_metric())));
}
