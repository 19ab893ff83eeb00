/// @file
/// HNSW k-NN lists (knn_approximate.h). hnswlib's InnerProductSpace measures 1 - <a, b>, so
/// on unit rows the nearest are the most cosine-similar, as in knn.cpp.
#include "graph/knn_approximate.h"

#include <ATen/Parallel.h>
// hnswlib 0.6's SSE prefetches read the neighbour id one past the end of a list
// (searchBaseLayer: `*(datal + j + 1)`; nmslib/hnswlib issues 107 and 578, open upstream).
// The read stays inside malloc's block and only aims a prefetch, so release builds keep
// the vectorised code; the AddressSanitizer build (scripts/sanitize.sh) reports it and
// takes hnswlib's plain loops instead.
#if defined(__SANITIZE_ADDRESS__)
#define NO_MANUAL_VECTORIZATION
#endif
#include <hnswlib/hnswlib.h>
#include <torch/types.h>
#include <torch/utils.h>

#include <algorithm>
#include <cstring>
#include <tuple>
#include <utility>
#include <vector>

#include "graph/knn_common.h"

namespace symgnn::graph {

namespace {

/// Rows with equal values, grouped: HNSW links poorly among many identical points (genre or
/// category features: thousands of items with the same few categories; recall@10 0.65 on
/// 100,000 such items before grouping, bench/bench_knn.cpp), and within a group every
/// member is at similarity 1 to the others, so only one row per group is indexed.
struct Groups {
  std::vector<int64_t> first;    // group -> its lowest row (the one indexed); numbered by it
  std::vector<int64_t> ptr{0};   // group -> [ptr[g], ptr[g + 1]) in members
  std::vector<int64_t> members;  // rows, ascending within each group
};

Groups group_equal_rows(const float* rows, int64_t n, int64_t d) {
  const size_t bytes = static_cast<size_t>(d) * sizeof(float);
  std::vector<int64_t> order(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) order[static_cast<size_t>(i)] = i;
  std::sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
    const int c = std::memcmp(rows + a * d, rows + b * d, bytes);
    return c != 0 ? c < 0 : a < b;
  });
  // Runs of equal rows in `order`, each ascending by row: (its lowest row, begin, end).
  std::vector<std::tuple<int64_t, int64_t, int64_t>> runs;
  for (int64_t r = 0; r < n; ++r) {
    if (r > 0 && std::memcmp(rows + order[r - 1] * d, rows + order[r] * d, bytes) == 0) continue;
    if (!runs.empty()) std::get<2>(runs.back()) = r;
    runs.emplace_back(order[static_cast<size_t>(r)], r, n);
  }
  std::sort(runs.begin(), runs.end());  // groups numbered by their lowest row
  Groups g;
  g.members.reserve(static_cast<size_t>(n));
  for (const auto& [lowest, begin, end] : runs) {
    g.first.push_back(lowest);
    for (int64_t r = begin; r < end; ++r) g.members.push_back(order[static_cast<size_t>(r)]);
    g.ptr.push_back(static_cast<int64_t>(g.members.size()));
  }
  return g;
}

}  // namespace

