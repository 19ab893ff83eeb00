// A run in MLflow's file-store layout (fit/mlflow_run.h), checked against that layout as
// MLflow's FileStore reads it: the experiment's and the run's meta.yaml, one file a param,
// "<ms> <value> <step>" lines a metric, the tags; the final figures equal metrics.json's.
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "common/test_support.h"
#include "fit/mlflow_run.h"
#include "symgnn/config.h"
#include "symgnn/fit.h"

namespace fs = std::filesystem;

namespace {

/// The whole file (test_support.h's reader).
std::string read(const fs::path& p) {
  return symgnn::testing::read_file(p.string());
}

std::vector<std::vector<std::string>> fields_of_lines(const std::string& text) {
  std::vector<std::vector<std::string>> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    std::istringstream words(line);
    std::vector<std::string> f;
    for (std::string w; words >> w;) f.push_back(w);
    out.push_back(f);
  }
  return out;
}

}  // namespace

TEST(MlflowRun, AFitIsWrittenAsMlflowsFileStoreHoldsARun) {
  const std::string store = symgnn::testing::scratch_dir("mlflow_store");
  fs::remove_all(store);
  symgnn::RunConfig cfg = symgnn::preset_config("paper");
  cfg.data.synthetic_users = 40;
  cfg.data.synthetic_items = 30;
  cfg.train.epochs = 6;
  cfg.train.threads = 1;
  symgnn::fitting::MlflowRun run(store, "lowrank on synthetic");
  symgnn::FitOptions fo;
  fo.out_dir = symgnn::testing::scratch_dir("mlflow_model") + "/run";
  fo.on_epoch = [&](const symgnn::ProgressEvent& e) { run.epoch(e); };
  const symgnn::FitResult r = symgnn::fit(cfg, fo);
  run.finish(symgnn::to_text(cfg), r.metrics.to_json(), fo.out_dir);

  const fs::path experiment = fs::path(store) / "0";
  const std::string exp_meta = read(experiment / "meta.yaml");
  EXPECT_NE(exp_meta.find("experiment_id: '0'"), std::string::npos) << exp_meta;
  EXPECT_NE(exp_meta.find("name: Default"), std::string::npos);
  const fs::path folder(run.folder());
  EXPECT_EQ(folder.parent_path(), experiment);
  ASSERT_EQ(run.id().size(), 32u);
  EXPECT_EQ(folder.filename().string(), run.id());
  const std::string meta = read(folder / "meta.yaml");
  for (const std::string& line :
       {"run_id: " + run.id(), "run_uuid: " + run.id(), std::string("status: 3"),
        std::string("experiment_id: '0'"), std::string("lifecycle_stage: active"),
        "artifact_uri: file://" + fs::absolute(fo.out_dir).lexically_normal().string()})
    EXPECT_NE(meta.find(line + "\n"), std::string::npos) << line << "\n" << meta;
  // Params: one file a config key, its value alone.
  EXPECT_EQ(read(folder / "params" / "train.epochs"), "6");
  EXPECT_EQ(read(folder / "params" / "model"), "lowrank");
  // Metrics: an epoch curve with steps 1, 2, ... and three fields a line.
  const auto curve = fields_of_lines(read(folder / "metrics" / "val_rmse"));
  ASSERT_GE(curve.size(), 2u);
  for (size_t k = 0; k < curve.size(); ++k) {
    ASSERT_EQ(curve[k].size(), 3u);
    EXPECT_GT(std::stoll(curve[k][0]), 1600000000000LL);  // unix milliseconds
  }
  EXPECT_EQ(curve[0][2], "1");
  // metrics.json's final test RMSE last, at the curve's last step; '@' written as "_at_".
  const auto test = fields_of_lines(read(folder / "metrics" / "test_rmse"));
  ASSERT_GE(test.size(), 1u);
  EXPECT_NEAR(std::stod(test.back()[1]), r.metrics.mean("test_rmse"), 1e-9);
  ASSERT_GE(test.size(), 2u);  // the epochs' curve, then the final figure at its last step
  EXPECT_EQ(test.back()[2], test[test.size() - 2][2]);
  const auto spread = fields_of_lines(read(folder / "metrics" / "test_rmse_std"));  // no curve: step 0
  ASSERT_EQ(spread.size(), 1u);
  EXPECT_EQ(spread[0][2], "0");
  EXPECT_EQ(symgnn::fitting::MlflowRun::metric_name("test_ndcg@10"), "test_ndcg_at_10");
  EXPECT_EQ(read(folder / "tags" / "mlflow.runName"), "lowrank on synthetic");
  EXPECT_EQ(read(folder / "tags" / "symgnn.model_dir"), fs::absolute(fo.out_dir).lexically_normal().string());
  // A second run joins the same experiment.
  symgnn::fitting::MlflowRun second(store, "again");
  second.finish("train.seed = 2\n", nlohmann::json::object(), "");
  EXPECT_EQ(fs::path(second.folder()).parent_path(), experiment);
  EXPECT_NE(second.id(), run.id());
  EXPECT_EQ(read(fs::path(second.folder()) / "params" / "train.seed"), "2");
}
