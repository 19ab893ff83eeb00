// Time and peak resident memory of `recommend --all --k 10` (symgnn::recommend_each over
// every user) for the default model on Douban (when the data is present) and on a random
// users x items set. The model is trained for a few epochs first (its quality does not
// matter here). Figures only, no assertions.
//
//   bench_recommend [users=100000] [items=20000] [ratings=2000000] [threads=2]
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include "runtime/runtime.h"
#include "symgnn/fit.h"
#include "symgnn/graph.h"
#include "symgnn/recommend.h"
#include "train/memory.h"

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

/// Trains the default model (the recommended preset: low-rank G with the prior encoder and
/// the class decoder) for 3 epochs on `source` into `dir`.
void train_model(const std::string& source, const std::string& dir) {
  symgnn::RunConfig cfg = symgnn::preset_config("recommended");
  cfg.data.source = source;
  cfg.train.epochs = 3;
  cfg.train.runs = 1;
  cfg.train.protocol = "early_stop";
  cfg.train.average_last = 1;
  symgnn::FitOptions opts;
  opts.out_dir = dir;
  opts.overwrite = true;
  symgnn::fit(cfg, opts);
}

void bench(const std::string& label, const std::string& dir) {
  const symgnn::TrainedModel m = symgnn::TrainedModel::load(dir);
  std::vector<int64_t> users(static_cast<size_t>(m.users()));
  for (int64_t u = 0; u < m.users(); ++u) users[static_cast<size_t>(u)] = u;
  symgnn::RecommendOptions opts;
  opts.k = 10;
  symgnn::train::reset_peak_memory();
  const auto t0 = Clock::now();
  int64_t lists = 0;
  symgnn::recommend_each(m, users, opts, [&](const symgnn::UserRecommendations&) { ++lists; });
  const double secs = std::chrono::duration<double>(Clock::now() - t0).count();
  std::printf("%-34s %8lld users x %6lld items: %8.2f s, %7.1f us/user, peak resident %7.1f MiB\n",
              label.c_str(), static_cast<long long>(m.users()), static_cast<long long>(m.items()), secs,
              1e6 * secs / static_cast<double>(lists),
              static_cast<double>(symgnn::train::peak_memory_bytes()) / (1 << 20));
}

}  // namespace

int main(int argc, char** argv) {
  const int64_t n1 = argc > 1 ? std::atoll(argv[1]) : 100000;
  const int64_t n2 = argc > 2 ? std::atoll(argv[2]) : 20000;
  const int64_t nr = argc > 3 ? std::atoll(argv[3]) : 2000000;
  const int threads = argc > 4 ? std::atoi(argv[4]) : 2;
  symgnn::runtime::set_compute_threads(threads);
  symgnn::runtime::keep_freed_memory();
  const fs::path tmp = fs::temp_directory_path() / ("bench_recommend_" + std::to_string(::getpid()));
  fs::create_directories(tmp);
  std::printf(
      "recommend --all --k 10, the recommended preset's model (low-rank G, prior encoder, class decoder), %d "
      "thread(s)\n",
      threads);

  const char* env = std::getenv("SYMGNN_DATA_DIR");
  const fs::path douban = fs::path(env ? env : "../shared/data") / "monti" / "douban.mat";
  if (fs::exists(douban)) {
    train_model(douban.string(), (tmp / "douban").string());
    bench("Douban", (tmp / "douban").string());
  } else {
    std::printf("Douban: skipped, %s is absent\n", douban.string().c_str());
  }

  // A random set: each user rates nr / n1 distinct random items.
  {
    std::ofstream csv(tmp / "random.csv");
    std::mt19937_64 gen(1);
    std::uniform_int_distribution<int64_t> item(0, n2 - 1);
    std::uniform_int_distribution<int> star(1, 5);
    const int64_t per = std::max<int64_t>(1, nr / n1);
    std::vector<char> used(static_cast<size_t>(n2), 0);
    std::vector<int64_t> picked;
    for (int64_t u = 0; u < n1; ++u) {
      picked.clear();
      while (static_cast<int64_t>(picked.size()) < std::min(per, n2)) {
        const int64_t i = item(gen);
        if (!used[static_cast<size_t>(i)]) used[static_cast<size_t>(i)] = 1, picked.push_back(i);
      }
      for (const int64_t i : picked) {
        csv << u << ',' << i << ',' << star(gen) << '\n';
        used[static_cast<size_t>(i)] = 0;
      }
    }
  }
  train_model((tmp / "random.csv").string(), (tmp / "random").string());
  bench("random " + std::to_string(nr / 1000) + "k ratings", (tmp / "random").string());
  fs::remove_all(tmp);
  return 0;
}
