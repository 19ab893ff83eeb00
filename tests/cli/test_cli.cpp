// End-to-end: the built `symgnn` binary on small inputs, checking outputs and exit codes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "common/test_support.h"
#include "data/prediction_file.h"
#include "symgnn/config.h"
#include "symgnn/dataset.h"

using symgnn::testing::run_command;
using symgnn::testing::run_symgnn;
using symgnn::testing::scratch_dir;
using symgnn::testing::symgnn_binary;
using symgnn::testing::write_file;

namespace {
std::string read(const std::string& path) {
  return symgnn::testing::read_file(path);
}
}  // namespace

TEST(Cli, HelpOnEverySubcommand) {
  for (const char* sub : {"", "data info", "train", "predict", "recommend", "evaluate", "sylvester", "config",
                          "version", "tune", "blend"}) {
    std::string out;
    EXPECT_EQ(run_symgnn(std::string(sub) + " --help", &out), 0) << sub;
    EXPECT_NE(out.find("Usage"), std::string::npos) << sub << ": " << out;
  }
}

TEST(Cli, VersionNamesTheBlas) {
  std::string out;
  ASSERT_EQ(run_symgnn("version", &out), 0);
  EXPECT_NE(out.find("BLAS: "), std::string::npos);
  // scripts/setup.sh installs OpenBLAS: Debian's LibTorch's sgemm_ must resolve to it, not
  // to the reference BLAS (about 30x slower). PyPI's LibTorch carries its BLAS (MKL) inside
  // libtorch_cpu, which the line then names.
  std::string lower = out;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  EXPECT_TRUE(lower.find("openblas") != std::string::npos || lower.find("libtorch_cpu") != std::string::npos)
      << out;
  EXPECT_NE(out.find("LibTorch"), std::string::npos);
}

TEST(Cli, IdleThreadPoliciesAreSetUnlessTheUserChose) {
  // src/cli/main.cpp sets what the user left unset before the libraries start: OpenMP's
  // passive wait, and OpenBLAS's workers' spin after each product cut from 2^28 cycles to
  // 2^24 (theirs took the second core from LibTorch's OpenMP thread under --threads 2).
  std::string out;
  ASSERT_EQ(
      run_command("env -u OMP_WAIT_POLICY -u OPENBLAS_THREAD_TIMEOUT " + symgnn_binary() + " version", &out),
      0);
  EXPECT_NE(out.find("OMP_WAIT_POLICY: PASSIVE\n"), std::string::npos) << out;
  EXPECT_NE(out.find("OPENBLAS_THREAD_TIMEOUT: 24\n"), std::string::npos) << out;
  ASSERT_EQ(run_symgnn("version", &out, "OMP_WAIT_POLICY=ACTIVE OPENBLAS_THREAD_TIMEOUT=20"), 0);
  EXPECT_NE(out.find("OMP_WAIT_POLICY: ACTIVE\n"), std::string::npos) << out;
  EXPECT_NE(out.find("OPENBLAS_THREAD_TIMEOUT: 20\n"), std::string::npos) << out;
}

TEST(Cli, DataInfoJsonOnSynthetic) {
  std::string out;
  ASSERT_EQ(run_command(symgnn_binary() + " data info synthetic --json 2>/dev/null", &out), 0) << out;
  const auto j = nlohmann::json::parse(out);
  EXPECT_EQ(j["users"], 300);
  EXPECT_EQ(j["items"], 300);
  EXPECT_EQ(j["user_side"]["graph"], "file");
  EXPECT_EQ(j["train"].get<int64_t>() + j["validation"].get<int64_t>() + j["test"].get<int64_t>(),
            j["ratings"].get<int64_t>());
}

TEST(Cli, BadInputExitsTwoWithOneLineNamingTheFile) {
  const auto dir = scratch_dir("cli_bad");
  const auto csv = write_file(dir, "r.csv", "u1,i1,4\nu2,i1,oops\n");
  std::string out;
  EXPECT_EQ(run_symgnn("data info " + csv, &out), 2);
  EXPECT_NE(out.find("r.csv:2"), std::string::npos) << out;
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1) << out;
  EXPECT_EQ(run_symgnn("data info " + dir + "/missing.csv", &out), 2);
  EXPECT_EQ(run_symgnn("train --set train.epochz=3", &out), 2);
  EXPECT_NE(out.find("train.epochz"), std::string::npos) << out;
  EXPECT_EQ(run_symgnn("no-such-command", &out), 2);
  const auto bad_model = write_file(dir, "model.pt", "not a checkpoint");
  const auto pairs = write_file(dir, "pairs.csv", "1,1\n");
  EXPECT_EQ(run_symgnn("predict --model " + bad_model + " --pairs " + pairs, &out), 2);
  EXPECT_NE(out.find("model.pt"), std::string::npos) << out;
}

TEST(Cli, ConfigDefaultsRoundTrip) {
  const auto dir = scratch_dir("cli_cfg");
  std::string out;
  ASSERT_EQ(run_command(symgnn_binary() + " config --defaults > " + dir + "/d.conf"), 0);
  ASSERT_EQ(run_symgnn("config --config " + dir + "/d.conf --set train.epochs=3", &out), 0);
  EXPECT_NE(out.find("train.epochs = 3"), std::string::npos);
}

