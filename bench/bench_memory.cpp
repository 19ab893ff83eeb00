// Where the memory of low-rank G training goes (issue 14, docs/scale.md "Memory"): the
// resident memory after each stage a `symgnn train` run goes through and its peak during
// the stage, above the resident memory at the start, per training rating. Prints figures; asserts
// nothing. The model is bench_scale's (the paper's low-rank G, hidden 32, 2 CGE layers).
//
//   build/bench/bench_memory --config DIR/data.conf [--set key=value ...] [--batch-size N]
//   build/bench/bench_memory --data FILE_OR_DIR
#include <torch/torch.h>

#include <cstdio>
#include <string>

#include "data_args.h"
#include "runtime/runtime.h"
#include "symgnn/config.h"
#include "symgnn/dataset.h"
#include "symgnn/error.h"
#include "symgnn/graph.h"
#include "symgnn/model.h"
#include "train/memory.h"

using namespace symgnn;

namespace {

double mb(int64_t b) {
  return static_cast<double>(b) / 1e6;
}

/// Resident memory after each stage and its peak during the stage, both above the start.
struct Meter {
  int64_t start = train::current_memory_bytes();
  double per = 1;  // training ratings
  void begin() { train::reset_peak_memory(); }
  void stage(const char* what) {
    const int64_t now = train::current_memory_bytes() - start, peak = train::peak_memory_bytes() - start;
    std::printf("  %-46s resident %8.1f MB (%6.1f B/rating), peak during it %8.1f MB (%6.1f B/rating)\n",
                what, mb(now), static_cast<double>(now) / per, mb(peak), static_cast<double>(peak) / per);
  }
};

}  // namespace

int main(int argc, char** argv) {
  RunConfig cfg = preset_config("paper");
  cfg.lowrank.variant = "G";
  int64_t batch = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i], v = argv[i + 1];
    if (bench::apply_data_arg(cfg, a, v)) continue;
    if (a == "--batch-size") {
      batch = std::stoll(v);
    } else {
      std::fprintf(
          stderr,
          "bench_memory: unknown option %s (--config FILE, --data SOURCE, --set k=v, --batch-size N)\n",
          a.c_str());
      return 2;
    }
  }
  try {
    runtime::set_compute_threads(1);
    runtime::keep_freed_memory();  // as `symgnn train` does
    Meter m;
    std::printf("%s: resident %.1f MB at the start (LibTorch, OpenBLAS, the program)\n",
                cfg.data.source.c_str(), mb(m.start));
    m.begin();
    Dataset ds = load_dataset(cfg.data);
    m.per = static_cast<double>(ds.train.size());
    std::printf("  %zu training ratings, %lld x %lld\n", ds.train.size(),
                static_cast<long long>(ds.users.count), static_cast<long long>(ds.items.count));
    m.stage("load_dataset");
    m.begin();
    graph::resolve_graphs(ds, cfg.graph);
    runtime::release_freed_memory();  // as `symgnn train` does after loading
    m.stage("resolve_graphs, then release_freed_memory");
    m.begin();
    models::ModelContext ctx = models::make_context(ds);
    runtime::release_freed_memory();  // as train_sweep does
    runtime::keep_large_blocks_in_heap();
    m.stage("make_context, then release_freed_memory");
    m.begin();
    torch::manual_seed(1);
    auto model = models::make_model(cfg, ctx);
    m.stage("make_model (normalised priors, parameters)");
    torch::optim::AdamW opt(model->parameters(), torch::optim::AdamWOptions(0.01));
    at::Tensor users = ctx.train_users, items = ctx.train_items, values = ctx.train_values;
    if (batch > 0 && batch < users.size(0)) {
      users = users.narrow(0, 0, batch), items = items.narrow(0, 0, batch),
      values = values.narrow(0, 0, batch);
    }
    for (int step = 0; step < 2; ++step) {
      m.begin();
      model->train();
      opt.zero_grad();
      at::Tensor pred;
      at::Tensor loss = model->training_loss(users, items, values, &pred);
      loss.backward();
      opt.step();
      m.stage(step == 0 ? "training step 1" : "training step 2 (Adam's moments now exist)");
    }
    {
      torch::NoGradGuard no_grad;
      model->eval();
      m.begin();
      at::Tensor p = model->forward(ctx.train_users, ctx.train_items);
      m.stage("forward over all training pairs (no gradient)");
    }
  } catch (const Error& e) {
    std::fprintf(stderr, "bench_memory: %s\n", e.what());
    return 2;
  }
  return 0;
}
