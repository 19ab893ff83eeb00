// A training run in MLflow's file-store layout (mlflow_run.h).
#include "fit/mlflow_run.h"

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <sstream>

#include "symgnn/error.h"
#include "util/atomic_file.h"

namespace fs = std::filesystem;

namespace symgnn::fitting {
namespace {

int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

/// 32 hexadecimal digits, as MLflow's run ids (uuid4().hex).
std::string run_id() {
  std::random_device device;
  std::mt19937_64 rng((static_cast<uint64_t>(device()) << 32) ^ device() ^ static_cast<uint64_t>(now_ms()));
  static const char* digits = "0123456789abcdef";
  std::string id;
  for (int k = 0; k < 32; ++k) id += digits[rng() % 16];
  return id;
}

/// A file for the tracker (not one symgnn reads back: no checksum).
void write(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  write_text_atomic(path.string(), text, Integrity::none);
}

std::string number(double v) {
  std::ostringstream s;
  s.precision(17);
  s << v;
  return s.str();
}

std::string user_name() {
  for (const char* key : {"USER", "LOGNAME"})
    if (const char* v = std::getenv(key); v != nullptr && *v != '\0') return v;
  return "unknown";
}

/// "<key>: '<value>'" with YAML's single-quote escaping.
std::string yaml_quoted(const std::string& text) {
  std::string out = "'";
  for (const char c : text) out += c == '\'' ? std::string("''") : std::string(1, c);
  return out + "'";
}

}  // namespace

std::string MlflowRun::metric_name(const std::string& name) {
  std::string out;
  for (const char c : name) {
    if (c == '@')
      out += "_at_";
    else if (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.' || c == ' ' ||
             c == ':' || c == '/')
      out += c;
    else
      out += '_';
  }
  return out;
}

MlflowRun::MlflowRun(const std::string& dir, const std::string& name)
    : store_(fs::absolute(dir).lexically_normal().string()), id_(run_id()), name_(name), start_ms_(now_ms()) {
  try {
    const fs::path experiment = fs::path(store_) / "0";
    if (!fs::exists(experiment / "meta.yaml"))
      write(experiment / "meta.yaml",
            "artifact_location: file://" + experiment.string() +
                "\ncreation_time: " + std::to_string(start_ms_) + "\nexperiment_id: '0'\nlast_update_time: " +
                std::to_string(start_ms_) + "\nlifecycle_stage: active\nname: Default\n");
    folder_ = (experiment / id_).string();
    fs::create_directories(fs::path(folder_) / "artifacts");
  } catch (const fs::filesystem_error& e) {
    throw Error("--mlflow-dir " + dir + ": " + e.code().message());
  }
}

void MlflowRun::epoch(const ProgressEvent& e) {
  if (!e.phase.empty()) return;
  const std::string prefix = e.runs > 1 && e.run > 0 ? "run" + std::to_string(e.run + 1) + "." : "";
  const std::string stamp = std::to_string(now_ms()) + " ";
  const auto add = [&](const std::string& name, double value) {
    if (std::isfinite(value))
      lines_[prefix + metric_name(name)].push_back(stamp + number(value) + " " + std::to_string(e.epoch));
  };
  add("loss", e.loss);
  for (const auto& [name, value] : e.figures) add(name, value);
}

void MlflowRun::finish(const std::string& config_text, const nlohmann::json& metrics,
                       const std::string& model_dir) {
  const fs::path run(folder_);
  const int64_t end = now_ms();
  // The params: each "key = value" line of the config.
  std::istringstream in(config_text);
  for (std::string line; std::getline(in, line);) {
    const size_t hash = line.find('#');
    if (hash != std::string::npos) line.erase(hash);
    const size_t eq = line.find('=');
    if (eq == std::string::npos) continue;
    const auto trim = [](std::string s) {
      s.erase(0, s.find_first_not_of(" \t"));
      s.erase(s.find_last_not_of(" \t\r") + 1);
      return s;
    };
    const std::string key = trim(line.substr(0, eq));
    if (!key.empty()) write(run / "params" / metric_name(key), trim(line.substr(eq + 1)));
  }
  // metrics.json's numbers: a figure with an epoch curve gets its final value at the curve's
  // last step, written later (MLflow shows the value of the highest step, then the latest);
  // the others at step 0.
  const std::string stamp = std::to_string(end) + " ";
  const auto final_figure = [&](const std::string& name, const nlohmann::json& v) {
    if (!v.is_number() || !std::isfinite(v.get<double>())) return;
    std::vector<std::string>& lines = lines_[metric_name(name)];
    const std::string step = lines.empty() ? "0" : lines.back().substr(lines.back().rfind(' ') + 1);
    lines.push_back(stamp + number(v.get<double>()) + " " + step);
  };
  for (const auto& [key, value] : metrics.items()) {
    if (value.is_object()) {
      for (const auto& [inner, v] : value.items()) final_figure(key + "." + inner, v);
    } else {
      final_figure(key, value);
    }
  }
  for (const auto& [name, lines] : lines_) {
    std::string text;
    for (const std::string& l : lines) text += l + "\n";
    write(run / "metrics" / name, text);
  }
  const std::string artifacts =
      model_dir.empty() ? (run / "artifacts").string() : fs::absolute(model_dir).lexically_normal().string();
  write(run / "tags" / "mlflow.runName", name_);
  write(run / "tags" / "mlflow.source.name", "symgnn train");
  write(run / "tags" / "mlflow.source.type", "LOCAL");
  write(run / "tags" / "mlflow.user", user_name());
  if (!model_dir.empty()) write(run / "tags" / "symgnn.model_dir", artifacts);
  write(run / "meta.yaml",
        "artifact_uri: file://" + artifacts + "\nend_time: " + std::to_string(end) +
            "\nentry_point_name: ''\nexperiment_id: '0'\nlifecycle_stage: active\nrun_id: " + id_ +
            "\nrun_name: " + yaml_quoted(name_) + "\nrun_uuid: " + id_ +
            "\nsource_name: ''\nsource_type: 4\nsource_version: ''\nstart_time: " +
            std::to_string(start_ms_) + "\nstatus: 3\ntags: []\nuser_id: " + yaml_quoted(user_name()) + "\n");
}

}  // namespace symgnn::fitting
