// Milliseconds per full-batch forward + backward of the low-rank model, per variant, on
// a random Douban-sized problem: 3000 x 3000, ~20 neighbours per node, 130k ratings in
// 1..5. Figures only, no assertions.
//
//   bench_lowrank [threads=2] [hidden=32] [repeats=20]
#include <torch/torch.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "models/lowrank_model.h"
#include "random_context.h"

using bench::random_context;
using symgnn::models::ModelContext;

int main(int argc, char** argv) {
  const int threads = argc > 1 ? std::atoi(argv[1]) : 2;
  const int64_t hidden = argc > 2 ? std::atoll(argv[2]) : 32;
  const int repeats = argc > 3 ? std::atoi(argv[3]) : 20;
  at::set_num_threads(threads);
  torch::Device device = torch::cuda::is_available() ? torch::kCUDA : torch::kCPU;
  const ModelContext ctx = random_context(3000, 3000, 130000).to(device);
  std::printf("low-rank model, 3000 x 3000, %lld ratings, nnz(At1) %lld, hidden %lld, %d threads, %s\n",
              static_cast<long long>(ctx.train_values.numel()), static_cast<long long>(ctx.at1.nnz()),
              static_cast<long long>(hidden), threads, device.str().c_str());
  for (const char* variant : {"full", "G", "A"}) {
    symgnn::LowRankConfig cfg;
    cfg.variant = variant;
    cfg.hidden = hidden;
    torch::manual_seed(1);
    symgnn::models::LowRankModel model(cfg, ctx);
    torch::optim::Adam adam(model.parameters(), torch::optim::AdamOptions(1e-3));
    auto step = [&] {
      adam.zero_grad();
      const at::Tensor loss =
          (model.forward(ctx.train_users, ctx.train_items) - ctx.train_values).pow(2).mean();
      loss.backward();
      return loss;
    };
    for (int i = 0; i < 3; ++i) step();  // warm-up: allocator, OpenMP pool
    if (device.is_cuda()) torch::cuda::synchronize();
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < repeats; ++i) step();
    if (device.is_cuda()) torch::cuda::synchronize();
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count() / repeats;
    std::printf("  %-4s  %8.1f ms per forward+backward\n", variant, ms);
  }
  return 0;
}
