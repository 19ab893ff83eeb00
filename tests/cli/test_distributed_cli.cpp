// Multi-process data-parallel training (docs/scale.md, "Several processes and machines"):
// two processes on 127.0.0.1 (train --nproc 2) train to the parameters of one process within
// float tolerance, full batch and in mini-batches; a two-process run killed mid-training resumes to the
// uninterrupted two-process run's files, byte for byte; torchrun's variables, when wrong, are one-line errors
// with exit code 2.
#include <gtest/gtest.h>
#include <torch/serialize/archive.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "common/test_support.h"
#include "train/checkpoint.h"

namespace fs = std::filesystem;
using symgnn::testing::read_file;
using symgnn::testing::run_symgnn;
using symgnn::testing::scratch_dir;

namespace {

// The paper's protocol (early stopping on validation) on the synthetic default: a checkpoint
// every epoch so that a kill lands between checkpoints.
const std::string kTrain =
    "train --preset paper --epochs 6 --no-compare --set train.checkpoint_every=1 --set "
    "train.checkpoint_seconds=0 "
    "--threads 1 --quiet";

/// The first weight set of a saved model, by parameter and buffer name.
std::map<std::string, at::Tensor> model_weights(const std::string& path) {
  torch::serialize::InputArchive archive, weights;
  symgnn::train::load_archive(archive, path, at::Device(at::kCPU));
  archive.read("weights", weights);
  std::map<std::string, at::Tensor> out;
  for (const auto& key : weights.keys()) {
    if (key == "tensor_count") continue;
    at::Tensor t;
    weights.read(key, t, key.rfind("b:", 0) == 0);
    out[key] = t;
  }
  return out;
}

/// The prediction column of predictions/test.csv.
std::vector<double> predictions(const std::string& dir) {
  std::istringstream in(read_file(dir + "/predictions/test.csv"));
  std::string line;
  std::getline(in, line);  // header
  std::vector<double> out;
  while (std::getline(in, line)) out.push_back(std::stod(line.substr(line.rfind(',') + 1)));
  return out;
}

/// The uninterrupted two-process run, trained once per test executable.
const std::string& two_process_reference() {
  static const std::string dir = [] {
    const std::string d = scratch_dir("distributed_reference") + "/run";
    std::string out;
    if (run_symgnn(kTrain + " --nproc 2 --out " + d, &out) != 0) throw std::runtime_error(out);
    return d;
  }();
  return dir;
}

size_t lines(const std::string& s) {
  return static_cast<size_t>(std::count(s.begin(), s.end(), '\n'));
}

}  // namespace

/// The runs in `one` and `two` saved the same parameters and test predictions within float
/// tolerance (gradients summed in another order: equal up to rounding, not bit for bit).
static void expect_same_model(const std::string& one, const std::string& two) {
  const auto w1 = model_weights(one + "/model.pt"), w2 = model_weights(two + "/model.pt");
  ASSERT_EQ(w1.size(), w2.size());
  ASSERT_FALSE(w1.empty());
  for (const auto& [name, t1] : w1) {
    ASSERT_TRUE(w2.count(name)) << name;
    const at::Tensor& t2 = w2.at(name);
    ASSERT_EQ(t1.sizes(), t2.sizes()) << name;
    const double scale = std::max(1.0, t1.abs().max().item<double>());
    EXPECT_LT((t1.to(at::kDouble) - t2.to(at::kDouble)).abs().max().item<double>(), 1e-4 * scale) << name;
  }
  const std::vector<double> p1 = predictions(one), p2 = predictions(two);
  ASSERT_EQ(p1.size(), p2.size());
  ASSERT_FALSE(p1.empty());
  for (size_t k = 0; k < p1.size(); ++k) ASSERT_NEAR(p1[k], p2[k], 1e-4) << "test rating " << k;
}

