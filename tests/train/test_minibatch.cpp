// The mini-batch plan (train/minibatch.h): batch counts, the seeded permutation, and that
// the ranks' parts of each batch are exactly the global batch, every pair once an epoch.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <vector>

#include "train/distributed.h"
#include "train/minibatch.h"

using namespace symgnn::train;

TEST(MiniBatch, BatchCountIsTheCeilingAndFullBatchIsOne) {
  EXPECT_EQ(batch_count(100, 0), 1);
  EXPECT_EQ(batch_count(100, 100), 1);
  EXPECT_EQ(batch_count(100, 1000), 1);
  EXPECT_EQ(batch_count(100, 99), 2);
  EXPECT_EQ(batch_count(100, 30), 4);
  EXPECT_EQ(batch_count(100, 1), 100);
}

TEST(MiniBatch, ThePermutationIsSeededAndVisitsEveryPosition) {
  const int64_t n = 1000;
  const at::Tensor a = epoch_permutation(n, 7), b = epoch_permutation(n, 7), c = epoch_permutation(n, 8);
  EXPECT_EQ(a.scalar_type(), at::kInt);
  EXPECT_TRUE(at::equal(a, b));
  EXPECT_FALSE(at::equal(a, c));
  EXPECT_TRUE(at::equal(std::get<0>(a.sort()), at::arange(n, at::kInt)));
  EXPECT_FALSE(at::equal(a, at::arange(n, at::kInt)));
  // Each position lands anywhere: over many seeds, position 0's value covers the range.
  std::vector<int> seen(10, 0);
  for (uint64_t s = 0; s < 400; ++s) ++seen[epoch_permutation(10, epoch_seed(s, 3))[0].item<int>()];
  for (int v : seen) EXPECT_GT(v, 15);
  EXPECT_NE(epoch_seed(1, 0), epoch_seed(1, 1));
  EXPECT_NE(epoch_seed(1, 0), epoch_seed(2, 0));
}

TEST(MiniBatch, TheRanksPartsOfABatchAreTheGlobalBatch) {
  const int64_t n = 1003, count = batch_count(n, 100);
  ASSERT_EQ(count, 11);
  const uint64_t seed = epoch_seed(5, 2);
  const EpochBatches one(n, count, seed, 0, n);
  std::vector<int> hits(n, 0);
  int64_t total = 0;
  for (int64_t b = 0; b < count; ++b) {
    EXPECT_GE(one.size(b), 91);
    EXPECT_LE(one.size(b), 92);
    total += one.size(b);
    const at::Tensor global = std::get<0>(one.shard_positions(b).sort());
    ASSERT_EQ(global.numel(), one.size(b));
    // Three ranks: their parts, shifted back to training positions, make the global batch.
    std::vector<at::Tensor> parts;
    for (int64_t r = 0; r < 3; ++r) {
      const auto [begin, end] = shard_range(n, r, 3);
      const EpochBatches mine(n, count, seed, begin, end);
      ASSERT_EQ(mine.size(b), one.size(b));
      const at::Tensor p = mine.shard_positions(b);
      ASSERT_EQ(p.scalar_type(), at::kLong);
      if (p.numel() > 0) {
        EXPECT_GE(p.min().item<int64_t>(), 0);
        EXPECT_LT(p.max().item<int64_t>(), end - begin);
      }
      parts.push_back(p + begin);
    }
    EXPECT_TRUE(at::equal(std::get<0>(at::cat(parts).sort()), global)) << "batch " << b;
    for (int64_t k = 0; k < global.numel(); ++k) ++hits[global[k].item<int64_t>()];
  }
  EXPECT_EQ(total, n);
  for (int64_t k = 0; k < n; ++k) ASSERT_EQ(hits[k], 1) << "pair " << k;
}

TEST(MiniBatch, AFullBatchEpochIsTheWholeShardInOrder) {
  const EpochBatches full(50, 1, 3, 10, 30);
  ASSERT_EQ(full.count(), 1);
  EXPECT_TRUE(at::equal(full.shard_positions(0), at::arange(20, at::kLong)));
}
