// The fault-injection suite (docs/reliability.md): `symgnn train` killed at many points
// resumes to the uninterrupted result; write failures at every write site are one-line
// errors (exit 2) that leave no temporary file and the previous file intact; damaged files
// are refused; two runs never share an --out. Faults come from SYMGNN_FAULT_INJECT
// (src/util/fault_injection.h) and from editing the files.
#include <gtest/gtest.h>

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "common/test_support.h"
#include "reliability/fault_support.h"
#include "util/output_lock.h"

namespace fs = std::filesystem;
using symgnn::testing::lines_of;
using symgnn::testing::read_file;
using symgnn::testing::run_command;
using symgnn::testing::run_symgnn;
using symgnn::testing::scratch_dir;
using symgnn::testing::temporaries;

namespace {

// Two seeds, six epochs, a checkpoint every epoch and the retrain phase of the synthetic
// preset: about 120 fault points, 16 checkpoints and 4 saved models per run. The
// checkpoints are kept at the end, for the damaged-file cases (tests/reliability/
// test_model_directories.cpp covers their pruning).
const std::string kTrain =
    "train --epochs 6 --runs 2 --no-compare --set train.checkpoint_every=1 --set train.checkpoint_seconds=0 "
    "--set train.keep_checkpoints=true "
    "--threads 1 --quiet";

/// Whether `rc` (run_command's status) is a death by `sig`: the shell reports 128 + sig,
/// or the status is not an exit at all.
bool died_of(int rc, int sig) {
  return rc == 128 + sig || rc == -1;
}

/// The files whose bytes must equal the uninterrupted run's.
std::vector<std::string> result_files(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (name == "model.pt" || (name.size() > 4 && name.substr(name.size() - 4) == ".csv" &&
                               e.path().parent_path().filename() == "predictions"))
      out.push_back(fs::relative(e.path(), dir).string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

/// The uninterrupted run, trained once per test executable.
const std::string& reference() {
  static const std::string dir = [] {
    const std::string d = scratch_dir("reliability_reference") + "/run";
    std::string out;
    if (run_symgnn(kTrain + " --out " + d, &out) != 0) throw std::runtime_error(out);
    return d;
  }();
  return dir;
}

void expect_same_results(const std::string& dir, const std::string& what) {
  const auto files = result_files(reference());
  ASSERT_EQ(result_files(dir), files) << what;
  for (const auto& f : files)
    EXPECT_TRUE(read_file(dir + "/" + f) == read_file(reference() + "/" + f))
        << what << ": " << f << " differs";
}

/// Flips one bit of the byte at `offset` (from the end when negative).
void flip_byte(const std::string& path, long offset) {
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  f.seekg(0, std::ios::end);
  const long size = static_cast<long>(f.tellg());
  const long at = offset < 0 ? size + offset : offset;
  f.seekg(at);
  char c = 0;
  f.read(&c, 1);
  c = static_cast<char>(c ^ 0x10);
  f.seekp(at);
  f.write(&c, 1);
}

}  // namespace

TEST(FaultInjection, KilledAnywhereThenResumedEqualsTheUninterruptedRun) {
  const std::string root = scratch_dir("reliability_kill");
  reference();
  // Fault points: each atomic write before and after its rename, each epoch's end. The
  // early ones die before config.txt exists (then the run starts again from nothing).
  const long points[] = {1, 2, 4, 7, 11, 16, 23, 31, 40, 52, 66, 81, 97, 115};
  int kills = 0;
  for (const long n : points) {
    const std::string dir = root + "/k" + std::to_string(n), what = "kill at point " + std::to_string(n);
    std::string out;
    const int rc =
        run_symgnn(kTrain + " --out " + dir, &out, "SYMGNN_FAULT_INJECT=kill:" + std::to_string(n));
    if (rc == 0) continue;  // the run had fewer points
    ASSERT_TRUE(died_of(rc, SIGKILL)) << what << ": exit " << rc << "\n" << out;
    ++kills;
    const bool started = fs::exists(dir + "/config.txt");
    ASSERT_EQ(run_symgnn(started ? "train --quiet --resume " + dir : kTrain + " --out " + dir, &out), 0)
        << what << "\n"
        << out;
    EXPECT_TRUE(temporaries(dir).empty()) << what << ": " << temporaries(dir).front();
    expect_same_results(dir, what);
  }
  EXPECT_GE(kills, 10);
}

TEST(FaultInjection, SignalsLeaveNoTemporaryFile) {
  const std::string root = scratch_dir("reliability_signal");
  // Odd points fall between a temporary's creation and its rename.
  for (const auto& [name, sig] :
       {std::pair<const char*, int>{"INT", SIGINT}, {"TERM", SIGTERM}, {"HUP", SIGHUP}}) {
    for (const long n : {3L, 25L, 61L}) {
      const std::string dir = root + "/" + name + std::to_string(n);
      std::string out;
      const int rc = run_symgnn(kTrain + " --out " + dir, &out,
                                "SYMGNN_FAULT_INJECT=signal:" + std::string(name) + ":" + std::to_string(n));
      ASSERT_TRUE(died_of(rc, sig)) << name << " at " << n << ": exit " << rc << "\n" << out;
      EXPECT_TRUE(temporaries(dir).empty()) << name << " at " << n << ": " << temporaries(dir).front();
    }
  }
}

TEST(FaultInjection, WriteFailuresAtEveryTrainingWriteSiteAreOneLineErrors) {
  const std::string root = scratch_dir("reliability_write");
  // Every file `train --out` writes, the folders' checksum lists included, and --metrics-out.
  const char* sites[] = {"config.txt",       "checkpoint.pt", "history.csv",          "run0/model.pt",
                         "/model.pt",        "metrics.json",  "predictions/test.csv", "predictions/val.csv",
                         "checksums.sha256", "extra.json"};
  // One errno per site, in turn (tests/util/test_checksum.cpp puts every errno through
  // every kind of file): disk full part-way, permission denied at creation, I/O error at fsync.
  const char* errors[] = {"ENOSPC", "EACCES", "EIO"};
  int case_number = 0;
  for (const char* site : sites) {
    const char* error = errors[case_number % 3];
    const std::string dir = root + "/c" + std::to_string(case_number++);
    const std::string what = std::string(error) + " writing " + site;
    std::string out;
    const int rc = run_symgnn(kTrain + " --out " + dir + " --metrics-out " + root + "/extra.json", &out,
                              "SYMGNN_FAULT_INJECT=write:" + std::string(error) + ":" + site);
    EXPECT_EQ(rc, 2) << what << "\n" << out;
    // The error is the last line, and one line (the results may be printed before it).
    const size_t at = out.find("symgnn: error: ");
    ASSERT_NE(at, std::string::npos) << what << "\n" << out;
    const std::string error_line = out.substr(at);
    EXPECT_EQ(lines_of(error_line), 1) << what << "\n" << out;
    EXPECT_NE(error_line.find("cannot write"), std::string::npos) << what << "\n" << out;
    EXPECT_NE(error_line.find(site[0] == '/' ? site + 1 : site), std::string::npos) << what << "\n" << out;
    EXPECT_TRUE(temporaries(dir).empty()) << what << ": " << temporaries(dir).front();
  }
  EXPECT_TRUE(temporaries(root).empty());
}

TEST(FaultInjection, AFailedCheckpointKeepsThePreviousOneAndTheRunResumes) {
  const std::string dir = scratch_dir("reliability_previous") + "/run";
  reference();
  std::string out;
  // The disk fills at the 4th checkpoint: the 3rd stays, and the run resumes from it.
  ASSERT_EQ(run_symgnn(kTrain + " --out " + dir, &out, "SYMGNN_FAULT_INJECT=write:ENOSPC:checkpoint.pt:4"), 2)
      << out;
  EXPECT_NE(out.find("No space left on device"), std::string::npos) << out;
  EXPECT_NE(out.find("the previous file, if any, is unchanged"), std::string::npos) << out;
  EXPECT_TRUE(temporaries(dir).empty());
  ASSERT_EQ(run_symgnn("train --quiet --resume " + dir, &out), 0) << out;
  expect_same_results(dir, "resumed after a full disk");
}

TEST(FaultInjection, CheckpointsWaitForTheirSecondsAndTheLastEpochIsAlwaysSaved) {
  // train.checkpoint_seconds: within a run far shorter than 1000 s a checkpoint every epoch
  // is due by its epoch count but not by its time, so each run writes one checkpoint, at
  // its last epoch: a disk that fails the 2nd write of checkpoint.pt is never reached. The
  // same run with the gate off writes one per epoch and meets it.
  const std::string root = scratch_dir("reliability_checkpoint_seconds");
  const std::string fill = "SYMGNN_FAULT_INJECT=write:ENOSPC:checkpoint.pt:2";
  const std::string args =
      "train --epochs 6 --runs 1 --no-compare --set train.checkpoint_every=1 "
      "--set train.keep_checkpoints=true --threads 1 --quiet --out ";
  std::string out;
  EXPECT_EQ(run_symgnn(args + root + "/gated --set train.checkpoint_seconds=1000", &out, fill), 0) << out;
  EXPECT_TRUE(fs::exists(root + "/gated/run0/checkpoint.pt"));
  EXPECT_EQ(run_symgnn(args + root + "/every --set train.checkpoint_seconds=0", &out, fill), 2) << out;
  EXPECT_NE(out.find("No space left on device"), std::string::npos) << out;
}

TEST(FaultInjection, WriteFailuresOfTheOtherCommandsAreOneLineErrors) {
  const std::string root = scratch_dir("reliability_commands");
  const std::string model = reference();
  const std::string pairs = symgnn::testing::write_file(root, "pairs.csv", "user,item\n1,1\n2,3\n");
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"recommend --model " + model + " --all --k 3 --out " + root + "/recs.csv", "recs.csv"},
      {"evaluate --model " + model + " --k 5 --json " + root + "/eval.json", "eval.json"},
      {"predict --model " + model + " --pairs " + pairs + " --out " + root + "/pred.csv", "pred.csv"},
      {"sylvester --data synthetic --out " + root + "/x.csv", "x.csv"},
      {"train --model sylvester --quiet --overwrite --out " + root + "/sylv", "sylv/metrics.json"},
  };
  for (const auto& [args, file] : cases)
    for (const char* error : {"ENOSPC", "EACCES"}) {
      std::string out;
      EXPECT_EQ(run_symgnn(args, &out, "SYMGNN_FAULT_INJECT=write:" + std::string(error) + ":" + file), 2)
          << args << "\n"
          << out;
      EXPECT_NE(out.find(root + "/" + file + ": cannot write"), std::string::npos) << args << "\n" << out;
    }
  EXPECT_TRUE(temporaries(root).empty());
}

