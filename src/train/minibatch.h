// Mini-batch training over the rating edges (train.batch_size): which training pairs each
// optimiser step of an epoch scores, on every rank of a process group.
//
// Every rank draws the same permutation of all n training pairs, seeded by the run and the
// epoch (so a resumed run draws the epochs it has left exactly as the uninterrupted one),
// and global batch b is positions [b n / B, (b + 1) n / B) of it, B = ceil(n / batch_size)
// batches. A rank scores the pairs of batch b that lie in its shard (shard_range), and its
// gradients are weighted by its share of the batch before the all-reduce. So a step's
// gradient is that of the mean loss over the global batch whatever the number of ranks,
// and N processes train to the parameters of one (tests/train/test_minibatch.cpp).
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>

namespace symgnn::train {

/// Batches per epoch of n training pairs: ceil(n / batch_size), 1 when batch_size is 0
/// (full batch) or at least n.
int64_t batch_count(int64_t n, int64_t batch_size);

/// The positions 0..n-1 in a seeded random order (Fisher-Yates driven by SplitMix64, the
/// same order on every machine and library version): int32 when n fits, else int64, on
/// the CPU. 4 bytes a training pair for every set below 2^31 pairs.
at::Tensor epoch_permutation(int64_t n, uint64_t seed);

/// The seed of epoch `epoch` (0-based) of a run whose batch seed is `run_seed`.
uint64_t epoch_seed(uint64_t run_seed, int64_t epoch);

/// One epoch's batches as one rank sees them.
class EpochBatches {
 public:
  /// n training pairs in `count` batches (batch_count); this rank's shard is
  /// [shard_begin, shard_end) of the training pairs.
  EpochBatches(int64_t n, int64_t count, uint64_t seed, int64_t shard_begin, int64_t shard_end);

  int64_t count() const { return count_; }
  /// Pairs in global batch b, over all ranks.
  int64_t size(int64_t b) const;
  /// The positions within this rank's shard of the pairs of batch b (int64, CPU, in the
  /// permutation's order; empty when none of the batch lies in the shard).
  at::Tensor shard_positions(int64_t b) const;

 private:
  int64_t n_, count_, begin_, end_;
  at::Tensor order_;
};

}  // namespace symgnn::train