TEST(Cli, PresetsStartTheConfigurationAndClashesAreErrors) {
  const auto dir = scratch_dir("cli_preset");
  std::string out;
  ASSERT_EQ(run_symgnn("config --defaults", &out), 0);
  EXPECT_EQ(out.rfind("preset = recommended\n", 0), 0u) << out.substr(0, 80);
  EXPECT_NE(out.find("lowrank.prior = auto"), std::string::npos);
  ASSERT_EQ(run_symgnn("config --defaults --preset paper", &out), 0);
  EXPECT_NE(out.find("lowrank.prior = paper"), std::string::npos);
  const std::string paper = write_file(dir, "p.conf", "preset = paper\n[train]\nepochs = 2\n");
  ASSERT_EQ(run_symgnn("config --config " + paper, &out), 0);
  EXPECT_NE(out.find("lowrank.id_embedding = true"), std::string::npos);
  EXPECT_EQ(run_symgnn("train --quiet --config " + paper + " --preset recommended", &out), 2);
  EXPECT_NE(out.find("starts from preset paper"), std::string::npos) << out;
  EXPECT_EQ(run_symgnn("train --quiet --set preset=paper", &out), 2);
  EXPECT_NE(out.find("use --preset"), std::string::npos) << out;
}

TEST(Cli, TheConfigFileChoosesTheModelUnlessModelIsGiven) {
  const auto dir = scratch_dir("cli_config_model");
  const std::string conf = write_file(dir, "base.conf", "model = base\n[base]\nhidden = 4\n");
  std::string out;
  ASSERT_EQ(run_symgnn("train --quiet --no-compare --epochs 2 --config " + conf + " --metrics-out " + dir +
                           "/b.json",
                       &out),
            0)
      << out;
  EXPECT_EQ(nlohmann::json::parse(read(dir + "/b.json"))["model"], "base-full");
  ASSERT_EQ(run_symgnn("train --quiet --no-compare --epochs 2 --model lowrank --config " + conf +
                           " --metrics-out " + dir + "/l.json",
                       &out),
            0)
      << out;
  // The config names no variant: the recommended preset's G (the paper's is full).
  EXPECT_EQ(nlohmann::json::parse(read(dir + "/l.json"))["model"], "lowrank-G");
}

TEST(Cli, TrainThenPredictReproducesTheTestRmse) {
  const auto dir = scratch_dir("cli_train");
  std::string out;
  ASSERT_EQ(run_symgnn("train --quiet --no-compare --epochs 30 --variant G --out " + dir +
                           "/run --metrics-out " + dir + "/m.json",
                       &out),
            0)
      << out;
  const auto metrics = nlohmann::json::parse(read(dir + "/m.json"));
  for (const char* key :
       {"test_rmse", "test_rmse_std", "val_rmse", "best_epoch", "epochs_run", "train_seconds",
        "peak_memory_bytes", "runs", "config", "dataset", "test_mae", "evaluation"})
    EXPECT_TRUE(metrics.contains(key)) << key;
  EXPECT_GT(metrics["peak_memory_bytes"].get<int64_t>(), 0);
  EXPECT_EQ(metrics["peak_memory_source"], "process resident set (VmHWM)");  // --device cpu
  EXPECT_TRUE(std::ifstream(dir + "/run/run0/history.csv").good());

  // Score the test split through `predict` and compare with the reported test RMSE.
  symgnn::DataConfig dc;
  const symgnn::Dataset ds = symgnn::load_dataset(dc);
  std::ostringstream pairs;
  pairs << "user,item\n";
  for (size_t k = 0; k < ds.test.size(); ++k)
    pairs << ds.users.id_of(ds.test.user[k]) << "," << ds.items.id_of(ds.test.item[k]) << "\n";
  write_file(dir, "pairs.csv", pairs.str());
  ASSERT_EQ(
      run_symgnn("predict --model " + dir + "/run --pairs " + dir + "/pairs.csv --out " + dir + "/pred.csv",
                 &out),
      0)
      << out;
  std::ifstream in(dir + "/pred.csv");
  std::string line;
  std::getline(in, line);
  double se = 0;
  size_t k = 0;
  while (std::getline(in, line)) {
    const double p = std::stod(line.substr(line.rfind(',') + 1));
    se += (p - ds.test.value[k]) * (p - ds.test.value[k]);
    ++k;
  }
  ASSERT_EQ(k, ds.test.size());
  EXPECT_NEAR(std::sqrt(se / static_cast<double>(k)), metrics["test_rmse"].get<double>(), 1e-4);

  // Unknown ids: a clear error by default, the global mean on request.
  write_file(dir, "unknown.csv", "nobody,0\n");
  EXPECT_EQ(run_symgnn("predict --model " + dir + "/run --pairs " + dir + "/unknown.csv", &out), 2);
  EXPECT_NE(out.find("unknown user 'nobody'"), std::string::npos) << out;
  EXPECT_EQ(
      run_symgnn("predict --model " + dir + "/run --unknown mean --pairs " + dir + "/unknown.csv", &out), 0);
}