TEST(FaultInjection, DamagedFilesAreRefusedNamingThem) {
  const std::string root = scratch_dir("reliability_damage");
  const std::string pairs = symgnn::testing::write_file(root, "pairs.csv", "user,item\n1,1\n");
  std::string out;
  // A flipped bit anywhere (the header, the ZIP entries, the tensor data, the end) or a cut.
  for (const long offset : {5L, 40L, 200L, 5000L, 400000L, 1000000L, -30L, -1L}) {
    const std::string dir = root + "/m" + std::to_string(offset < 0 ? -offset : offset);
    fs::copy(reference(), dir, fs::copy_options::recursive);
    flip_byte(dir + "/model.pt", offset);
    EXPECT_EQ(run_symgnn("predict --model " + dir + " --pairs " + pairs, &out), 2) << offset << "\n" << out;
    EXPECT_NE(out.find(dir + "/model.pt: "), std::string::npos) << out;
    EXPECT_EQ(lines_of(out), 1) << out;
    flip_byte(dir + "/run1/checkpoint.pt", offset);
    EXPECT_EQ(run_symgnn("train --quiet --resume " + dir, &out), 2) << offset << "\n" << out;
    EXPECT_NE(out.find(dir + "/run1/checkpoint.pt: "), std::string::npos) << out;
  }
  {
    const std::string dir = root + "/truncated";
    fs::copy(reference(), dir, fs::copy_options::recursive);
    fs::resize_file(dir + "/model.pt", fs::file_size(dir + "/model.pt") / 2);
    EXPECT_EQ(run_symgnn("predict --model " + dir + " --pairs " + pairs, &out), 2) << out;
    // model.pt is a plain archive listed in the folder's manifest: its hash no longer matches.
    EXPECT_NE(out.find(dir + "/model.pt: checksum differs"), std::string::npos) << out;
  }
  {
    // Text files symgnn reads back: the recorded config and the metrics.
    const std::string dir = root + "/text";
    fs::copy(reference(), dir, fs::copy_options::recursive);
    std::string config = read_file(dir + "/config.txt");
    config[config.size() / 2] ^= 0x01;
    std::ofstream(dir + "/config.txt", std::ios::binary) << config;
    EXPECT_EQ(run_symgnn("train --quiet --resume " + dir, &out), 2) << out;
    EXPECT_NE(out.find(dir + "/config.txt: checksum differs"), std::string::npos) << out;
    std::ofstream(dir + "/metrics.json", std::ios::app) << " ";
    EXPECT_EQ(run_symgnn("blend --models " + dir + " " + reference(), &out), 2) << out;
    EXPECT_NE(out.find(dir + "/metrics.json: checksum differs"), std::string::npos) << out;
  }
}

