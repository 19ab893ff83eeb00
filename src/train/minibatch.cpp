#include "train/minibatch.h"

#include <ATen/ATen.h>

#include <limits>

#include "util/hash.h"

namespace symgnn::train {

int64_t batch_count(int64_t n, int64_t batch_size) {
  if (batch_size <= 0 || batch_size >= n) return 1;
  return (n + batch_size - 1) / batch_size;
}

uint64_t epoch_seed(uint64_t run_seed, int64_t epoch) {
  return splitmix64(run_seed ^ splitmix64(static_cast<uint64_t>(epoch)));
}

namespace {
/// Fisher-Yates over p[0..n): the swap partner of position i is a SplitMix64 draw of
/// (seed, i) scaled to [0, i] by a 128-bit multiply (no modulo bias worth the name).
template <class T>
void shuffle(T* p, int64_t n, uint64_t seed) {
  for (int64_t i = 0; i < n; ++i) p[i] = static_cast<T>(i);
  for (int64_t i = n - 1; i > 0; --i) {
    const uint64_t r = splitmix64(seed + static_cast<uint64_t>(i) * 0xd1b54a32d192ed03ULL);
    const auto j =
        static_cast<int64_t>((static_cast<unsigned __int128>(r) * static_cast<uint64_t>(i + 1)) >> 64);
    std::swap(p[i], p[j]);
  }
}
}  // namespace

at::Tensor epoch_permutation(int64_t n, uint64_t seed) {
  if (n <= std::numeric_limits<int32_t>::max()) {
    at::Tensor t = at::empty({n}, at::kInt);
    shuffle(t.data_ptr<int32_t>(), n, seed);
    return t;
  }
  at::Tensor t = at::empty({n}, at::kLong);
  shuffle(t.data_ptr<int64_t>(), n, seed);
  return t;
}

EpochBatches::EpochBatches(int64_t n, int64_t count, uint64_t seed, int64_t shard_begin, int64_t shard_end)
    : n_(n), count_(count), begin_(shard_begin), end_(shard_end) {
  if (count_ > 1) order_ = epoch_permutation(n_, seed);
}

int64_t EpochBatches::size(int64_t b) const {
  return (b + 1) * n_ / count_ - b * n_ / count_;
}

at::Tensor EpochBatches::shard_positions(int64_t b) const {
  if (count_ <= 1) return at::arange(end_ - begin_, at::kLong);
  const int64_t lo = b * n_ / count_;
  at::Tensor pos = order_.narrow(0, lo, size(b)).to(at::kLong);
  if (begin_ == 0 && end_ == n_) return pos;
  return pos.masked_select(pos.ge(begin_).logical_and_(pos.lt(end_))).sub_(begin_);
}

}  // namespace symgnn::train