TEST(Cli, RetrainedAveragedEncoderModelPredictsWhatItReported) {
  // The encoder model with the retrain protocol and averaged checkpoints: the final
  // model's prediction file scores the reported test RMSE, and `predict` (averaging the
  // saved weight sets) reproduces the file.
  const auto dir = scratch_dir("cli_retrain");
  std::string out;
  ASSERT_EQ(run_symgnn("train --quiet --no-compare --epochs 40 --out " + dir +
                           "/run --set lowrank.prior=encoder --set lowrank.id_embedding=false "
                           "--set lowrank.prior_width=40 --set lowrank.hidden=16 --set train.ema=0.99 "
                           "--set train.protocol=retrain --set train.patience=10 --set train.average_last=3 "
                           "--set train.average_every=2",
                       &out),
            0)
      << out;
  const auto metrics = nlohmann::json::parse(read(dir + "/run/metrics.json"));
  const auto test = symgnn::data::read_predictions_csv(dir + "/run/predictions/test.csv");
  const auto val = symgnn::data::read_predictions_csv(dir + "/run/predictions/val.csv");
  ASSERT_FALSE(test.empty());
  ASSERT_FALSE(val.empty());
  double se = 0;
  std::ostringstream pairs;
  for (const auto& r : test) {
    se += (r.prediction - r.rating) * (r.prediction - r.rating);
    pairs << r.user << "," << r.item << "\n";
  }
  EXPECT_NEAR(std::sqrt(se / static_cast<double>(test.size())), metrics["test_rmse"].get<double>(), 1e-4);
  write_file(dir, "pairs.csv", pairs.str());
  ASSERT_EQ(
      run_symgnn("predict --model " + dir + "/run --pairs " + dir + "/pairs.csv --out " + dir + "/pred.csv",
                 &out),
      0)
      << out;
  std::ifstream in(dir + "/pred.csv");
  std::string line;
  std::getline(in, line);
  for (const auto& r : test) {
    ASSERT_TRUE(std::getline(in, line));
    EXPECT_NEAR(std::stod(line.substr(line.rfind(',') + 1)), r.prediction, 1e-4) << line;
  }
}

TEST(Cli, TrainShowsWhatTheGraphsAreWorthOnSynthetic) {
  std::string out;
  ASSERT_EQ(run_command(symgnn_binary() + " train --quiet --epochs 40 --variant G 2>/dev/null", &out), 0)
      << out;
  EXPECT_NE(out.find("without graphs"), std::string::npos) << out;
}

TEST(Cli, TheBiasBaselineIsAKindAndStandsBesideEveryRatingFigure) {
  // model = baseline through train, evaluate and predict; a learned model's train summary,
  // metrics.json and evaluate print the baseline's test RMSE beside its own, the same figure.
  const auto dir = scratch_dir("cli_baseline");
  std::string out;
  ASSERT_EQ(run_symgnn("train --quiet --model baseline --set baseline.folds=5 --out " + dir + "/b", &out), 0)
      << out;
  const auto b = nlohmann::json::parse(read(dir + "/b/metrics.json"));
  EXPECT_EQ(b["model"], "baseline");
  ASSERT_EQ(run_symgnn("evaluate --model " + dir + "/b --json " + dir + "/b.json", &out), 0) << out;
  EXPECT_NEAR(nlohmann::json::parse(read(dir + "/b.json"))["rmse"].get<double>(),
              b["test_rmse"].get<double>(), 1e-4);
  EXPECT_EQ(out.find("bias baseline ("), std::string::npos) << "the baseline is not printed beside itself";

  ASSERT_EQ(run_symgnn("train --no-compare --epochs 3 --variant G --set baseline.folds=5 --set "
                       "lowrank.offset=baseline --out " +
                           dir + "/o",
                       &out),
            0)
      << out;
  EXPECT_NE(out.find("bias baseline (mu + b_u + b_i, model = baseline): test RMSE"), std::string::npos)
      << out;
  const auto o = nlohmann::json::parse(read(dir + "/o/metrics.json"));
  EXPECT_EQ(o["model"], "lowrank-G+offset");
  const double beside = o["baseline"]["test_rmse"].get<double>();
  ASSERT_EQ(run_symgnn("evaluate --model " + dir + "/o --json " + dir + "/o.json", &out), 0) << out;
  EXPECT_NE(out.find("bias baseline (mu + b_u + b_i"), std::string::npos) << out;
  EXPECT_NEAR(nlohmann::json::parse(read(dir + "/o.json"))["baseline"]["test_rmse"].get<double>(), beside,
              1e-9);
  // The offset cannot serve a ranking objective: one line, exit 2.
  EXPECT_EQ(run_symgnn("train --epochs 1 --set lowrank.offset=baseline --set train.objective=ranking", &out),
            2);
  EXPECT_NE(out.find("lowrank.offset = baseline needs train.objective = rating"), std::string::npos) << out;
}