TEST(FaultInjection, OneRunPerOutputFolder) {
  const std::string root = scratch_dir("reliability_concurrent");
  std::string out;
  {
    // Held by someone else (here: this process): refused before any work.
    const std::string dir = root + "/held";
    fs::create_directories(dir);
    const symgnn::OutputLock lock(dir, "--out");
    EXPECT_EQ(run_symgnn(kTrain + " --out " + dir, &out), 2) << out;
    EXPECT_NE(out.find("--out " + dir + " is in use by another symgnn run (process "), std::string::npos)
        << out;
    EXPECT_FALSE(fs::exists(dir + "/config.txt"));
  }
  // Two real runs started together: one trains, the other is refused (in use, or already
  // holding a run if it came second), and the survivor's files are those of a lone run.
  for (int attempt = 0; attempt < 3; ++attempt) {
    const std::string dir = root + "/race" + std::to_string(attempt);
    int rc[2];
    std::string outs[2];
    std::thread a([&] { rc[0] = run_symgnn(kTrain + " --out " + dir, &outs[0]); });
    std::thread b([&] { rc[1] = run_symgnn(kTrain + " --out " + dir, &outs[1]); });
    a.join();
    b.join();
    ASSERT_EQ(std::min(rc[0], rc[1]), 0) << outs[0] << outs[1];
    ASSERT_EQ(std::max(rc[0], rc[1]), 2) << outs[0] << outs[1];
    const std::string& refused = rc[0] == 2 ? outs[0] : outs[1];
    EXPECT_TRUE(refused.find("is in use by another symgnn run") != std::string::npos ||
                refused.find("already holds a run") != std::string::npos)
        << refused;
    expect_same_results(dir, "race " + std::to_string(attempt));
  }
}

