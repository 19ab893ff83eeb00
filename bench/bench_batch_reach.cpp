// What a mini-batch step restricted to its batch's users and items would still have to
// compute (issue 14's other choice for mini-batches, docs/scale.md "Mini-batch training"):
// for the first batches of an epoch, drawn as `symgnn train` draws them
// (src/train/minibatch.h), the distinct users and items of the batch, the share of the
// prior aggregation's entries their rows hold (H rows of the batch's users, H^T rows of its
// items, over both sides' entries: the O(ratings) part of a full-graph step), and the share
// of each side's nodes within the CGE layers' hops of them. Figures only.
//
//   build/bench/bench_batch_reach --config DIR/data.conf [--set key=value ...] [--batch-sizes 4096,16384,...]
//   build/bench/bench_batch_reach --data FILE_OR_DIR
#include <torch/torch.h>

#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "data_args.h"
#include "runtime/runtime.h"
#include "symgnn/config.h"
#include "symgnn/dataset.h"
#include "symgnn/error.h"
#include "symgnn/graph.h"
#include "symgnn/model.h"
#include "train/minibatch.h"

using namespace symgnn;

namespace {

/// Marks the nodes within `hops` steps of the marked ones along the graph's entries.
int64_t expand(const graph::SparseMatrix& a, std::vector<char>& mark, int64_t hops) {
  int64_t count = 0;
  for (char c : mark) count += c;
  if (a.identity || hops <= 0) return count;
  const int64_t* ptr = a.row_ptr.data_ptr<int64_t>();
  const int64_t* col = a.col_idx.data_ptr<int64_t>();
  std::vector<int64_t> frontier;
  for (size_t v = 0; v < mark.size(); ++v)
    if (mark[v]) frontier.push_back(static_cast<int64_t>(v));
  for (int64_t h = 0; h < hops; ++h) {
    std::vector<int64_t> next;
    for (int64_t v : frontier)
      for (int64_t e = ptr[v]; e < ptr[v + 1]; ++e)
        if (!mark[static_cast<size_t>(col[e])]) {
          mark[static_cast<size_t>(col[e])] = 1;
          next.push_back(col[e]);
        }
    count += static_cast<int64_t>(next.size());
    frontier.swap(next);
  }
  return count;
}

}  // namespace

int main(int argc, char** argv) {
  RunConfig cfg = preset_config("paper");
  cfg.lowrank.variant = "G";
  std::vector<int64_t> sizes = {4096, 16384, 65536, 262144, 1048576};
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i], v = argv[i + 1];
    if (bench::apply_data_arg(cfg, a, v)) continue;
    if (a == "--batch-sizes") {
      sizes.clear();
      std::stringstream ss(v);
      for (std::string s; std::getline(ss, s, ',');) sizes.push_back(std::stoll(s));
    } else {
      std::fprintf(stderr,
                   "bench_batch_reach: unknown option %s (--config FILE, --data SOURCE, --set k=v, "
                   "--batch-sizes B1,B2,...)\n",
                   a.c_str());
      return 2;
    }
  }
  try {
    runtime::set_compute_threads(1);
    Dataset ds = load_dataset(cfg.data);
    graph::resolve_graphs(ds, cfg.graph);
    const models::ModelContext ctx = models::make_context(ds);
    const int64_t n = ctx.train_users.numel(), n1 = ctx.n1, n2 = ctx.n2, hops = cfg.lowrank.layers;
    const at::Tensor users_t = ctx.train_users.to(torch::kLong).contiguous();
    const at::Tensor items_t = ctx.train_items.to(torch::kLong).contiguous();
    const int64_t* users = users_t.data_ptr<int64_t>();
    const int64_t* items = items_t.data_ptr<int64_t>();
    std::vector<int64_t> deg1(static_cast<size_t>(n1)), deg2(static_cast<size_t>(n2));
    for (int64_t r = 0; r < n; ++r)
      ++deg1[static_cast<size_t>(users[r])], ++deg2[static_cast<size_t>(items[r])];
    std::printf("%s: %lld x %lld, %lld training ratings; %lld CGE layer(s); first batches of epoch 1, mean\n",
                cfg.data.source.c_str(), static_cast<long long>(n1), static_cast<long long>(n2),
                static_cast<long long>(n), static_cast<long long>(hops));
    std::printf("  %9s %7s | %9s %8s | %-14s | %-16s %-16s\n", "batch", "steps", "users", "items",
                "prior entries", "users in reach", "items in reach");
    for (int64_t size : sizes) {
      if (size <= 0 || size >= n) continue;
      const int64_t count = train::batch_count(n, size);
      train::EpochBatches batches(n, count, train::epoch_seed(1, 0), 0, n);
      const int64_t sample = std::min<int64_t>(count, 8);
      double users_sum = 0, items_sum = 0, entries = 0, reach1 = 0, reach2 = 0;
      for (int64_t b = 0; b < sample; ++b) {
        const at::Tensor pos = batches.shard_positions(b);
        const int64_t* p = pos.data_ptr<int64_t>();
        std::vector<char> m1(static_cast<size_t>(n1)), m2(static_cast<size_t>(n2));
        for (int64_t k = 0; k < pos.numel(); ++k)
          m1[static_cast<size_t>(users[p[k]])] = 1, m2[static_cast<size_t>(items[p[k]])] = 1;
        for (int64_t u = 0; u < n1; ++u)
          if (m1[static_cast<size_t>(u)])
            users_sum += 1, entries += static_cast<double>(deg1[static_cast<size_t>(u)]);
        for (int64_t i = 0; i < n2; ++i)
          if (m2[static_cast<size_t>(i)])
            items_sum += 1, entries += static_cast<double>(deg2[static_cast<size_t>(i)]);
        reach1 += static_cast<double>(expand(ctx.at1, m1, hops));
        reach2 += static_cast<double>(expand(ctx.at2, m2, hops));
      }
      const double s = static_cast<double>(sample);
      std::printf("  %9lld %7lld | %9.0f %8.0f | %5.1f %% of all | %5.1f %% of users %5.1f %% of items\n",
                  static_cast<long long>(size), static_cast<long long>(count), users_sum / s, items_sum / s,
                  100 * entries / s / (2.0 * static_cast<double>(n)),
                  100 * reach1 / s / static_cast<double>(n1), 100 * reach2 / s / static_cast<double>(n2));
    }
  } catch (const Error& e) {
    std::fprintf(stderr, "bench_batch_reach: %s\n", e.what());
    return 2;
  }
  return 0;
}