std::vector<int64_t> approximate_neighbours(const at::Tensor& x, int64_t k, const HnswSettings& hnsw) {
  TORCH_CHECK(x.dim() == 2, "knn_graph_approximate: x must be n x d, got ", x.dim(), "-D");
  TORCH_CHECK(k >= 1, "knn_graph_approximate: k must be >= 1, got ", k);
  TORCH_CHECK(hnsw.m >= 2 && hnsw.ef_construction >= 1 && hnsw.ef_search >= 1,
              "knn_graph_approximate: HNSW settings must be positive (M >= 2)");
  torch::NoGradGuard no_grad;
  const int64_t n = x.size(0), d = x.size(1);
  const int64_t kk = std::min(k, std::max<int64_t>(n - 1, 0));
  std::vector<int64_t> out(static_cast<size_t>(n * kk));
  if (kk == 0) return out;
  const at::Tensor xn = knn_detail::unit_rows(x).to(torch::kCPU, torch::kFloat).contiguous();
  const float* rows = xn.data_ptr<float>();
  const Groups groups = group_equal_rows(rows, n, d);
  const auto n_groups = static_cast<int64_t>(groups.first.size());

  hnswlib::InnerProductSpace space(static_cast<size_t>(d));
  hnswlib::HierarchicalNSW<float> index(&space, static_cast<size_t>(n_groups), static_cast<size_t>(hnsw.m),
                                        static_cast<size_t>(hnsw.ef_construction),
                                        static_cast<size_t>(hnsw.seed));
  // One thread, group order: the index (its random levels and links) depends on nothing else.
  for (int64_t g = 0; g < n_groups; ++g)
    index.addPoint(rows + groups.first[static_cast<size_t>(g)] * d, static_cast<hnswlib::labeltype>(g));
  const int64_t want = std::min(kk + 1, n_groups);  // enough groups for kk rows besides the query's group
  index.setEf(static_cast<size_t>(std::max(hnsw.ef_search, want)));

  at::parallel_for(0, n_groups, 64, [&](int64_t b, int64_t e) {
    std::vector<std::pair<float, int64_t>> found;  // (distance, group): ascending = best first
    for (int64_t g = b; g < e; ++g) {
      auto heap = index.searchKnn(rows + groups.first[static_cast<size_t>(g)] * d, static_cast<size_t>(want));
      found.clear();
      for (; !heap.empty(); heap.pop())
        if (static_cast<int64_t>(heap.top().second) != g)
          found.emplace_back(heap.top().first, static_cast<int64_t>(heap.top().second));
      std::sort(found.begin(), found.end());  // groups are numbered by lowest row: ties to the lower
      for (int64_t m = groups.ptr[static_cast<size_t>(g)]; m < groups.ptr[static_cast<size_t>(g) + 1]; ++m) {
        const int64_t i = groups.members[static_cast<size_t>(m)];
        int64_t* list = &out[static_cast<size_t>(i * kk)];
        int64_t taken = 0;
        const auto take_group = [&](int64_t h) {
          for (int64_t r = groups.ptr[static_cast<size_t>(h)];
               r < groups.ptr[static_cast<size_t>(h) + 1] && taken < kk; ++r)
            if (groups.members[static_cast<size_t>(r)] != i)
              list[taken++] = groups.members[static_cast<size_t>(r)];
        };
        take_group(g);  // equal rows first: similarity 1 (0 for a zero row, as to everything)
        for (size_t f = 0; f < found.size() && taken < kk; ++f) take_group(found[f].second);
        // The index may return fewer than asked (rare, on a badly linked region): the lowest
        // other rows not yet taken fill the list, as the exact tie rule would at similarity 0.
        for (int64_t j = 0; j < n && taken < kk; ++j)
          if (j != i && std::find(list, list + taken, j) == list + taken) list[taken++] = j;
      }
    }
  });
  return out;
}

EdgeList knn_graph_approximate(const at::Tensor& x, int64_t k, const HnswSettings& hnsw) {
  TORCH_CHECK(x.dim() == 2, "knn_graph_approximate: x must be n x d, got ", x.dim(), "-D");
  TORCH_CHECK(k >= 1, "knn_graph_approximate: k must be >= 1, got ", k);
  const int64_t n = x.size(0);
  if (n <= 1 || k >= n - 1) return knn_detail::trivial_graph(n);
  const std::vector<int64_t> nb = approximate_neighbours(x, k, hnsw);
  const at::Tensor dst = torch::tensor(nb, torch::kLong);
  const at::Tensor src = torch::arange(n, torch::kLong).repeat_interleave(k);
  return knn_detail::symmetric_union(n, src, dst);
}

}  // namespace symgnn::graph
