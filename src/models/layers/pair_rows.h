/// @file
/// Helpers for the per-pair loops of the decoders (dot_mse.cpp, pair_bilinear.cpp),
/// which gather a user's and an item's row for every rating.
///
/// row_dot: the dot product of two rows. A single running sum is a chain of dependent additions the compiler
/// may not reorder (strict floating point), about 4 cycles per element; eight independent
/// partial sums let it use vector lanes and overlap the additions. The result differs from
/// the sequential sum by rounding only.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>

namespace symgnn::models {

/// Pairs per range of the loops' parallel split: enough that a range's private gradient
/// tables are worth their reduction.
constexpr int64_t kPairGrain = 4096;

/// Throws c10::Error, naming `kernel` and `what` ("user", "item"), unless every id of
/// `ids` indexes a table of n rows: the loops read and write rows by these ids unchecked.
void check_pair_ids(const at::Tensor& ids, int64_t n, const char* kernel, const char* what);

template <typename T>
inline T row_dot(const T* x, const T* y, int64_t d) {
  constexpr int64_t kLanes = 8;
  T lane[kLanes] = {};
  int64_t j = 0;
  for (; j + kLanes <= d; j += kLanes)
    for (int64_t l = 0; l < kLanes; ++l) lane[l] += x[j + l] * y[j + l];
  T acc = 0;
  for (; j < d; ++j) acc += x[j] * y[j];
  for (int64_t l = 0; l < kLanes; ++l) acc += lane[l];
  return acc;
}

/// How many pairs ahead the loops prefetch: the gathers are random, and asking early
/// overlaps their cache misses (bench/bench_decoder: 0.80 s to 0.29 s for 8.55 M pairs in
/// random order, 0.22 s to 0.17 s grouped by user).
constexpr int64_t kPrefetchAhead = 8;

/// Asks for the cache lines of a row of n values, to read or to write.
template <typename T>
inline void prefetch_row(const T* row, int64_t n, bool write) {
  constexpr int64_t kLine = 64 / static_cast<int64_t>(sizeof(T));
  for (int64_t j = 0; j < n; j += kLine) {
    if (write)
      __builtin_prefetch(row + j, 1);
    else
      __builtin_prefetch(row + j, 0);
  }
  if (n > 0) __builtin_prefetch(row + n - 1, write ? 1 : 0);  // a row that straddles one more line
}

}  // namespace symgnn::models
