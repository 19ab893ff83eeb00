// Folding a new user into a served model (TrainedModel::with_new_nodes), step by step: what
// serve's POST /v1/recommend with ratings costs (docs/serve.md). Prints figures.
//
//   build/bench/bench_fold_in --model runs/douban [--repeats 5]
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "symgnn/recommend.h"
#include "symgnn/trained_model.h"

using Clock = std::chrono::steady_clock;

int main(int argc, char** argv) {
  std::string dir;
  int repeats = 5;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--model") dir = argv[i + 1];
    if (a == "--repeats") repeats = std::stoi(argv[i + 1]);
  }
  if (dir.empty()) {
    std::fprintf(stderr, "bench_fold_in: --model DIR is required\n");
    return 2;
  }
  const symgnn::TrainedModel model = symgnn::TrainedModel::load(dir);
  const auto& ds = model.dataset();
  std::printf("bench_fold_in: %s (%s, ranker %s), %lld users x %lld items\n", dir.c_str(),
              model.name().c_str(), model.ranker().c_str(), static_cast<long long>(model.users()),
              static_cast<long long>(model.items()));
  for (int r = 0; r < repeats; ++r) {
    symgnn::NewNodes nodes;
    for (int k = 0; k < 5; ++k)
      nodes.rating_rows.push_back(
          {"bench-new-user", ds.items.id_of((r * 37 + k * 101) % model.items()), model.rating_max()});
    const auto t0 = Clock::now();
    const symgnn::TrainedModel grown = model.with_new_nodes(nodes);
    const auto t1 = Clock::now();
    symgnn::RecommendOptions o;
    o.k = 10;
    const auto lists = symgnn::recommend(grown, {grown.users() - 1}, o);
    const auto t2 = Clock::now();
    std::printf("with_new_nodes %8.1f ms   recommend %8.1f ms   (%zu items)\n",
                std::chrono::duration<double, std::milli>(t1 - t0).count(),
                std::chrono::duration<double, std::milli>(t2 - t1).count(), lists.front().items.size());
  }
  return 0;
}
