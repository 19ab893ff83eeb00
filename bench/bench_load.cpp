// Peak memory and time of loading a rating set (load_dataset: the ratings, the test file,
// the graph files, the validation carve and the checks), the figures of docs/scale.md,
// "Load". Prints figures; asserts nothing.
//
//   build/bench/bench_load --config DIR/data.conf     (a set from `symgnn data generate`)
//   build/bench/bench_load --data FILE_OR_DIR
//
// The peak is the resident high-water mark during the load minus the resident memory
// before it (LibTorch's libraries, already mapped, are not counted).
#include <chrono>
#include <cstdio>
#include <string>

#include "data_args.h"
#include "symgnn/config.h"
#include "symgnn/dataset.h"
#include "symgnn/error.h"
#include "train/memory.h"

int main(int argc, char** argv) {
  using namespace symgnn;
  RunConfig cfg = preset_config("paper");
  bool given = false;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i], v = argv[i + 1];
    if (!bench::apply_data_arg(cfg, a, v)) {
      std::fprintf(stderr, "bench_load: unknown option %s (--config FILE, --data SOURCE, --set k=v)\n",
                   a.c_str());
      return 2;
    }
    given = true;
  }
  if (!given) {
    std::fprintf(stderr, "bench_load: give --config DIR/data.conf or --data SOURCE\n");
    return 2;
  }
  try {
    train::reset_peak_memory();
    const int64_t before = train::current_memory_bytes();
    const auto t0 = std::chrono::steady_clock::now();
    const Dataset ds = load_dataset(cfg.data);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const int64_t peak = train::peak_memory_bytes() - before;
    const double ratings = static_cast<double>(ds.train.size() + ds.validation.size() + ds.test.size());
    std::printf(
        "%s: %lld users x %lld items, %.0f ratings, loaded in %.1f s, peak %.0f MB above the start "
        "(%.0f bytes a rating)\n",
        cfg.data.source.c_str(), static_cast<long long>(ds.users.count),
        static_cast<long long>(ds.items.count), ratings, seconds, static_cast<double>(peak) / 1e6,
        static_cast<double>(peak) / ratings);
  } catch (const Error& e) {
    std::fprintf(stderr, "bench_load: %s\n", e.what());
    return 2;
  }
  return 0;
}
