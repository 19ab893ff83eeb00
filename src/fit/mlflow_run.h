/// @file
/// A training run written in MLflow's file-store layout, so that an experiment tracker reads
/// it (`mlflow ui --backend-store-uri DIR`): plain files, no library (`symgnn train
/// --mlflow-dir DIR`, Python's fit(..., mlflow_dir=DIR); docs/mlflow.md).
///
///   DIR/0/meta.yaml                     the experiment "Default" (id 0), made if absent
///   DIR/0/<run id>/meta.yaml            the run: id, name, start and end, status FINISHED
///   DIR/0/<run id>/params/<key>         each config key's value (data.source, train.seed, ...)
///   DIR/0/<run id>/metrics/<name>       "<unix ms> <value> <step>" lines: each epoch's loss
///                                       and figures (step = epoch; run r > 1 of several as
///                                       "run<r>.<name>"), then metrics.json's final figures
///                                       (at the curve's last step, later: the value MLflow
///                                       shows; step 0 for figures without a curve)
///   DIR/0/<run id>/tags/<tag>           mlflow.runName, mlflow.source.name, mlflow.user, and
///                                       symgnn.model_dir (the model directory, where written)
///
/// With a model directory, the run's artifact location is that directory, so the tracker
/// lists model.pt, metrics.json and config.txt as the run's artifacts. Names MLflow refuses
/// (it allows letters, digits and _ - . / space :) are written with '@' as "_at_" and other
/// characters as '_' (test_ndcg@10: test_ndcg_at_10).
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "symgnn/progress.h"

namespace symgnn::fitting {

class MlflowRun {
 public:
  /// Starts a run in the store `dir` (made, with its experiment, where absent); `name` is
  /// the run's name (e.g. the model kind and the data's name).
  MlflowRun(const std::string& dir, const std::string& name);
  /// Records an epoch of the fit's own runs (the short trials before them, ProgressEvent::phase,
  /// are left out).
  void epoch(const ProgressEvent& e);
  /// Writes the params (`config_text`: "key = value" lines), the epochs' metrics, metrics.json's
  /// numbers (`metrics`, nested objects as "a.b"), the tags and the run's meta.yaml, status
  /// FINISHED. `model_dir`: the model directory, the run's artifacts ("" where none was written).
  void finish(const std::string& config_text, const nlohmann::json& metrics, const std::string& model_dir);
  /// The run's folder, DIR/0/<run id>.
  const std::string& folder() const { return folder_; }
  const std::string& id() const { return id_; }

  /// A name as MLflow accepts it (see the file comment).
  static std::string metric_name(const std::string& name);

 private:
  std::string store_, folder_, id_, name_;
  int64_t start_ms_ = 0;
  std::map<std::string, std::vector<std::string>> lines_;  // metric -> its "<ms> <value> <step>" lines
};

}  // namespace symgnn::fitting
