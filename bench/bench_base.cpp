// Milliseconds per full-batch forward + backward of the base model and the peak resident
// memory of one such step, per variant, on a random Douban-sized problem: 3000 x 3000,
// ~20 neighbours per node, 130k ratings in 1..5. Figures only, no assertions.
//
//   bench_base [threads=2] [hidden=32] [repeats=10] [n=3000]
#include <malloc.h>
#include <torch/torch.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "models/base_model.h"
#include "random_context.h"
#include "train/memory.h"

using bench::random_context;
using symgnn::models::ModelContext;

int main(int argc, char** argv) {
  const int threads = argc > 1 ? std::atoi(argv[1]) : 2;
  const int64_t hidden = argc > 2 ? std::atoll(argv[2]) : 32;
  const int repeats = argc > 3 ? std::atoi(argv[3]) : 10;
  const int64_t n = argc > 4 ? std::atoll(argv[4]) : 3000;
  at::set_num_threads(threads);
  const ModelContext ctx = random_context(n, n, n * 130000 / 3000);
  std::printf("base model, %lld x %lld, %lld ratings, nnz(At1) %lld, hidden %lld, %d threads, cpu\n",
              static_cast<long long>(n), static_cast<long long>(n),
              static_cast<long long>(ctx.train_values.numel()), static_cast<long long>(ctx.at1.nnz()),
              static_cast<long long>(hidden), threads);
  std::printf("  variant  ms/step  peak RSS of a step (MiB)  above the step's start (MiB)\n");
  for (const char* variant : {"G", "A", "full"}) {
    symgnn::BaseConfig cfg;
    cfg.variant = variant;
    cfg.hidden = hidden;
    torch::manual_seed(1);
    symgnn::models::BaseModel model(cfg, ctx);
    torch::optim::Adam adam(model.parameters(), torch::optim::AdamOptions(1e-3));
    auto step = [&] {
      adam.zero_grad();
      const at::Tensor loss =
          (model.forward(ctx.train_users, ctx.train_items) - ctx.train_values).pow(2).mean();
      loss.backward();
      adam.step();
    };
    for (int i = 0; i < 2; ++i) step();  // warm-up: allocator, OpenMP pool
    malloc_trim(0);
    const int64_t start = symgnn::train::current_memory_bytes();
    symgnn::train::reset_peak_memory();
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < repeats; ++i) step();
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() / repeats;
    const int64_t peak = symgnn::train::peak_memory_bytes();
    std::printf("  %-7s %8.1f  %10.1f  %10.1f\n", variant, ms, peak / 1048576.0, (peak - start) / 1048576.0);
  }
  return 0;
}
