// mean_std (util/stats.h): the sample standard deviation every "+-" over seeds uses.
#include <gtest/gtest.h>

#include <cmath>

#include "util/stats.h"

TEST(Stats, MeanAndSampleStandardDeviation) {
  const symgnn::MeanStd m = symgnn::mean_std({1.0, 2.0, 4.0});
  EXPECT_DOUBLE_EQ(m.mean, 7.0 / 3.0);
  // Squared deviations 16/9 + 1/9 + 25/9 = 42/9, divided by n - 1 = 2.
  EXPECT_DOUBLE_EQ(m.std, std::sqrt(42.0 / 9.0 / 2.0));
  EXPECT_DOUBLE_EQ(symgnn::mean_std({0.5}).std, 0.0);
  EXPECT_DOUBLE_EQ(symgnn::mean_std({0.5}).mean, 0.5);
  EXPECT_DOUBLE_EQ(symgnn::mean_std({}).mean, 0.0);
}
