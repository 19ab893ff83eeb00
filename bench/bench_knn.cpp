/// @file
/// The k-NN graph of features, exact (knn.cpp, quadratic) against the HNSW index
/// (knn_approximate.h), the figures behind graph.knn_exact_max (docs/scale.md, "k-NN graphs").
/// For each size n: seconds of each, and the index's recall@k on a sample of rows (the
/// share of its neighbours at least as similar as the exact k-th, so that ties count as
/// found), by brute force in double. Prints figures; asserts nothing.
///
/// Usage: bench_knn [threads] [d] [k] [kind] [n ...]
///   kind: gauss (points around 50 centres, d dimensions) or categories (each item in 1-3 of
///   d categories, binary: the many exact ties of genre features). Defaults: 2 32 10 gauss
///   5000 20000 50000. The exact search runs only up to n = 100,000 (it is the quadratic one).
#include <ATen/Parallel.h>
#include <torch/torch.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "graph/knn_approximate.h"
#include "symgnn/graph.h"

namespace {

at::Tensor features(const std::string& kind, int64_t n, int64_t d) {
  torch::manual_seed(1);
  if (kind == "categories") {
    at::Tensor x = torch::zeros({n, d});
    const at::Tensor count = torch::randint(1, 4, {n}, torch::kLong);
    const at::Tensor cat = torch::randint(0, d, {n, 3}, torch::kLong);
    for (int64_t i = 0; i < n; ++i)
      for (int64_t c = 0; c < count[i].item<int64_t>(); ++c) x[i][cat[i][c].item<int64_t>()] = 1.0f;
    return x;
  }
  const at::Tensor centres = torch::randn({50, d});
  return centres.index_select(0, torch::randint(0, 50, {n}, torch::kLong)) + 0.5 * torch::randn({n, d});
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// Recall@k of the lists on `sample` rows spread over [0, n).
double sampled_recall(const at::Tensor& x, const std::vector<int64_t>& lists, int64_t k, int64_t sample) {
  const at::Tensor xd = x.to(torch::kDouble);
  const at::Tensor xn = xd / xd.norm(2, {1}, true).clamp_min(1e-12);
  const int64_t n = x.size(0), step = std::max<int64_t>(1, n / sample);
  int64_t good = 0, total = 0;
  for (int64_t i = 0; i < n; i += step) {
    at::Tensor s = xn.mv(xn[i]);
    s[i] = -2.0;
    const double bar = std::get<0>(s.topk(k)).select(0, k - 1).item<double>() - 1e-9;
    const double* sp = s.data_ptr<double>();
    for (int64_t r = 0; r < k; ++r) good += sp[lists[static_cast<size_t>(i * k + r)]] >= bar;
    total += k;
  }
  return static_cast<double>(good) / static_cast<double>(total);
}

}  // namespace

int main(int argc, char** argv) {
  const char* env_threads = std::getenv("SYMGNN_THREADS");
  const int threads = argc > 1 ? std::atoi(argv[1]) : (env_threads ? std::atoi(env_threads) : 2);
  const int64_t d = argc > 2 ? std::atoll(argv[2]) : 32;
  const int64_t k = argc > 3 ? std::atoll(argv[3]) : 10;
  const std::string kind = argc > 4 ? argv[4] : "gauss";
  std::vector<int64_t> sizes;
  for (int i = 5; i < argc; ++i) sizes.push_back(std::atoll(argv[i]));
  if (sizes.empty()) sizes = {5000, 20000, 50000};
  if (threads < 1 || d < 1 || k < 1 || (kind != "gauss" && kind != "categories")) {
    std::fprintf(stderr, "usage: bench_knn [threads] [d] [k] [gauss|categories] [n ...]\n");
    return 2;
  }
  at::set_num_threads(threads);
  std::printf("k-NN graph of %s features, d = %lld, k = %lld, %d threads\n", kind.c_str(),
              static_cast<long long>(d), static_cast<long long>(k), threads);
  std::printf("| nodes | exact s | HNSW s (build + search) | HNSW recall@%lld (2,000 rows) |\n",
              static_cast<long long>(k));
  std::printf("|---|---|---|---|\n");
  for (const int64_t n : sizes) {
    const at::Tensor x = features(kind, n, d);
    std::string exact_s = "-";
    if (n <= 100000) {
      const auto t0 = std::chrono::steady_clock::now();
      const auto g = symgnn::graph::knn_graph(x, k, std::clamp<int64_t>((int64_t{1} << 22) / n, 1, 1024));
      exact_s = std::to_string(seconds_since(t0)).substr(0, 6) + " (" + std::to_string(g.size()) + " edges)";
    }
    const auto t1 = std::chrono::steady_clock::now();
    const std::vector<int64_t> lists = symgnn::graph::approximate_neighbours(x, k);
    const double hnsw_s = seconds_since(t1);
    std::printf("| %lld | %s | %.2f | %.4f |\n", static_cast<long long>(n), exact_s.c_str(), hnsw_s,
                sampled_recall(x, lists, k, 2000));
    std::fflush(stdout);
  }
  return 0;
}
