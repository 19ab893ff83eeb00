// The table of metrics (symgnn/metrics.h): names taken apart, directions from the rows, the
// choices it generates for train.select and tune, and every ranking row's value in a
// RankingAtK.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <stdexcept>
#include <string>

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
  a.precision = 0.1, a.recall = 0.2, a.ndcg = 0.3, a.map = 0.4, a.hit_rate = 0.5, a.coverage = 0.6;
  std::set<double> seen;
  for (const MetricRow& m : kMetrics) {
    if (m.needs != MetricNeeds::ranking) continue;
    seen.insert(eval::metric_value(a, m.name));
  }
  EXPECT_EQ(seen, (std::set<double>{0.1, 0.2, 0.3, 0.4, 0.5, 0.6}));  // each row its own field
  EXPECT_THROW(eval::metric_value(a, "rmse"), std::invalid_argument);
}

}  // namespace
}  // namespace symgnn
