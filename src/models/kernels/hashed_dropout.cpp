#include "models/kernels/hashed_dropout.h"

#include <ATen/CPUGeneratorImpl.h>
#include <ATen/Dispatch.h>
#include <ATen/Parallel.h>
#include <torch/autograd.h>
#include <torch/types.h>

#include <cmath>
#include <cstdint>
#include <mutex>

#include "models/kernels/pair_rows.h"

namespace symgnn::models {

namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

constexpr uint64_t kGolden = 0x9E3779B97F4A7C15ULL;

/// splitmix64's finaliser: 64 well-mixed bits from a counter.
inline uint64_t mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

/// One draw of the default CPU generator: the seed of one mask.
uint64_t draw_seed() {
  at::Generator gen = at::detail::getDefaultCPUGenerator();
  std::lock_guard<std::mutex> lock(gen.mutex());
  return at::check_generator<at::CPUGeneratorImpl>(gen)->random64();
}

/// out = in * mask * scale over elements [begin, end); element i is kept where the high half
/// of mix(seed + (i + 1) kGolden) is below `threshold`. Elements are independent of one
/// another, so the result is the same whichever thread computes which range, and the loop
/// vectorises (64-bit multiplies: AVX-512's, or AVX2's emulation of them).
template <typename T>
SYMGNN_ALWAYS_INLINE inline void masked_scale(const T* in, T* out, int64_t begin, int64_t end, uint64_t seed,
                                              uint64_t threshold, T scale) {
  for (int64_t i = begin; i < end; ++i) {
    const uint64_t r = mix(seed + static_cast<uint64_t>(i + 1) * kGolden);
    out[i] = (r >> 32) < threshold ? in[i] * scale : T(0);
  }
}

/// The kernel per type, compiled for each instruction set (SYMGNN_CPU_CLONES, pair_rows.h).
SYMGNN_CPU_CLONES void masked_scale_float(const float* in, float* out, int64_t begin, int64_t end,
                                          uint64_t seed, uint64_t threshold, float scale) {
  masked_scale<float>(in, out, begin, end, seed, threshold, scale);
}
SYMGNN_CPU_CLONES void masked_scale_double(const double* in, double* out, int64_t begin, int64_t end,
                                           uint64_t seed, uint64_t threshold, double scale) {
  masked_scale<double>(in, out, begin, end, seed, threshold, scale);
}

void masked_scale_range(const float* in, float* out, int64_t begin, int64_t end, uint64_t seed,
                        uint64_t threshold, float scale) {
  masked_scale_float(in, out, begin, end, seed, threshold, scale);
}
void masked_scale_range(const double* in, double* out, int64_t begin, int64_t end, uint64_t seed,
                        uint64_t threshold, double scale) {
  masked_scale_double(in, out, begin, end, seed, threshold, scale);
}

at::Tensor apply_mask(const at::Tensor& x_in, uint64_t seed, uint64_t threshold, double scale) {
  const at::Tensor x = x_in.contiguous();
  at::Tensor out = torch::empty_like(x, at::MemoryFormat::Contiguous);
  AT_DISPATCH_FLOATING_TYPES(x.scalar_type(), "hashed_dropout", [&] {
    const scalar_t* in = x.data_ptr<scalar_t>();
    scalar_t* o = out.data_ptr<scalar_t>();
    at::parallel_for(0, x.numel(), 32768, [&](int64_t begin, int64_t end) {
      masked_scale_range(in, o, begin, end, seed, threshold, static_cast<scalar_t>(scale));
    });
  });
  return out;
}

/// The mask as an autograd node whose backward is itself (the same seed).
struct MaskFunction : public torch::autograd::Function<MaskFunction> {
  static at::Tensor forward(AutogradContext* ctx, const at::Tensor& x, int64_t seed, int64_t threshold,
                            double scale) {
    ctx->saved_data["seed"] = seed;
    ctx->saved_data["threshold"] = threshold;
    ctx->saved_data["scale"] = scale;
    at::NoGradGuard no_grad;
    return apply_mask(x, static_cast<uint64_t>(seed), static_cast<uint64_t>(threshold), scale);
  }

  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    return {MaskFunction::apply(grads[0], ctx->saved_data["seed"].toInt(),
                                ctx->saved_data["threshold"].toInt(), ctx->saved_data["scale"].toDouble()),
            at::Tensor(), at::Tensor(), at::Tensor()};
  }
};

}  // namespace

at::Tensor hashed_dropout(const at::Tensor& x, double p, bool train) {
  TORCH_CHECK(p >= 0 && p < 1, "hashed_dropout: p must be in [0, 1), got ", p);
  if (!train || p == 0) return x;
  const bool ours = x.device().is_cpu() && (x.scalar_type() == at::kFloat || x.scalar_type() == at::kDouble);
  if (!ours) return torch::dropout(x, p, train);
  const double keep = 1 - p;
  // (1 - p) 2^32, at most 2^32 (every element kept).
  const auto threshold = static_cast<int64_t>(std::llround(std::ldexp(keep, 32)));
  const auto seed = static_cast<int64_t>(draw_seed());
  return MaskFunction::apply(x, seed, threshold, 1 / keep);
}

}  // namespace symgnn::models