TEST(FaultInjection, AnExistingRunIsReplacedOnlyWhenAsked) {
  const std::string dir = scratch_dir("reliability_overwrite") + "/run";
  std::string out;
  ASSERT_EQ(run_symgnn(kTrain + " --out " + dir, &out), 0) << out;
  symgnn::testing::write_file(dir, "notes.txt", "mine\n");
  const std::string model = read_file(dir + "/run1/model.pt");
  EXPECT_EQ(run_symgnn(kTrain + " --out " + dir, &out), 2) << out;
  EXPECT_NE(out.find("already holds a run"), std::string::npos) << out;
  EXPECT_EQ(read_file(dir + "/run1/model.pt"), model);  // untouched
  ASSERT_EQ(run_symgnn("train --epochs 2 --no-compare --quiet --overwrite --out " + dir, &out), 0) << out;
  EXPECT_FALSE(fs::exists(dir + "/run1"));             // the old run's second seed is gone
  EXPECT_EQ(read_file(dir + "/notes.txt"), "mine\n");  // a file symgnn did not write stays
  EXPECT_EQ(run_symgnn("train --resume " + dir + " --overwrite", &out), 2) << out;  // nothing to replace
}

TEST(FaultInjection, RunningOutOfMemoryIsAOneLineErrorNamingTheStep) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "AddressSanitizer reserves terabytes of address space: ulimit -v cannot apply";
#else
  // A 2 GB address-space limit, and 10,000 users x 4096-wide representations to train.
  const std::string dir = scratch_dir("reliability_oom") + "/run";
  std::string out;
  const int rc = run_command(
      "bash -c 'ulimit -v 2000000; exec " + symgnn::testing::symgnn_binary() +
          " train --no-compare --quiet --epochs 1 --threads 1 --set data.synthetic_users=10000 --set "
          "data.synthetic_items=100 --set data.synthetic_density=0.01 --set lowrank.hidden=4096 --out " +
          dir + "'",
      &out);
  if (rc == 127 && out.find("error while loading shared libraries") != std::string::npos)
    GTEST_SKIP() << "this LibTorch's libraries (a CUDA build's) do not load under a 2 GB address-space limit";
  EXPECT_EQ(rc, 2) << out;
  EXPECT_EQ(out.rfind("symgnn: error: out of memory while training the lowrank model (", 0), 0u) << out;
  EXPECT_NE(out.find("can't allocate memory"), std::string::npos) << out;
  EXPECT_EQ(lines_of(out), 1) << out;
  EXPECT_TRUE(temporaries(dir).empty());
#endif
}

TEST(FaultInjection, AResumedRunMayUseAnotherThreadCount) {
  // --threads belongs to the process, not to the recorded run: the checkpoints still match.
  const std::string dir = scratch_dir("reliability_threads") + "/run";
  std::string out;
  ASSERT_TRUE(died_of(run_symgnn(kTrain + " --out " + dir, &out, "SYMGNN_FAULT_INJECT=kill:50"), SIGKILL))
      << out;
  ASSERT_EQ(run_symgnn("train --quiet --threads 2 --resume " + dir, &out), 0) << out;
  EXPECT_EQ(result_files(dir), result_files(reference()));
}