TEST(DistributedTraining, TwoProcessesTrainToTheParametersOfOne) {
  const std::string one = scratch_dir("distributed_one") + "/run";
  std::string out;
  ASSERT_EQ(run_symgnn(kTrain + " --out " + one, &out), 0) << out;
  const std::string& two = two_process_reference();
  expect_same_model(one, two);
  // Only rank 0 wrote: one history per run, no stray files of rank 1.
  EXPECT_TRUE(fs::exists(two + "/run0/history.csv"));
  EXPECT_EQ(read_file(one + "/run0/history.csv").size() > 0, true);
}

TEST(DistributedTraining, TwoProcessesWithMiniBatchesTrainToTheParametersOfOne) {
  // 6,156 training ratings in batches of 1,000: 7 steps an epoch; each rank scores its
  // shard's part of every global batch (train/minibatch.h). Two epochs: Adam's normalised
  // steps let the float rounding of the two sums grow with the step count (with the fused
  // dot decoder, src/models/kernels/dot_mse.h, parameters differ by up to 4e-4 after 21
  // steps; before it, by 7e-4 after 42). A wrong weighting of a rank's part would move
  // them by the learning rate (0.01) in one step.
  const std::string batches =
      "train --preset paper --epochs 2 --no-compare --threads 1 --quiet --set train.batch_size=1000";
  const std::string one = scratch_dir("distributed_mb_one") + "/run";
  const std::string two = scratch_dir("distributed_mb_two") + "/run";
  std::string out;
  ASSERT_EQ(run_symgnn(batches + " --out " + one, &out), 0) << out;
  ASSERT_EQ(run_symgnn(batches + " --nproc 2 --out " + two, &out), 0) << out;
  expect_same_model(one, two);
}

TEST(DistributedTraining, AKilledTwoProcessRunResumesToTheUninterruptedResult) {
  const std::string& reference = two_process_reference();
  // Rank 0 dies by SIGKILL at its 10th fault point (after the config, the pinned data and two
  // checkpoints, epoch 3); the launcher stops rank 1 and reports the kill.
  const std::string dir = scratch_dir("distributed_killed") + "/run";
  std::string out;
  const int rc = run_symgnn(kTrain + " --nproc 2 --out " + dir, &out, "SYMGNN_FAULT_INJECT=kill:10");
  ASSERT_EQ(rc, 128 + 9) << out;
  EXPECT_NE(out.find("killed by signal 9"), std::string::npos) << out;
  ASSERT_TRUE(fs::exists(dir + "/run0/checkpoint.pt"));
  ASSERT_FALSE(fs::exists(dir + "/model.pt"));

  ASSERT_EQ(run_symgnn("train --resume " + dir + " --nproc 2 --threads 1 --quiet", &out), 0) << out;
  for (const std::string f : {"model.pt", "run0/model.pt", "predictions/test.csv", "predictions/val.csv"})
    EXPECT_TRUE(read_file(dir + "/" + f) == read_file(reference + "/" + f)) << f << " differs";
}

TEST(DistributedTraining, BadRendezvousVariablesAreOneLineErrors) {
  const std::string dir = scratch_dir("distributed_errors");
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"WORLD_SIZE=2 RANK=0 MASTER_PORT=29500", "MASTER_ADDR is not set"},
      {"WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT=29500", "RANK is not set"},
      {"WORLD_SIZE=two", "WORLD_SIZE=two"},
      {"WORLD_SIZE=2 RANK=2 MASTER_ADDR=127.0.0.1 MASTER_PORT=29500",
       "RANK=2: must be less than WORLD_SIZE=2"},
      {"WORLD_SIZE=2 RANK=1 MASTER_ADDR=127.0.0.1 MASTER_PORT=70000", "MASTER_PORT=70000"},
      {"WORLD_SIZE=2 RANK=1 MASTER_ADDR=127.0.0.1 MASTER_PORT=-1", "MASTER_PORT=-1"},
      {"WORLD_SIZE=2 RANK=0 MASTER_ADDR=127.0.0.1 MASTER_PORT=29500 --nproc-check", "--nproc 2 starts"},
  };
  for (const auto& [env, expected] : cases) {
    std::string args = kTrain + " --out " + dir + "/x";
    std::string vars = env;
    if (const size_t p = vars.find(" --nproc-check"); p != std::string::npos) {
      vars.resize(p);
      args += " --nproc 2";
    }
    std::string out;
    EXPECT_EQ(run_symgnn(args, &out, vars), 2) << env << ": " << out;
    EXPECT_EQ(lines(out), 1u) << env << ": " << out;
    EXPECT_NE(out.find(expected), std::string::npos) << env << ": " << out;
  }
  // A rank whose master never comes: the rendezvous gives up after SYMGNN_DIST_TIMEOUT.
  const auto t0 = std::chrono::steady_clock::now();
  std::string out;
  EXPECT_EQ(run_symgnn(kTrain, &out,
                       "WORLD_SIZE=2 RANK=1 MASTER_ADDR=127.0.0.1 MASTER_PORT=1 SYMGNN_DIST_TIMEOUT=2"),
            2)
      << out;
  EXPECT_EQ(lines(out), 1u) << out;
  EXPECT_NE(out.find("rank 0 unreachable"), std::string::npos) << out;
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 30.0);
}

