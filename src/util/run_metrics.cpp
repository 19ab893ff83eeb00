// RunMetrics: metrics.json's one writer and one reader (symgnn/run_metrics.h).
#include "symgnn/run_metrics.h"

#include <cmath>
#include <set>

#include "symgnn/error.h"
#include "util/atomic_file.h"
#include "util/checksum.h"
#include "util/json_text.h"
#include "util/stats.h"

namespace symgnn {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// NaN is not JSON: absent figures (no validation split) become null.
nlohmann::json number(double v) {
  return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr);
}
double value_of(const nlohmann::json& v) {
  return v.is_number() ? v.get<double>() : kNaN;
}

// Top-level keys with a member of their own in RunMetrics.
const std::set<std::string> kOwnKeys = {"model",   "metric_names", "runs",       "config",
                                        "dataset", "version",      "evaluation", "ranking_at_10"};

// The metrics of files written before "metric_names".
const std::set<std::string> kEarlyMetrics = {"test_rmse", "val_rmse", "test_mae"};

}  // namespace

double RunMetrics::mean(const std::string& name) const {
  const auto it = metrics.find(name);
  return it == metrics.end() ? kNaN : it->second.mean;
}

double RunMetrics::std_of(const std::string& name) const {
  const auto it = metrics.find(name);
  return it == metrics.end() ? kNaN : it->second.std;
}

void RunMetrics::set(const std::string& name, const std::vector<double>& values) {
  const MeanStd m = mean_std(values);
  metrics[name] = MetricSummary{values.empty() ? kNaN : m.mean, values.empty() ? kNaN : m.std};
}

nlohmann::json RunMetrics::to_json() const {
  nlohmann::json j = figures;
  j["model"] = model;
  nlohmann::json names = nlohmann::json::array();
  for (const auto& [name, m] : metrics) {
    j[name] = number(m.mean);
    j[name + "_std"] = number(m.std);
    names.push_back(name);
  }
  j["metric_names"] = names;
  nlohmann::json rs = nlohmann::json::array();
  for (const SeedMetrics& r : runs) {
    nlohmann::json o = r.training;
    o["run"] = r.run;
    for (const auto& [name, v] : r.metrics) o[name] = number(v);
    o["train_seconds"] = r.train_seconds;
    rs.push_back(o);
  }
  j["runs"] = rs;
  j["config"] = config;
  j["dataset"] = dataset;
  for (const auto& [key, value] : {std::pair<const char*, const nlohmann::json*>{"version", &version},
                                   {"evaluation", &evaluation},
                                   {"ranking_at_10", &ranking_at_10}})
    if (!value->is_null()) j[key] = *value;
  return j;
}

RunMetrics RunMetrics::from_json(const nlohmann::json& j, const std::string& where) {
  if (!j.is_object()) throw DataError(where + ": not a metrics object (written by symgnn train --out)");
  RunMetrics m;
  m.model = j.value("model", std::string());
  std::set<std::string> names;
  if (j.contains("metric_names") && j["metric_names"].is_array()) {
    for (const auto& n : j["metric_names"])
      if (n.is_string()) names.insert(n.get<std::string>());
  } else {  // written before metric names: the metrics of those files, and any key with its "_std" beside it
    for (const auto& [key, value] : j.items())
      if ((j.contains(key + "_std") || kEarlyMetrics.count(key)) && (value.is_number() || value.is_null()))
        names.insert(key);
  }
  for (const std::string& n : names)
    m.metrics[n] = MetricSummary{value_of(j.value(n, nlohmann::json())),
                                 value_of(j.value(n + "_std", nlohmann::json()))};
  for (const auto& [key, value] : j.items()) {
    const bool metric_key =
        names.count(key) || (key.size() > 4 && key.compare(key.size() - 4, 4, "_std") == 0 &&
                             names.count(key.substr(0, key.size() - 4)));
    if (!metric_key && !kOwnKeys.count(key)) m.figures[key] = value;
  }
  if (j.contains("runs") && j["runs"].is_array())
    for (const auto& r : j["runs"]) {
      if (!r.is_object()) continue;
      SeedMetrics s;
      for (const auto& [key, value] : r.items()) {
        if (key == "run")
          s.run = value.is_number_integer() ? value.get<int64_t>() : 0;
        else if (key == "train_seconds")
          s.train_seconds = value_of(value);
        else if (names.count(key))
          s.metrics[key] = value_of(value);
        else
          s.training[key] = value;
      }
      m.runs.push_back(s);
    }
  m.config = j.contains("config") && j["config"].is_string() ? j["config"].get<std::string>() : "";
  m.dataset = j.value("dataset", nlohmann::json::object());
  m.version = j.value("version", nlohmann::json());
  m.evaluation = j.value("evaluation", nlohmann::json());
  m.ranking_at_10 = j.value("ranking_at_10", nlohmann::json());
  return m;
}

RunMetrics RunMetrics::read(const std::string& dir) {
  const std::string path = dir + "/metrics.json";
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(read_verified_file(path));
  } catch (const nlohmann::json::exception& e) {
    throw DataError(path + ": not valid JSON (" + std::string(e.what()) + ")");
  }
  return from_json(j, path);
}

void RunMetrics::write(const std::string& path) const {
  write_text_atomic(path, json_text(to_json(), 2) + "\n");
}

}  // namespace symgnn
