// The K rating classes' sparse products of the prior aggregation, in one pass
// (src/models/kernels/class_spmm.h) against graph::spmm per class and a stack, cat or sum
// (class_spmm_composite), in each layout and from both sides of a random n x m prior whose
// rows are sorted as a rating file grouped by user is. From the m-row side, kSum reads a
// K x n x d input into an m x d output and so takes the scatter path. Figures only.
//
//   bench_class_spmm [n=20000] [m=5000] [ratings=855000] [classes=5] [d=32] [threads=1] [repeats=10]
#include <torch/torch.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "models/kernels/class_spmm.h"
#include "runtime/runtime.h"

using Clock = std::chrono::steady_clock;
using symgnn::models::ClassLayout;

namespace {

/// Mean milliseconds of `repeats` calls of f, after one warm-up.
template <typename F>
double time_ms(int repeats, F f) {
  f();
  const auto t0 = Clock::now();
  for (int i = 0; i < repeats; ++i) f();
  return std::chrono::duration<double>(Clock::now() - t0).count() / repeats * 1e3;
}

}  // namespace

int main(int argc, char** argv) {
  const int64_t n = argc > 1 ? std::atoll(argv[1]) : 20000, m = argc > 2 ? std::atoll(argv[2]) : 5000;
  const int64_t nnz = argc > 3 ? std::atoll(argv[3]) : 855000, k = argc > 4 ? std::atoll(argv[4]) : 5;
  const int64_t d = argc > 5 ? std::atoll(argv[5]) : 32;
  const int threads = argc > 6 ? std::atoi(argv[6]) : 1, repeats = argc > 7 ? std::atoi(argv[7]) : 10;
  if (n < 1 || m < 1 || nnz < 1 || k < 1 || d < 1 || threads < 1 || repeats < 1) {
    std::fprintf(stderr,
                 "usage: bench_class_spmm [n] [m] [ratings] [classes] [d] [threads] [repeats], all >= 1\n");
    return 2;
  }
  symgnn::runtime::set_compute_threads(threads);
  symgnn::runtime::keep_freed_memory();
  symgnn::runtime::keep_large_blocks_in_heap();
  torch::manual_seed(1);
  // Each rating a random (row, column, class); repeated cells are summed by from_coo, as
  // nothing here depends on the cells being distinct.
  const at::Tensor rows = std::get<0>(torch::randint(0, n, {nnz}, torch::kLong).sort());
  const at::Tensor cols = torch::randint(0, m, {nnz}, torch::kLong);
  const at::Tensor cls = torch::randint(0, k, {nnz}, torch::kLong);
  std::vector<symgnn::graph::SparseMatrix> h, ht;
  for (int64_t c = 0; c < k; ++c) {
    const at::Tensor sel = (cls == c).nonzero().squeeze(1);
    auto hc = symgnn::graph::from_coo(n, m, rows.index_select(0, sel), cols.index_select(0, sel),
                                      torch::rand({sel.numel()}));
    ht.push_back(hc.transpose());
    h.push_back(std::move(hc));
  }
  std::printf(
      "%lld x %lld prior, %lld ratings in %lld classes, d = %lld, %d thread(s); ms per product, "
      "one pass / per class + stack, cat or sum\n",
      static_cast<long long>(n), static_cast<long long>(m), static_cast<long long>(nnz),
      static_cast<long long>(k), static_cast<long long>(d), threads);
  for (const auto* side : {&h, &ht}) {
    const int64_t in_rows = (*side)[0].cols, out_rows = (*side)[0].rows;
    const at::Tensor blocks = torch::randn({in_rows, k * d}), shared = torch::randn({in_rows, d});
    const at::Tensor stacked = torch::randn({k, in_rows, d});
    std::printf("  %lld output rows from %lld:\n", static_cast<long long>(out_rows),
                static_cast<long long>(in_rows));
    struct Case {
      const char* name;
      const at::Tensor& x;
      ClassLayout layout;
    };
    for (const Case& c :
         {Case{"blocks   ", blocks, ClassLayout::kBlocks}, Case{"broadcast", shared, ClassLayout::kBroadcast},
          Case{"sum      ", stacked, ClassLayout::kSum}}) {
      const double fused = time_ms(repeats, [&] { symgnn::models::class_spmm(*side, c.x, c.layout); });
      const double composite =
          time_ms(repeats, [&] { symgnn::models::class_spmm_composite(*side, c.x, c.layout); });
      std::printf("    %s %8.3f / %8.3f  (%.1fx)\n", c.name, fused, composite, composite / fused);
    }
  }
  return 0;
}
