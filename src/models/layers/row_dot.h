/// @file
/// The dot product of two rows, for the per-pair loops of the decoders (dot_mse.cpp,
/// pair_bilinear.cpp). A single running sum is a chain of dependent additions the compiler
/// may not reorder (strict floating point), about 4 cycles per element; eight independent
/// partial sums let it use vector lanes and overlap the additions. The result differs from
/// the sequential sum by rounding only.
#pragma once

#include <cstdint>

namespace symgnn::models {

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

}  // namespace symgnn::models
