// Tests of src/models/ranking/ranking_probe.cpp: the validation figure a fit chooses by is
// the one `evaluate` gives the same scores, ties included (eval::top_k_items' lists).
#include <gtest/gtest.h>
#include <torch/types.h>

#include <random>

#include "models/ranking/ranking_probe.h"
#include "symgnn/ranking.h"

namespace symgnn::models {
namespace {

constexpr int64_t kUsers = 40, kItems = 30;

/// Ratings of random (user, item) pairs, each pair once, values 1..5.
RatingList random_ratings(std::mt19937& rng, int count, std::vector<char>& taken) {
  std::uniform_int_distribution<int64_t> user(0, kUsers - 1), item(0, kItems - 1);
  std::uniform_int_distribution<int> stars(1, 5);
  RatingList out;
  while (static_cast<int>(out.size()) < count) {
    const int64_t u = user(rng), i = item(rng);
    if (taken[static_cast<size_t>(u * kItems + i)]) continue;
    taken[static_cast<size_t>(u * kItems + i)] = 1;
    out.add(u, i, static_cast<float>(stars(rng)));
  }
  return out;
}

/// The brute force: each user with a relevant held-out item, in user order, ranked by
/// top_k_items over the items they did not rate in training.
eval::RankingReport brute_force(const at::Tensor& scores, const RatingList& train, const RatingList& held_out,
                                const std::vector<int64_t>& ks) {
  eval::RankingAccumulator acc(ks, kItems);
  for (int64_t u = 0; u < kUsers; ++u) {
    std::vector<int64_t> relevant;
    for (size_t e = 0; e < held_out.size(); ++e)
      if (held_out.user[e] == u && held_out.value[e] >= 4.0f) relevant.push_back(held_out.item[e]);
    if (relevant.empty()) continue;
    std::vector<char> excluded(static_cast<size_t>(kItems), 0);
    for (size_t e = 0; e < train.size(); ++e)
      if (train.user[e] == u) excluded[static_cast<size_t>(train.item[e])] = 1;
    const at::Tensor row = scores[u].contiguous();
    acc.add(eval::top_k_items(row.data_ptr<float>(), kItems, acc.max_k(), excluded), relevant);
  }
  return acc.report();
}

void expect_same(const eval::RankingReport& a, const eval::RankingReport& b) {
  ASSERT_EQ(a.at_k.size(), b.at_k.size());
  EXPECT_EQ(a.users_evaluated, b.users_evaluated);
  for (size_t j = 0; j < a.at_k.size(); ++j)
    for (size_t m = 0; m < kMetricCount; ++m)
      EXPECT_DOUBLE_EQ(a.at_k[j].values[m], b.at_k[j].values[m]) << "k = " << a.at_k[j].k << ", row " << m;
}

TEST(RankingProbe, OnTheCpuRanksAsEvaluateDoesTiesIncluded) {
  std::mt19937 rng(3);
  std::vector<char> taken(static_cast<size_t>(kUsers * kItems), 0);
  const RatingList train = random_ratings(rng, 300, taken);
  const RatingList held_out = random_ratings(rng, 200, taken);
  // Scores of four values: most of a user's top 10 is ties, which topk orders as it likes
  // and evaluate by the lower item index.
  const at::Tensor scores = torch::randint(0, 4, {kUsers, kItems}, torch::kLong).to(torch::kFloat);
  const auto scorer = [&](const at::Tensor& users) { return scores.index_select(0, users); };
  const std::vector<int64_t> ks{1, 5, 10};
  const eval::RankingReport expected = brute_force(scores, train, held_out, ks);
  ASSERT_GT(expected.users_evaluated, 10);
  // Blocks of one user, of 3, and all users at once.
  for (const int64_t block_pairs : {int64_t{1}, 3 * kItems, int64_t{1} << 20}) {
    const RankingProbe probe(held_out, {&train}, kUsers, kItems, 4.0, 10, block_pairs, at::Device(at::kCPU));
    expect_same(probe.rank(scorer, ks), expected);
  }
}

TEST(RankingProbe, AScorerGivingEveryUserOneRowIsRankedWhereItLies) {
  std::mt19937 rng(4);
  std::vector<char> taken(static_cast<size_t>(kUsers * kItems), 0);
  const RatingList train = random_ratings(rng, 250, taken);
  const RatingList held_out = random_ratings(rng, 250, taken);
  const at::Tensor row = torch::randint(0, 3, {kItems}, torch::kLong).to(torch::kFloat);
  const RankingProbe probe(held_out, {&train}, kUsers, kItems, 4.0, 10, 7 * kItems, at::Device(at::kCPU));
  // Popularity's scorer shape: one row expanded to the block (stride 0), and the same copied.
  const auto expanded = [&](const at::Tensor& users) {
    return row.unsqueeze(0).expand({users.numel(), kItems});
  };
  const auto copied = [&](const at::Tensor& users) { return row.repeat({users.numel(), 1}); };
  const std::vector<int64_t> ks{10};
  const eval::RankingReport a = probe.rank(expanded, ks);
  expect_same(a, probe.rank(copied, ks));
  expect_same(a, brute_force(row.repeat({kUsers, 1}), train, held_out, ks));
}

}  // namespace
}  // namespace symgnn::models
