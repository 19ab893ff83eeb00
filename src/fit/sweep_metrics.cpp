#include "fit/sweep_metrics.h"

#include <thread>

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
  // test_mae, val_mae, ...): mean and standard deviation over the seeds.
  for (const std::string& name : train::epoch_metric_names()) {
    std::vector<double> values;
    for (const auto& r : s.runs)
      if (r.selected.count(name)) values.push_back(r.selected.at(name));
    if (!values.empty()) m.set(name, values);
  }
  // The sweep's own figures of the paper's metric (NaN without validation).
  m.metrics["test_rmse"] = MetricSummary{s.test_rmse, s.test_rmse_std};
  m.metrics["val_rmse"] = MetricSummary{s.val_rmse, s.val_rmse_std};
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
    seed.metrics["test_rmse"] = r.test_rmse;
    seed.metrics["val_rmse"] = r.val_rmse;
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
  f["ensemble_test_rmse"] =
      std::isfinite(s.ensemble_test_rmse) ? nlohmann::json(s.ensemble_test_rmse) : nullptr;
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
