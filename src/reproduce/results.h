// The figures of one finished cell (read back from its metrics.json), the paper's
// published numbers, and how a measured mean compares with a published one.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <vector>

namespace symgnn::reproduce {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

struct SeedResult {
  int64_t seed = 0;
  double test_rmse = kNaN, val_rmse = kNaN;
  int64_t best_epoch = 0, epochs_run = 0, parameters = 0;
  double seconds = kNaN, peak_mib = kNaN;
  std::string history_csv;  // run<r>/history.csv ("" when absent)
};

struct CellResult {
  bool ok = false;  // metrics.json was read
  std::string name;
  double mean = kNaN, std = kNaN, ensemble = kNaN, val = kNaN;
  double seconds_per_epoch = kNaN, train_seconds = kNaN, best_epoch = kNaN;
  double peak_mib = kNaN;  // largest per-epoch peak over the seeds (process resident memory)
  int64_t parameters = 0;
  std::string git;     // commit the cell was trained with
  std::string detail;  // Sylvester: chosen a and lambda; the bias baseline: its shrinkage pair
  /// The data as metrics.json describes them: nodes, nodes with a training rating, training
  /// and test ratings, test ratings of a node without training ratings (NaN where absent).
  double users = kNaN, items = kNaN, users_rated = kNaN, items_rated = kNaN;
  double train_ratings = kNaN, test_ratings = kNaN, cold_test = kNaN;
  std::vector<SeedResult> seeds;
  /// metrics.json "ranking_at_10" (docs/recommend.md): "precision", "precision_std", ...,
  /// and "popularity.precision", ... for the popularity baseline; empty when absent.
  std::map<std::string, double> ranking;
};

/// Reads runs_dir/name/metrics.json; ok = false when absent or unreadable.
CellResult load_cell(const std::string& runs_dir, const std::string& name);

/// The paper's Tables 2 and 3 (RMSE): rows "Sylv.", "GC-MC", "IGMC", "base", "lowrank";
/// NaN where the paper has no number.
double paper_rmse(const std::string& row, const std::string& benchmark);
const std::vector<std::string>& paper_rows();
std::string paper_row_label(const std::string& row);

/// The paper's Table 4 (ML-100K): RMSE and peak memory in MB of model-variant.
struct PaperAblation {
  double rmse = kNaN, memory_mb = kNaN;
};
PaperAblation paper_ablation(const std::string& model, const std::string& variant);
/// The average relative memory saving of the G variants the paper reports (16.98 %).
constexpr double kPaperMemorySaving = 0.1698;

/// "beat", "match" or "miss": match when |ours - paper| <= max(std of ours, 0.2 % of
/// paper), so a difference inside the seed spread or the paper's rounding is no claim.
std::string verdict(double ours, double ours_std, double paper);

}  // namespace symgnn::reproduce
