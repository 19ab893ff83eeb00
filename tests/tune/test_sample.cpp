// The sampler: trial i's values depend on (seed, i, space) only, and every value lies in
// what the space allows (and so passes the config's checks).
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <set>

#include "symgnn/config.h"
#include "tune/sample.h"

using namespace symgnn::tune;

namespace {
const char* kSpace =
    "train.lr = loguniform 0.001 0.03\n"
    "lowrank.hidden = choice 32|64|75\n"
    "lowrank.dropout = uniform 0 0.7\n"
    "lowrank.layers = int 1 3\n";
}  // namespace

TEST(TuneSample, IsAPureFunctionOfSeedTrialAndSpace) {
  const Space s = parse_space(kSpace, "s");
  EXPECT_EQ(sample_trial(s, 7, 3), sample_trial(s, 7, 3));
  EXPECT_NE(sample_trial(s, 7, 3), sample_trial(s, 7, 4));
  EXPECT_NE(sample_trial(s, 7, 3), sample_trial(s, 8, 3));
  // Keys are drawn by name: another line in the space leaves the others' values alone.
  const Space more = parse_space(std::string("lowrank.biases = choice true|false\n") + kSpace, "s");
  const Values a = sample_trial(s, 7, 3), b = sample_trial(more, 7, 3);
  ASSERT_EQ(b.size(), a.size() + 1);
  for (size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i], b[i + 1]);
  EXPECT_EQ(a[0].first, "train.lr");
}

TEST(TuneSample, ValuesStayInRangeAndCoverTheSpace) {
  const Space s = parse_space(kSpace, "s");
  std::set<std::string> hidden;
  std::set<int> layers;
  int below_geometric_mean = 0, below_middle = 0;
  const int n = 3000;
  for (int i = 1; i <= n; ++i) {
    const Values v = sample_trial(s, 42, i);
    symgnn::RunConfig cfg;
    for (const auto& [k, x] : v) ASSERT_NO_THROW(symgnn::set_config_value(cfg, k, x)) << k << "=" << x;
    const double lr = std::stod(v[0].second);
    EXPECT_GE(lr, 0.001);
    EXPECT_LE(lr, 0.03);
    below_geometric_mean += lr < std::sqrt(0.001 * 0.03);
    hidden.insert(v[1].second);
    const double dropout = std::stod(v[2].second);
    EXPECT_GE(dropout, 0.0);
    EXPECT_LE(dropout, 0.7);
    below_middle += dropout < 0.35;
    layers.insert(std::stoi(v[3].second));
  }
  // Log-uniform: half the draws below the geometric mean (not the arithmetic one).
  EXPECT_NEAR(below_geometric_mean / double(n), 0.5, 0.04);
  EXPECT_NEAR(below_middle / double(n), 0.5, 0.04);
  EXPECT_EQ(hidden, (std::set<std::string>{"32", "64", "75"}));
  EXPECT_EQ(layers, (std::set<int>{1, 2, 3}));  // both ends inclusive
}

TEST(TuneSample, UnitDrawsAreUniform) {
  std::map<int, int> bins;
  for (int i = 0; i < 10000; ++i) {
    const double u = unit_draw(1, i, "k");
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
    ++bins[static_cast<int>(u * 10)];
  }
  for (const auto& [b, count] : bins) EXPECT_NEAR(count, 1000, 150) << "bin " << b;
}

TEST(TuneSample, RoundedValuesNeverLeaveTheRange) {
  // A bound with more than six significant digits: the rounded text must not pass it.
  const Space s = parse_space("train.lr = uniform 0.0100000001 0.0100000009\n", "s");
  for (int i = 1; i <= 200; ++i) {
    const double v = std::stod(sample_trial(s, 3, i)[0].second);
    EXPECT_GE(v, 0.0100000001);
    EXPECT_LE(v, 0.0100000009);
  }
}
