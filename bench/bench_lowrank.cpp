// Milliseconds per full-batch forward + backward of the low-rank model, per variant, on
// a random Douban-sized problem: 3000 x 3000, ~20 neighbours per node, 130k ratings in
// 1..5. Figures only, no assertions.
//
//   bench_lowrank [threads=2] [hidden=32] [repeats=20]
#include <torch/torch.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>

#include "models/lowrank_model.h"

namespace {

using symgnn::models::ModelContext;

/// Symmetric random graph with about `degree` neighbours per node, as a Dataset side.
symgnn::NodeSet random_side(int64_t n, int64_t degree, std::mt19937& gen) {
  symgnn::NodeSet side;
  side.count = n;
  side.graph.num_nodes = n;
  std::uniform_int_distribution<int64_t> node(0, n - 1);
  for (int64_t u = 0; u < n; ++u)
    for (int64_t e = 0; e < degree / 2; ++e) {
      const int64_t v = node(gen);
      if (v == u) continue;
      side.graph.add(u, v, 1.0f);
      side.graph.add(v, u, 1.0f);
    }
  side.graph_origin = symgnn::GraphOrigin::File;
  return side;
}

ModelContext random_context(int64_t n1, int64_t n2, int64_t ratings) {
  std::mt19937 gen(42);
  symgnn::Dataset ds;
  ds.name = "bench";
  ds.users = random_side(n1, 20, gen);
  ds.items = random_side(n2, 20, gen);
  // Distinct pairs: a random sample of cells without replacement.
  std::vector<int64_t> cells(static_cast<size_t>(n1 * n2));
  for (size_t i = 0; i < cells.size(); ++i) cells[i] = static_cast<int64_t>(i);
  std::uniform_int_distribution<int> rating(1, 5);
  for (int64_t e = 0; e < ratings; ++e) {
    std::uniform_int_distribution<int64_t> pick(e, static_cast<int64_t>(cells.size()) - 1);
    std::swap(cells[static_cast<size_t>(e)], cells[static_cast<size_t>(pick(gen))]);
    const int64_t c = cells[static_cast<size_t>(e)];
    ds.train.add(c / n2, c % n2, static_cast<float>(rating(gen)));
  }
  ds.rating_levels = {1, 2, 3, 4, 5};
  ds.rating_min = 1;
  ds.rating_max = 5;
  return symgnn::models::make_context(ds);
}

}  // namespace

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