namespace {
/// A port for one test's rendezvous, apart from the other tests' and processes'.
std::string test_port(int offset) {
  return std::to_string(20000 + (static_cast<int>(::getpid()) * 7 + offset) % 20000);
}
}  // namespace

TEST(DistributedTraining, RendezvousAlwaysEnds) {
  // Rank 0 alone: the ranks that never come are counted, and it gives up at the timeout.
  const auto t0 = std::chrono::steady_clock::now();
  std::string out;
  EXPECT_EQ(run_symgnn(kTrain, &out,
                       "WORLD_SIZE=2 RANK=0 MASTER_ADDR=127.0.0.1 MASTER_PORT=" + test_port(1) +
                           " SYMGNN_DIST_TIMEOUT=2"),
            2)
      << out;
  EXPECT_EQ(lines(out), 1u) << out;
  EXPECT_NE(out.find("rank 0 of 2: only 1 of 2 ranks joined"), std::string::npos) << out;
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 30.0);

  // Two ranks started with different arguments: both refuse in one line instead of training
  // different models and waiting for each other.
  const std::string env =
      "WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT=" + test_port(2) + " SYMGNN_DIST_TIMEOUT=20";
  int rc[2];
  std::string outs[2];
  std::thread a([&] { rc[0] = run_symgnn(kTrain + " --set train.lr=0.01", &outs[0], env + " RANK=0"); });
  std::thread b([&] { rc[1] = run_symgnn(kTrain + " --set train.lr=0.5", &outs[1], env + " RANK=1"); });
  a.join();
  b.join();
  EXPECT_EQ(rc[0], 2) << outs[0];
  EXPECT_EQ(rc[1], 2) << outs[1];
  EXPECT_TRUE(outs[0].find("its config differs from rank 1's") != std::string::npos ||
              outs[1].find("its config differs from rank 0's") != std::string::npos)
      << outs[0] << outs[1];
  for (const auto& o : outs) EXPECT_EQ(lines(o), 1u) << o;
}

TEST(DistributedTraining, ALauncherSaysABadInputOnceAndLeavesNoFile) {
  const std::string tmp = scratch_dir("distributed_tmp");
  std::string out;
  EXPECT_EQ(run_symgnn(kTrain + " --nproc 2 --data " + tmp + "/missing.csv", &out, "TMPDIR=" + tmp), 2)
      << out;
  EXPECT_EQ(lines(out), 1u) << out;
  // Killed outright mid-training: its ranks die with it, and no captured output is left in
  // the temporary folder.
  const std::string dir = tmp + "/killed";
  symgnn::testing::run_command(
      "TMPDIR=" + tmp + " " + symgnn::testing::symgnn_binary() +
      " train --preset paper --epochs 300 --no-compare --threads 1 --quiet --nproc 2 --out " + dir +
      " & sleep 4; kill -9 $!; sleep 2");
  for (const auto& e : fs::directory_iterator(tmp))
    EXPECT_NE(e.path().filename().string().rfind("symgnn-rank-", 0), 0u) << e.path();
}
