#include "fit/sweep_metrics.h"

#include <limits>
#include <thread>

#include "symgnn/metrics.h"
#include "train/dataset_stats.h"
#include "train/epoch_metrics.h"
#include "train/memory.h"
#include "util/version.h"

namespace symgnn::fitting {

nlohmann::json version_json() {
  return {{"symgnn", symgnn_version()},
          {"git", git_hash()},
          {"blas", blas_library()},
          {"cores", std::thread::hardware_concurrency()}};
}

RunMetrics sweep_metrics(const train::SweepResult& s, RunConfig& cfg, const Dataset& ds) {
  RunMetrics m;
  m.model = s.model_name;
  // Every epoch metric measured at the runs' selected epochs, by name (test_rmse, val_rmse,
  // test_mae, val_mae, ...): mean and standard deviation over the seeds. The paper's metric
  // (the table's first row) is always there, NaN on a split without ratings.
  for (const std::string& name : train::epoch_metric_names())
    if (s.metrics.count(name)) m.metrics[name] = s.metrics.at(name);
  for (const char* split : {"test", "val"})
    m.metrics.emplace(metric_figure(split, kMetrics[0]), MetricSummary{});
  double best_epoch = 0, epochs = 0, seconds = 0;
  int64_t peak = 0;
  for (const auto& r : s.runs) {
    best_epoch += static_cast<double>(r.best_epoch);
    epochs += static_cast<double>(r.epochs_run);
    seconds += r.train_seconds;
    peak = std::max(peak, r.peak_memory_bytes);
    SeedMetrics seed;
    seed.run = r.run;
    seed.metrics = r.selected;
    for (const char* split : {"test", "val"})
      seed.metrics.emplace(metric_figure(split, kMetrics[0]), std::numeric_limits<double>::quiet_NaN());
    seed.train_seconds = r.train_seconds;
    seed.training = {
        {"seed", r.seed},
        {"best_epoch", r.best_epoch},
        {"epochs_run", r.epochs_run},
        {"seconds_per_epoch", r.epochs_run ? r.train_seconds / static_cast<double>(r.epochs_run) : 0.0},
        {"peak_memory_bytes", r.peak_memory_bytes},
        {"parameters", r.parameters}};
    m.runs.push_back(seed);
  }
  const double n = static_cast<double>(s.runs.size());
  nlohmann::json& f = m.figures;
  // The runs' averaged predictions: "ensemble_test_rmse" (null with one run), "ensemble_test_mae".
  f["ensemble_" + metric_figure("test", kMetrics[0])] = nullptr;
  for (const auto& [name, value] : s.ensemble) f["ensemble_" + name] = value;
  f["best_epoch"] = best_epoch / n;
  f["epochs_run"] = epochs / n;
  f["train_seconds"] = seconds / n;
  f["seconds_per_epoch"] = epochs > 0 ? seconds / epochs : 0.0;
  f["peak_memory_bytes"] = peak;
  f["peak_memory_source"] = cfg.train.device.rfind("cuda", 0) == 0 && train::has_device_memory_stats()
                                ? "cuda caching allocator (allocated bytes)"
                                : "process resident set (VmHWM)";
  m.config = to_text(cfg);
  m.dataset = train::dataset_stats(ds);
  m.version = version_json();
  return m;
}

}  // namespace symgnn::fitting
