// The prediction rows' functions (src/eval/errors.cpp) against their definitions, written
// out here by hand, and the clipping of differences().
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "eval/errors.h"
#include "eval/measure.h"
#include "symgnn/metrics.h"

using namespace symgnn;

TEST(Errors, EveryPredictionRowMatchesItsDefinition) {
  const std::vector<float> truth = {1, 2, 3, 4, 5};
  const std::vector<double> pred = {1.5, 0.0, 3.0, 6.0, 4.0};
  // Clipped to [1, 5]: 1.5, 1, 3, 5, 4 -> differences 0.5, -1, 0, 1, -1.
  const std::vector<double> d = eval::differences(pred, truth, 1.0, 5.0);
  ASSERT_EQ(d, (std::vector<double>{0.5, -1.0, 0.0, 1.0, -1.0}));
  eval::Figures f;
  eval::add_errors(f, "test", d);
  EXPECT_DOUBLE_EQ(f.at("test_rmse"), std::sqrt((0.25 + 1 + 0 + 1 + 1) / 5));
  EXPECT_DOUBLE_EQ(f.at("test_mae"), (0.5 + 1 + 0 + 1 + 1) / 5);
  size_t rows = 0;
  for (const MetricRow& row : kMetrics) rows += row.needs == MetricNeeds::predictions;
  EXPECT_EQ(f.size(), rows);  // one figure per prediction row, none for rankings
  EXPECT_DOUBLE_EQ(eval::rating_error(d), f.at(rating_figure("test")));
}

TEST(Errors, UnclippedByDefaultAndNothingForNoRatings) {
  EXPECT_EQ(eval::differences(std::vector<double>{7.0}, std::vector<double>{1.0}), std::vector<double>{6.0});
  eval::Figures f;
  eval::add_errors(f, "val", {});
  EXPECT_TRUE(f.empty());
  EXPECT_TRUE(std::isnan(eval::rating_error({})));
  EXPECT_TRUE(std::isnan(eval::figure_of(f, "val_rmse")));
}

TEST(Errors, ARankingRowIsNoPredictionError) {
  for (const MetricRow& row : kMetrics)
    if (row.needs == MetricNeeds::ranking) {
      EXPECT_THROW(eval::error_of(row, {1.0}), std::logic_error);
    }
}
