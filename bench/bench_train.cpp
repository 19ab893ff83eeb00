// Seconds per epoch and per run of `symgnn train` (symgnn::fit, symgnn/fit.h) on each
// benchmark present, with the committed config of each (configs/<set>_<model>.conf).
// Prints figures; asserts nothing.
//
//   OMP_WAIT_POLICY=PASSIVE build/bench/bench_train [--data-dir ../shared/data] [--threads 2]
//       [--model lowrank] [--epochs N]
#include <ATen/Parallel.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "symgnn/config.h"
#include "symgnn/error.h"
#include "symgnn/fit.h"

namespace fs = std::filesystem;
using namespace symgnn;

int main(int argc, char** argv) {
  std::string data_dir = std::getenv("SYMGNN_DATA_DIR") ? std::getenv("SYMGNN_DATA_DIR") : "../shared/data";
  std::string model = "lowrank";
  int threads = static_cast<int>(std::thread::hardware_concurrency());
  int64_t epochs = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i], v = argv[i + 1];
    if (a == "--data-dir")
      data_dir = v;
    else if (a == "--threads")
      threads = std::stoi(v);
    else if (a == "--model")
      model = v;
    else if (a == "--epochs")
      epochs = std::stoll(v);
  }
  at::set_num_threads(threads);
  const std::string root = fs::path(argv[0]).parent_path().parent_path().parent_path().string();
  struct Set {
    const char* name;
    std::string path;
  };
  const std::vector<Set> sets = {{"douban", data_dir + "/monti/douban.mat"},
                                 {"flixster", data_dir + "/monti/flixster.mat"},
                                 {"yahoo", data_dir + "/monti/yahoo_music.mat"},
                                 {"ml100k", data_dir + "/ml-100k"}};
  std::printf("model %s, %d thread(s)\n%-10s %8s %8s %10s %10s %10s\n", model.c_str(), threads, "dataset",
              "epochs", "best", "s/epoch", "s/run", "test RMSE");
  for (const auto& s : sets) {
    if (!fs::exists(s.path)) {
      std::printf("%-10s skipped: %s not found (set SYMGNN_DATA_DIR)\n", s.name, s.path.c_str());
      continue;
    }
    try {
      RunConfig cfg;
      const std::string conf = root + "/configs/" + s.name + "_" + model + ".conf";
      if (fs::exists(conf)) load_config_file(cfg, conf);
      cfg.model = model;
      cfg.data.source = s.path;
      if (epochs > 0) cfg.train.epochs = epochs;
      cfg.train.runs = 1;
      FitOptions opts;
      const RunMetrics m = fit(cfg, opts).metrics;
      const nlohmann::json& run = m.runs.front().training;
      std::printf("%-10s %8lld %8lld %10.4f %10.1f %10.4f\n", s.name, run.value("epochs_run", 0LL),
                  run.value("best_epoch", 0LL), run.value("seconds_per_epoch", 0.0),
                  m.runs.front().train_seconds, m.mean("test_rmse"));
    } catch (const Error& e) {
      std::printf("%-10s error: %s\n", s.name, e.what());
    }
  }
  return 0;
}
