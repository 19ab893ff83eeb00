// `symgnn blend`: non-negative weights of several trained models' predictions, fitted on
// the validation split, scored on the test split (src/blend/blend.h, docs/blending.md).
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "blend/blend.h"
#include "cli/commands.h"
#include "data/prediction_file.h"
#include "ranking_blend/ranking_blend.h"
#include "symgnn/error.h"
#include "symgnn/metrics.h"
#include "symgnn/run_metrics.h"
#include "util/atomic_file.h"
#include "util/json_text.h"
#include "util/output_lock.h"

namespace symgnn::cli {
namespace {

struct BlendOptions {
  std::vector<std::string> models;
  std::string out;
  std::string json;
  bool intercept = false;
  std::string metric = rating_metric().name;
  double step = 0.05;
  int64_t run = 0;
  std::string device = "cpu";
};

/// Files in --out are listed in its checksums.sha256 (a blend directory is blended again);
/// --json goes where the user says, unlisted.
void write_json(const std::string& path, const nlohmann::json& j, Integrity integrity = Integrity::listed) {
  write_text_atomic(path, json_text(j, 2) + "\n", integrity);
}

/// A column per prediction row of symgnn/metrics.h on each split ("val RMSE", "test MAE").
std::vector<std::pair<std::string, std::string>> figure_columns() {
  std::vector<std::pair<std::string, std::string>> out;  // figure, header
  for (const char* split : {"val", "test"})
    for (const MetricRow& row : kMetrics)
      if (row.needs == MetricNeeds::predictions)
        out.push_back({metric_figure(split, row), std::string(split) + " " + metric_label(row)});
  return out;
}

void print_table(const blend::BlendResult& r) {
  size_t width = std::string("blend (val in-sample)").size();
  for (const auto& m : r.models) width = std::max(width, m.dir.size());
  const auto columns = figure_columns();
  auto cell = [](const std::string& header) {
    return static_cast<int>(std::max<size_t>(10, header.size() + 2));
  };
  std::cout << std::left << std::setw(static_cast<int>(width)) << "model" << std::right;
  for (const auto& [figure, header] : columns) std::cout << std::setw(cell(header)) << header;
  std::cout << std::setw(10) << "weight"
            << "\n";
  std::cout << std::fixed << std::setprecision(4);
  auto figures = [&](const eval::Figures& f) {
    for (const auto& [figure, header] : columns)
      std::cout << std::setw(cell(header)) << eval::figure_of(f, figure);
  };
  for (const auto& m : r.models) {
    std::cout << std::left << std::setw(static_cast<int>(width)) << m.dir << std::right;
    figures(m.figures);
    std::cout << std::setw(10) << m.weight << "\n";
  }
  if (r.intercept) {
    int skip = 0;
    for (const auto& [figure, header] : columns) skip += cell(header);
    std::cout << std::left << std::setw(static_cast<int>(width)) << "(intercept)" << std::right
              << std::setw(skip + 10) << r.weights.intercept << "\n";
  }
  std::cout << std::left << std::setw(static_cast<int>(width)) << "blend (val in-sample)" << std::right;
  figures(r.figures);
  std::cout << "\n";
  const auto& best = r.models[r.best_single];
  const std::string test = rating_figure("test"), label = rating_label();
  const double best_test = eval::figure_of(best.figures, test), blend_test = eval::figure_of(r.figures, test);
  std::cout << "best single model by validation: " << best.dir << " (test " << label << " " << best_test
            << "); the blend's test " << label << " is "
            << (blend_test <= best_test ? "lower by " : "higher by ") << std::abs(best_test - blend_test)
            << "\n";
  std::cout.unsetf(std::ios::floatfield);
}

/// The blend's rows: the aligned pairs with the blend's predictions in place of a model's.
std::vector<data::PredictionRow> blend_rows(const blend::AlignedSplit& split, const std::vector<double>& p) {
  std::vector<data::PredictionRow> rows = split.pairs;
  for (size_t r = 0; r < rows.size(); ++r) rows[r].prediction = p[r];
  return rows;
}

void print_ranking_table(const ranking_blend::RankingBlendResult& r) {
  size_t width = std::string("blend (val in-sample)").size();
  for (const auto& m : r.models) width = std::max(width, m.ranked_by.size());
  std::cout << std::left << std::setw(static_cast<int>(width)) << "model" << std::right << std::setw(11)
            << "val NDCG" << std::setw(11) << "test NDCG" << std::setw(9) << "weight"
            << "   (" + ranking_label() + ")\n";
  std::cout << std::fixed << std::setprecision(4);
  for (const auto& m : r.models)
    std::cout << std::left << std::setw(static_cast<int>(width)) << m.ranked_by << std::right << std::setw(11)
              << m.val_ndcg << std::setw(11) << m.test_ndcg << std::setw(9) << std::setprecision(2)
              << m.weight << std::setprecision(4) << "\n";
  std::cout << std::left << std::setw(static_cast<int>(width)) << "blend (val in-sample)" << std::right
            << std::setw(11) << r.val_ndcg << std::setw(11) << r.test_ndcg << "\n";
  const auto& best = r.models[r.best_single];
  std::cout << "test precision@10 " << r.test_precision << ", recall@10 " << r.test_recall << " over "
            << r.test_users << " users; weights chosen among " << r.grid_points << " on " << r.val_users
            << " validation users\n";
  std::cout << "best single model by validation: " << best.ranked_by << " (test " + ranking_label() + " "
            << best.test_ndcg << "); the blend's test " + ranking_label() + " is "
            << (r.test_ndcg >= best.test_ndcg ? "higher by " : "lower by ")
            << std::abs(best.test_ndcg - r.test_ndcg) << "\n";
  std::cout.unsetf(std::ios::floatfield);
}

int run_ranking_blend(const BlendOptions& o) {
  if (o.intercept) throw UsageError("blend --intercept: only with --metric rmse (a ranking has no offset)");
  if (!o.out.empty()) check_output_dir(o.out, "--out");
  if (!o.json.empty()) check_output_file(o.json, "--json");
  ranking_blend::RankingBlendOptions ro;
  ro.step = o.step;
  ro.run = o.run;
  ro.device = o.device;
  ro.log = [](const std::string& line) { std::cerr << "blend: " << line << "\n"; };
  const ranking_blend::RankingBlendResult r = ranking_blend::blend_for_ranking(o.models, ro);
  print_ranking_table(r);
  const nlohmann::json record = ranking_blend::ranking_blend_json(r);
  if (!o.out.empty()) {
    ranking_blend::write_ranking_blend(r, o.out);
    std::cout << "wrote " << o.out << "/{blend.json,metrics.json}\n";
  }
  if (!o.json.empty()) write_json(o.json, record, Integrity::none);
  return 0;
}

bool same_predictions(const std::vector<data::PredictionRow>& a, const std::vector<data::PredictionRow>& b) {
  if (a.size() != b.size()) return false;
  for (size_t r = 0; r < a.size(); ++r)
    if (a[r].user != b[r].user || a[r].item != b[r].item || a[r].prediction != b[r].prediction) return false;
  return true;
}

/// The same model given twice (one folder under two names, or a copy) would take the weight
/// of both, and the blend would only look like one.
void refuse_repeated_models(const std::vector<std::string>& dirs, bool compare_model_files) {
  namespace fs = std::filesystem;
  std::error_code ec;
  // A copy holds the same model.pt, byte for byte (its sealed header carries its checksum,
  // so equal first lines and sizes mean equal files). The ranking blend reads no predictions
  // to compare, so this is where a copy shows; the rating blend finds it by its validation
  // predictions once their files are read and checked (a damaged copy is said to be damaged).
  const auto same_model_file = [&](const std::string& a, const std::string& b) {
    const std::string fa = a + "/model.pt", fb = b + "/model.pt";
    if (!fs::is_regular_file(fa, ec) || !fs::is_regular_file(fb, ec)) return false;
    if (fs::file_size(fa, ec) != fs::file_size(fb, ec)) return false;
    std::ifstream ia(fa, std::ios::binary), ib(fb, std::ios::binary);
    std::string ha, hb;
    return std::getline(ia, ha) && std::getline(ib, hb) && ha == hb;
  };
  for (size_t a = 0; a < dirs.size(); ++a)
    for (size_t b = a + 1; b < dirs.size(); ++b) {
      if (fs::equivalent(dirs[a], dirs[b], ec))
        throw UsageError("blend --models: " + dirs[a] + " and " + dirs[b] +
                         " are the same model directory; blend different models");
      if (compare_model_files && same_model_file(dirs[a], dirs[b]))
        throw UsageError("blend --models: " + dirs[a] + " and " + dirs[b] +
                         " hold the same model.pt (a copy of one model?): the blend cannot weigh them apart; "
                         "blend different models");
    }
}

int run_blend(const BlendOptions& o) {
  refuse_repeated_models(o.models, o.metric == ranking_figure());
  if (!o.out.empty()) check_output_dir(o.out, "--out");
  if (!o.json.empty()) check_output_file(o.json, "--json");
  std::optional<OutputLock> lock;  // one writer of --out at a time (util/output_lock.h)
  if (!o.out.empty()) {
    std::filesystem::create_directories(o.out);
    lock.emplace(o.out, "--out");
  }
  if (o.metric == ranking_figure()) return run_ranking_blend(o);
  if (o.run != 0)
    throw UsageError(
        "blend --run: only with --metric ndcg@10 (--metric rmse blends the runs' mean predictions)");
  std::vector<blend::ModelPredictions> models;
  for (const std::string& dir : o.models) {
    models.push_back(blend::load_model_predictions(dir));
    if (models.back().val_in_sample)
      std::cerr << "symgnn: warning: " << dir
                << " is a blend: its validation predictions are in-sample, so its weight and its "
                   "validation RMSE are optimistic\n";
  }
  for (size_t a = 0; a < models.size(); ++a)
    for (size_t b = a + 1; b < models.size(); ++b)
      if (same_predictions(models[a].val, models[b].val))
        throw UsageError("blend --models: " + o.models[a] + " and " + o.models[b] +
                         " have the same validation predictions (a copy of one model?): the blend cannot "
                         "weigh them apart; blend different models");
  const blend::BlendResult r = blend::blend_models(models, o.intercept);
  print_table(r);

  nlohmann::json record = blend::blend_json(r);
  record["dataset"] = models[0].dataset;
  if (!o.out.empty()) {
    std::filesystem::create_directories(o.out);
    data::write_predictions_csv(o.out + "/predictions/val.csv", blend_rows(r.val, r.val_prediction));
    data::write_predictions_csv(o.out + "/predictions/test.csv", blend_rows(r.test, r.test_prediction));
    write_json(o.out + "/blend.json", record);
    // What every model directory has, so that a blend directory can itself be blended.
    RunMetrics m;
    m.model = "blend";
    for (const auto& [name, value] : r.figures) m.set(name, {value});
    m.figures = {{blend::kValInSampleKey, true}, {"details", "blend.json"}};
    m.dataset = models[0].dataset;
    m.write(o.out + "/metrics.json");
    std::cout << "wrote " << o.out << "/{blend.json,metrics.json,predictions/val.csv,predictions/test.csv}\n";
  }
  if (!o.json.empty()) write_json(o.json, record, Integrity::none);
  return 0;
}

}  // namespace

void add_blend_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "blend",
      "blend trained models: non-negative weights fitted on the validation split, test RMSE reported\n"
      "  symgnn blend --models runs/lowrank runs/base runs/sylv\n"
      "  symgnn blend --models runs/lowrank runs/sylv --intercept --out runs/blend --json blend.json\n"
      "  symgnn blend --metric ndcg@10 --models runs/ease runs/joint   (weights of ranking scores)\n"
      "Each directory is a `symgnn train --out` directory with predictions/{val,test}.csv and\n"
      "metrics.json (docs/blending.md).");
  auto o = std::make_shared<BlendOptions>();
  cmd->add_option("--models", o->models, "two or more model directories written by symgnn train --out")
      ->required();
  cmd->add_option("--out", o->out, "write blend.json, metrics.json and predictions/{val,test}.csv here");
  cmd->add_option("--json", o->json, "write the weights and RMSEs as JSON here too");
  cmd->add_flag("--intercept", o->intercept,
                "fit an unconstrained intercept beside the weights (--metric rmse)");
  cmd->add_option(
         "--metric", o->metric,
         "rmse: weights of the predictions by least squares on validation ratings; ndcg@10: weights of "
         "per-user standardised ranking scores chosen on validation " +
             ranking_label() + " (docs/blending.md)")
      ->check(CLI::IsMember(std::vector<std::string>{rating_metric().name, ranking_figure()}))
      ->capture_default_str();
  cmd->add_option("--step", o->step,
                  "--metric ndcg@10: grid step of the weights, 1/n (0.05: 21 points for 2 models)")
      ->capture_default_str();
  cmd->add_option("--run", o->run,
                  "--metric ndcg@10: the run (seed) of the trained models to blend: its selection model "
                  "scores validation, its saved model test (a blend per seed gives the spread over seeds)")
      ->check(CLI::Range(int64_t{0}, int64_t{999}))
      ->capture_default_str();
  cmd->add_option("--device", o->device, "--metric ndcg@10: cpu or cuda[:N], where the models score")
      ->capture_default_str();
  cmd->callback([o] {
    const int code = run_blend(*o);
    if (code != 0) throw CLI::RuntimeError(code);
  });
}

}  // namespace symgnn::cli
