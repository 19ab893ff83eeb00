// The table of metrics (symgnn/metrics.h): names taken apart, directions from the rows, the
// choices it generates for train.select and tune, every ranking row's value in a
// RankingAtK, and every row's function.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <stdexcept>
#include <string>

#include "eval/metric_functions.h"
#include "symgnn/config.h"
#include "symgnn/metrics.h"
#include "symgnn/ranking.h"

namespace symgnn {
namespace {

TEST(MetricsTable, NamesComeApartIntoSplitRowAndK) {
  const MetricName a = parse_metric_name("val_ndcg@10");
  ASSERT_NE(a.row, nullptr);
  EXPECT_EQ(a.split, "val");
  EXPECT_STREQ(a.row->name, "ndcg");
  EXPECT_EQ(a.k, 10);
  const MetricName b = parse_metric_name("test_rmse");
  ASSERT_NE(b.row, nullptr);
  EXPECT_EQ(b.split, "test");
  EXPECT_EQ(b.k, 0);
  const MetricName c = parse_metric_name("hit_rate@5");
  ASSERT_NE(c.row, nullptr);
  EXPECT_EQ(c.split, "");
  EXPECT_EQ(c.k, 5);
  // Not figures: a ranking without k, an error with one, unknown names, a bad k.
  for (const char* bad :
       {"val_ndcg", "val_rmse@10", "val_auc", "ndcg@", "ndcg@0", "ndcg@x", "valndcg@10", ""})
    EXPECT_EQ(parse_metric_name(bad).row, nullptr) << bad;
}

TEST(MetricsTable, DirectionsComeFromTheRows) {
  for (const char* lower : {"val_rmse", "test_mae", "train_rmse"})
    EXPECT_FALSE(higher_is_better(lower)) << lower;
  for (const char* higher :
       {"val_ndcg@10", "test_precision@5", "recall@20", "val_map@10", "val_hit_rate@10", "val_coverage@10"})
    EXPECT_TRUE(higher_is_better(higher)) << higher;
}

TEST(MetricsTable, SelectAndTuneChoicesAreEveryValidationFigure) {
  const std::string select = select_choices();
  for (const MetricRow& m : kMetrics) {
    const std::string figure = metric_figure("val", m);
    EXPECT_NE(("|" + select + "|").find("|" + figure + "|"), std::string::npos) << figure;
    const auto& tune = tune_metric_choices();
    EXPECT_NE(std::find(tune.begin(), tune.end(), figure), tune.end()) << figure;
  }
  EXPECT_EQ(select.rfind("auto|", 0), 0u);
  // The config accepts what the table generates and rejects what it does not.
  RunConfig cfg;
  EXPECT_NO_THROW(apply_override(cfg, "train.select=val_recall@10"));
  EXPECT_THROW(apply_override(cfg, "train.select=val_auc@10"), ConfigError);
  cfg.train.select = "auto";
  cfg.train.objective = "ranking";
  EXPECT_EQ(selection_metric(cfg.train), "val_ndcg@10");
  cfg.train.objective = "rating";
  EXPECT_EQ(selection_metric(cfg.train), "val_rmse");
}

TEST(MetricsTable, EveryRankingRowHasItsValueInARankingAtK) {
  eval::RankingAtK a;
  a.k = 10;
  std::set<double> given;
  for (size_t r = 0; r < kMetricCount; ++r) {
    a.values[r] = 0.1 * static_cast<double>(r + 1);
    if (kMetrics[r].needs == MetricNeeds::ranking) given.insert(a.values[r]);
  }
  std::set<double> seen;
  for (const MetricRow& m : kMetrics) {
    if (m.needs != MetricNeeds::ranking) continue;
    seen.insert(eval::metric_value(a, m.name));
  }
  EXPECT_EQ(seen, given);  // each row its own value
  EXPECT_THROW(eval::metric_value(a, "rmse"), std::invalid_argument);
}

TEST(MetricsTable, EveryRowHasTheFunctionItsNeedsCallFor) {
  for (size_t r = 0; r < kMetricCount; ++r) {
    const eval::MetricFunction& f = eval::metric_function(r);
    const bool error = f.error.term && f.error.of_mean;
    const bool ranking = (f.per_user != nullptr) != (f.over_catalogue != nullptr);
    if (kMetrics[r].needs == MetricNeeds::predictions)
      EXPECT_TRUE(error && !f.per_user && !f.over_catalogue) << kMetrics[r].name;
    else
      EXPECT_TRUE(ranking && !f.error.term && !f.error.of_mean) << kMetrics[r].name;
  }
}

TEST(MetricsTable, TheRankingCriterionIsARankingRow) {
  EXPECT_EQ(ranking_metric().needs, MetricNeeds::ranking);
  EXPECT_EQ(ranking_metric().direction, MetricDirection::higher);
  EXPECT_EQ(ranking_figure("val"), metric_figure("val", ranking_metric(), kRankingCutoff));
  EXPECT_EQ(ranking_label(), "NDCG@10");
}

}  // namespace
}  // namespace symgnn
