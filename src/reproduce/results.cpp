#include "reproduce/results.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>

#include "symgnn/run_metrics.h"
#include "util/text.h"

namespace fs = std::filesystem;

namespace symgnn::reproduce {
namespace {

double num(const nlohmann::json& j, const char* key) {
  if (!j.contains(key) || !j[key].is_number()) return kNaN;
  return j[key].get<double>();
}

constexpr double kMiB = 1024.0 * 1024.0;

}  // namespace

CellResult load_cell(const std::string& runs_dir, const std::string& name) {
  CellResult c;
  c.name = name;
  const std::string dir = runs_dir + "/" + name;
  if (!fs::exists(dir + "/metrics.json")) return c;
  RunMetrics m;
  try {
    m = RunMetrics::read(dir);
  } catch (const std::exception&) {
    return c;
  }
  c.ok = true;
  const nlohmann::json& f = m.figures;
  c.mean = m.mean("test_rmse");
  c.std = m.std_of("test_rmse");
  c.val = m.mean("val_rmse");
  c.ensemble = num(f, "ensemble_test_rmse");
  c.seconds_per_epoch = num(f, "seconds_per_epoch");
  c.train_seconds = f.contains("train_seconds") ? num(f, "train_seconds") : num(f, "seconds");
  c.best_epoch = num(f, "best_epoch");
  if (f.contains("peak_memory_bytes")) c.peak_mib = num(f, "peak_memory_bytes") / kMiB;
  if (m.version.is_object() && m.version.contains("git")) c.git = m.version["git"].get<std::string>();
  if (f.contains("alpha"))  // the Sylvester baseline: one deterministic solve, no seeds
    c.detail = "a = " + fixed(num(f, "alpha"), 2) + ", lambda = " + fixed(num(f, "shrinkage"), 2);
  const nlohmann::json& d = m.dataset;
  c.users = num(d, "users");
  c.items = num(d, "items");
  c.users_rated = c.users - num(d, "users_without_training_ratings");
  c.items_rated = c.items - num(d, "items_without_training_ratings");
  c.train_ratings = num(d, "train") + (d.contains("validation") ? num(d, "validation") : 0.0);
  c.test_ratings = num(d, "test");
  if (f.contains("test_unseen")) c.cold_test = num(f["test_unseen"], "cold_ratings");
  if (f.contains("user_shrinkage"))  // the bias baseline: its shrinkage pair
    c.detail = "lambda_u = " + fixed(num(f, "user_shrinkage"), 2) +
               ", lambda_i = " + fixed(num(f, "item_shrinkage"), 2);
  if (m.ranking_at_10.is_object())
    for (const auto& [key, value] : m.ranking_at_10.items()) {
      if (value.is_number()) c.ranking[key] = value.get<double>();
      if (key == "popularity" && value.is_object())
        for (const auto& [k, v] : value.items())
          if (v.is_number()) c.ranking["popularity." + k] = v.get<double>();
    }
  for (const SeedMetrics& r : m.runs) {
    SeedResult s;
    s.seed = r.training.value("seed", int64_t{0});
    s.test_rmse = r.metrics.count("test_rmse") ? r.metrics.at("test_rmse") : kNaN;
    s.val_rmse = r.metrics.count("val_rmse") ? r.metrics.at("val_rmse") : kNaN;
    s.best_epoch = r.training.value("best_epoch", int64_t{0});
    s.epochs_run = r.training.value("epochs_run", int64_t{0});
    s.parameters = r.training.value("parameters", int64_t{0});
    s.seconds = r.train_seconds;
    s.peak_mib = num(r.training, "peak_memory_bytes") / kMiB;
    const std::string h = dir + "/run" + std::to_string(r.run) + "/history.csv";
    if (fs::exists(h)) s.history_csv = fs::absolute(h).string();
    c.seeds.push_back(s);
  }
  if (!c.seeds.empty()) c.parameters = c.seeds.front().parameters;
  return c;
}

const std::vector<std::string>& paper_rows() {
  static const std::vector<std::string> rows = {"sylvester", "gcmc", "igmc", "base", "lowrank"};
  return rows;
}

std::string paper_row_label(const std::string& row) {
  static const std::map<std::string, std::string> labels = {{"baseline", "Bias baseline mu + b_u + b_i"},
                                                            {"sylvester", "Sylv."},
                                                            {"gcmc", "GC-MC"},
                                                            {"igmc", "IGMC"},
                                                            {"base", "SyMGNN base"},
                                                            {"lowrank", "SyMGNN low-rank"}};
  return labels.at(row);
}

double paper_rmse(const std::string& row, const std::string& bench) {
  // Du et al., IJCAI 2022, Tables 2 and 3 (the same table is in docs/models.md, "The paper's
  // figures").
  static const std::map<std::string, std::map<std::string, double>> t = {
      {"sylvester",
       {{"douban", 1.220},
        {"flixster", 1.244},
        {"flixster_u", 1.276},
        {"yahoo", 29.403},
        {"ml100k", 1.403},
        {"ml1m", 1.323}}},
      {"gcmc",
       {{"douban", 0.734},
        {"flixster", 0.917},
        {"flixster_u", 0.941},
        {"yahoo", 20.501},
        {"ml100k", 0.905},
        {"ml1m", 0.854}}},
      {"igmc",
       {{"douban", 0.729},
        {"flixster", 0.895},
        {"flixster_u", 0.895},
        {"yahoo", 19.292},
        {"ml100k", 0.922},
        {"ml1m", 0.857}}},
      {"base",
       {{"douban", 0.762},
        {"flixster", 0.911},
        {"flixster_u", 0.934},
        {"yahoo", 19.277},
        {"ml100k", 0.915},
        {"ml1m", 0.851}}},
      {"lowrank",
       {{"douban", 0.725},
        {"flixster", 0.891},
        {"flixster_u", 0.916},
        {"yahoo", 17.815},
        {"ml100k", 0.899},
        {"ml1m", 0.843}}},
  };
  auto r = t.find(row);
  if (r == t.end()) return kNaN;
  auto v = r->second.find(bench);
  return v == r->second.end() ? kNaN : v->second;
}

PaperAblation paper_ablation(const std::string& model, const std::string& variant) {
  // Table 4 of the paper: ML-100K RMSE and peak memory (MB) of one epoch.
  static const std::map<std::string, PaperAblation> t = {
      {"base-full", {0.915, 160}},    {"base-G", {0.932, 141}},    {"base-A", {0.924, 148}},
      {"lowrank-full", {0.899, 136}}, {"lowrank-G", {0.902, 110}}, {"lowrank-A", {0.920, 116}}};
  auto it = t.find(model + "-" + variant);
  return it == t.end() ? PaperAblation{} : it->second;
}

std::string verdict(double ours, double ours_std, double paper) {
  if (!std::isfinite(ours) || !std::isfinite(paper)) return "";
  const double tol = std::max(std::isfinite(ours_std) ? ours_std : 0.0, 0.002 * paper);
  if (std::fabs(ours - paper) <= tol) return "match";
  return ours < paper ? "beat" : "miss";
}

}  // namespace symgnn::reproduce
