#include "train/metrics.h"

#include <thread>

#include "train/dataset_stats.h"
#include "train/memory.h"
#include "util/atomic_file.h"
#include "util/json_text.h"
#include "util/version.h"

namespace symgnn::train {
namespace {
// NaN is not JSON: absent figures (no validation split) become null.
nlohmann::json number(double v) {
  return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr);
}
}  // namespace

nlohmann::json sweep_metrics(const SweepResult& s, RunConfig& cfg, const Dataset& ds) {
  nlohmann::json j;
  j["model"] = s.model_name;
  j["test_rmse"] = number(s.test_rmse);
  j["test_rmse_std"] = number(s.test_rmse_std);
  j["val_rmse"] = number(s.val_rmse);
  j["val_rmse_std"] = number(s.val_rmse_std);
  j["ensemble_test_rmse"] = number(s.ensemble_test_rmse);
  double best_epoch = 0, epochs = 0, seconds = 0;
  int64_t peak = 0;
  nlohmann::json runs = nlohmann::json::array();
  for (const auto& r : s.runs) {
    best_epoch += static_cast<double>(r.best_epoch);
    epochs += static_cast<double>(r.epochs_run);
    seconds += r.train_seconds;
    peak = std::max(peak, r.peak_memory_bytes);
    runs.push_back(
        {{"run", r.run},
         {"seed", r.seed},
         {"test_rmse", number(r.test_rmse)},
         {"val_rmse", number(r.val_rmse)},
         {"best_epoch", r.best_epoch},
         {"epochs_run", r.epochs_run},
         {"train_seconds", r.train_seconds},
         {"seconds_per_epoch", r.epochs_run ? r.train_seconds / static_cast<double>(r.epochs_run) : 0.0},
         {"peak_memory_bytes", r.peak_memory_bytes},
         {"parameters", r.parameters}});
  }
  const double n = static_cast<double>(s.runs.size());
  j["best_epoch"] = best_epoch / n;
  j["epochs_run"] = epochs / n;
  j["train_seconds"] = seconds / n;
  j["seconds_per_epoch"] = epochs > 0 ? seconds / epochs : 0.0;
  j["peak_memory_bytes"] = peak;
  j["peak_memory_source"] = cfg.train.device.rfind("cuda", 0) == 0 && has_device_memory_stats()
                                ? "cuda caching allocator (allocated bytes)"
                                : "process resident set (VmHWM)";
  j["runs"] = runs;
  j["config"] = to_text(cfg);
  j["dataset"] = dataset_stats(ds);
  j["version"] = {{"symgnn", symgnn_version()},
                  {"git", git_hash()},
                  {"blas", blas_library()},
                  {"cores", std::thread::hardware_concurrency()}};
  return j;
}

void write_json_atomic(const std::string& path, const nlohmann::json& j) {
  write_text_atomic(path, json_text(j, 2) + "\n");
}

}  // namespace symgnn::train
