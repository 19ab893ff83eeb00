/// @file
/// Helpers for the row loops of the decoders (dot_mse.cpp, pair_bilinear.cpp), which
/// gather a user's and an item's row for every rating, and of the prior's class products
/// (class_spmm.cpp), which gather or scatter a row per rating.
///
#pragma once

#include <ATen/core/Tensor.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

namespace symgnn::models {

/// Forces a helper into its caller, so that it is compiled for the caller's instruction
/// set (GCC inlines a function into one compiled for another only when forced).
#define SYMGNN_ALWAYS_INLINE __attribute__((always_inline))

/// Compiles a function for AVX-512, AVX2 with FMA and baseline x86-64, the copy used picked
/// once when the program loads (GCC's target_clones): the project is built for baseline
/// x86-64, which has neither. Elsewhere a single build.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define SYMGNN_CPU_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define SYMGNN_CPU_CLONES
#endif

/// The row lengths compiled as fixed-length loops (the presets' and docs' hidden sizes): a
/// kernel instantiated for 16, 32, 64 and any length passes the four, and this picks one.
template <typename Fn>
Fn pick_row_width(int64_t d, Fn d16, Fn d32, Fn d64, Fn any) {
  switch (d) {
    case 16: return d16;
    case 32: return d32;
    case 64: return d64;
    default: return any;
  }
}

/// Pairs per range of the loops' parallel split: enough that a range's private gradient
/// tables are worth their reduction.
constexpr int64_t kPairGrain = 4096;

/// Throws c10::Error, naming `kernel` and `what` ("user", "item"), unless every id of
/// `ids` indexes a table of n rows: the loops read and write rows by these ids unchecked.
void check_pair_ids(const at::Tensor& ids, int64_t n, const char* kernel, const char* what);

/// A 32-byte vector of T (a GCC and Clang extension): 8 floats or 4 doubles, one AVX
/// register or two SSE ones on a baseline x86-64 build. The row loops below are written on
/// it because the compiler does not vectorise them itself: with the row length known it
/// unrolled row_dot into 32 scalar multiply-adds and a chain of 8 scalar additions (d = 32,
/// a forward of dot_mse over 855 k pairs: 10.6 ms, against 6.8 ms with the length unknown
/// and 4.0 ms written on vectors, each compiled for AVX-512 by SYMGNN_CPU_CLONES).
// The vector helpers are always inlined: no vector crosses a call, so the ABI note GCC
// gives for 32-byte vectors on baseline x86-64 does not apply. GCC 12 also warns, wrongly,
// that the scalar tail of row_axpy overflows when inlined with a fixed row length that
// leaves no tail.
#pragma GCC diagnostic push
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wpsabi"
#pragma GCC diagnostic ignored "-Waggressive-loop-optimizations"
#endif
template <typename T>
struct RowVec {
  typedef T type __attribute__((vector_size(32)));
  static constexpr int64_t kWidth = 32 / static_cast<int64_t>(sizeof(T));
  SYMGNN_ALWAYS_INLINE static type load(const T* p) {
    type v;
    std::memcpy(&v, p, sizeof v);
    return v;
  }
  SYMGNN_ALWAYS_INLINE static void store(T* p, type v) { std::memcpy(p, &v, sizeof v); }
  /// The sum of the lanes, pairwise.
  SYMGNN_ALWAYS_INLINE static T sum(type v) {
    T lane[kWidth];
    std::memcpy(lane, &v, sizeof v);
    for (int64_t w = kWidth / 2; w >= 1; w /= 2)
      for (int64_t l = 0; l < w; ++l) lane[l] += lane[l + w];
    return lane[0];
  }
};

/// The dot product of two rows of d values: four independent vector sums (a single
/// running sum is a chain of dependent additions the compiler may not reorder under strict
/// floating point), added pairwise. Differs from the sequential sum by rounding only.
template <typename T>
SYMGNN_ALWAYS_INLINE inline T row_dot(const T* x, const T* y, int64_t d) {
  using V = RowVec<T>;
  constexpr int64_t w = V::kWidth;
  typename V::type acc[4] = {};
  int64_t j = 0;
  for (; j + 4 * w <= d; j += 4 * w)
    for (int64_t q = 0; q < 4; ++q) acc[q] += V::load(x + j + q * w) * V::load(y + j + q * w);
  for (; j + w <= d; j += w) acc[0] += V::load(x + j) * V::load(y + j);
  T r = V::sum((acc[0] + acc[1]) + (acc[2] + acc[3]));
  for (; j < d; ++j) r += x[j] * y[j];
  return r;
}

/// y += a x over rows of d values.
template <typename T>
SYMGNN_ALWAYS_INLINE inline void row_axpy(T a, const T* x, T* y, int64_t d) {
  using V = RowVec<T>;
  constexpr int64_t w = V::kWidth;
  int64_t j = 0;
  for (; j + w <= d; j += w) V::store(y + j, V::load(y + j) + a * V::load(x + j));
  for (; j < d; ++j) y[j] += a * x[j];
}

/// A row being summed: of D values in vector registers when D is a multiple of the vector
/// width (a sum kept in memory is a store and a reload per term, a chain of dependent
/// memory operations: dot_mse's forward and backward over 855 k pairs grouped by user took
/// 10.2 ms with the user's gradient summed in memory, 8.1 ms in registers), of d values in
/// memory otherwise (D = 0: the length known at run time).
template <typename T, int64_t D, bool kInRegisters = (D > 0 && D % RowVec<T>::kWidth == 0)>
struct RowSum {
  using V = RowVec<T>;
  static constexpr int64_t kVectors = D / V::kWidth;
  typename V::type v[kVectors];
  explicit RowSum(int64_t) { zero(); }
  SYMGNN_ALWAYS_INLINE void zero() {
    for (auto& x : v) x = typename V::type{};
  }
  /// this += a x
  SYMGNN_ALWAYS_INLINE void axpy(T a, const T* x) {
    for (int64_t l = 0; l < kVectors; ++l) v[l] += a * V::load(x + l * V::kWidth);
  }
  SYMGNN_ALWAYS_INLINE void store(T* out) const {
    for (int64_t l = 0; l < kVectors; ++l) V::store(out + l * V::kWidth, v[l]);
  }
  /// out += this
  SYMGNN_ALWAYS_INLINE void add_to(T* out) const {
    for (int64_t l = 0; l < kVectors; ++l) V::store(out + l * V::kWidth, V::load(out + l * V::kWidth) + v[l]);
  }
  /// this = x
  SYMGNN_ALWAYS_INLINE void load(const T* x) {
    for (int64_t l = 0; l < kVectors; ++l) v[l] = V::load(x + l * V::kWidth);
  }
  /// out += a this
  SYMGNN_ALWAYS_INLINE void scaled_add_to(T a, T* out) const {
    for (int64_t l = 0; l < kVectors; ++l)
      V::store(out + l * V::kWidth, V::load(out + l * V::kWidth) + a * v[l]);
  }
};

template <typename T, int64_t D>
struct RowSum<T, D, false> {
  std::vector<T> row;
  explicit RowSum(int64_t d) : row(static_cast<size_t>(d)) {}
  SYMGNN_ALWAYS_INLINE void zero() { std::fill(row.begin(), row.end(), T(0)); }
  SYMGNN_ALWAYS_INLINE void axpy(T a, const T* x) {
    row_axpy(a, x, row.data(), static_cast<int64_t>(row.size()));
  }
  SYMGNN_ALWAYS_INLINE void store(T* out) const { std::copy(row.begin(), row.end(), out); }
  SYMGNN_ALWAYS_INLINE void add_to(T* out) const {
    row_axpy(T(1), row.data(), out, static_cast<int64_t>(row.size()));
  }
  SYMGNN_ALWAYS_INLINE void load(const T* x) { std::copy(x, x + row.size(), row.begin()); }
  SYMGNN_ALWAYS_INLINE void scaled_add_to(T a, T* out) const {
    row_axpy(a, row.data(), out, static_cast<int64_t>(row.size()));
  }
};

#pragma GCC diagnostic pop

/// How many pairs ahead the loops prefetch: the gathers are random, and asking early
/// overlaps their cache misses (bench/bench_decoder: 0.80 s to 0.29 s for 8.55 M pairs in
/// random order, 0.22 s to 0.17 s grouped by user, when the loops were scalar).
constexpr int64_t kPrefetchAhead = 8;

/// Asks for the cache lines of a row of n values, to read or to write.
template <typename T>
SYMGNN_ALWAYS_INLINE inline void prefetch_row(const T* row, int64_t n, bool write) {
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
