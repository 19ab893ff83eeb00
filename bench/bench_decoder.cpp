// The dot decoder's training loss over K pairs, forward and backward: the fused one pass
// (src/models/kernels/dot_mse.h) against the composite of ATen operations it replaced, on
// random representations, on pairs in random order and grouped by user (as the generated
// sets and most rating files are, and the trainer's full batch keeps). Figures only.
//
//   bench_decoder [n1=69878] [n2=10677] [pairs=8550000] [d=32] [threads=1] [repeats=5]
#include <torch/torch.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "models/kernels/dot_mse.h"
#include "runtime/runtime.h"

using Clock = std::chrono::steady_clock;
using symgnn::models::DotDecoder;

namespace {

/// Median-free mean seconds of `repeats` forward+backward passes of `loss_of`, after one warm-up.
template <typename F>
double time_passes(const DotDecoder& dec, int repeats, F loss_of) {
  double total = 0;
  for (int i = -1; i < repeats; ++i) {
    for (at::Tensor t : {dec.u1, dec.u2, dec.b1, dec.b2}) t.mutable_grad() = at::Tensor();
    const auto t0 = Clock::now();
    loss_of().backward();
    if (i >= 0) total += std::chrono::duration<double>(Clock::now() - t0).count();
  }
  return total / repeats;
}

}  // namespace

int main(int argc, char** argv) {
  const int64_t n1 = argc > 1 ? std::atoll(argv[1]) : 69878, n2 = argc > 2 ? std::atoll(argv[2]) : 10677;
  const int64_t k = argc > 3 ? std::atoll(argv[3]) : 8550000, d = argc > 4 ? std::atoll(argv[4]) : 32;
  const int threads = argc > 5 ? std::atoi(argv[5]) : 1, repeats = argc > 6 ? std::atoi(argv[6]) : 5;
  symgnn::runtime::set_compute_threads(threads);
  torch::manual_seed(1);
  DotDecoder dec{torch::randn({n1, d}).requires_grad_(),
                 torch::randn({n2, d}).requires_grad_(),
                 torch::randn({n1}).requires_grad_(),
                 torch::randn({n2}).requires_grad_(),
                 3.5,
                 1.1};
  const at::Tensor target = torch::randint(1, 6, {k}, torch::kFloat);
  const double w = 1.0 / static_cast<double>(k);
  std::printf("dot decoder, %lld x %lld nodes, %lld pairs, d = %lld, %d thread(s), forward + backward:\n",
              static_cast<long long>(n1), static_cast<long long>(n2), static_cast<long long>(k),
              static_cast<long long>(d), threads);
  const at::Tensor random_users = torch::randint(0, n1, {k}, torch::kLong);
  const at::Tensor items = torch::randint(0, n2, {k}, torch::kLong);
  for (const bool grouped : {false, true}) {
    const at::Tensor users = grouped ? std::get<0>(random_users.sort()) : random_users;
    const double fused =
        time_passes(dec, repeats, [&] { return symgnn::models::dot_mse(dec, users, items, target, w); });
    const double composite = time_passes(
        dec, repeats, [&] { return symgnn::models::dot_mse_composite(dec, users, items, target, w); });
    std::printf("  pairs %-16s fused (dot_mse) %.4f s, composite (ATen ops) %.4f s: %.1fx\n",
                grouped ? "grouped by user" : "in random order", fused, composite, composite / fused);
  }
  return 0;
}
