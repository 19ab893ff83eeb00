// Self-contained, pinned model directories (docs/reliability.md): `symgnn train --out DIR`
// keeps the data it trained on in DIR/dataset.bin, so DIR answers the same once copied
// elsewhere and once its training files are edited or gone; --resume refuses data that
// changed, naming the file; the checkpoints are pruned at the end unless kept; a directory
// written before snapshots existed still loads, with a note.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "common/test_support.h"

namespace fs = std::filesystem;
using symgnn::testing::read_file;
using symgnn::testing::run_symgnn;
using symgnn::testing::scratch_dir;
using symgnn::testing::write_file;

namespace {

/// 30 users x 20 items, every user rating 8 items, ratings from a pattern.
std::string ratings_csv() {
  std::string text = "user,item,rating\n";
  for (int u = 1; u <= 30; ++u)
    for (int k = 0; k < 8; ++k) {
      const int i = 1 + (u * 3 + k * 7) % 20;
      text += std::to_string(u) + "," + std::to_string(i) + "," + std::to_string(1 + (u + i) % 5) + "\n";
    }
  return text;
}

/// The same ratings with users 1 and 2 trading rows.
std::string swapped_csv() {
  std::string text = "user,item,rating\n";
  for (int u = 1; u <= 30; ++u)
    for (int k = 0; k < 8; ++k) {
      const int i = 1 + (u * 3 + k * 7) % 20;
      const int as = u == 1 ? 2 : u == 2 ? 1 : u;
      text += std::to_string(as) + "," + std::to_string(i) + "," + std::to_string(1 + (u + i) % 5) + "\n";
    }
  return text;
}

const std::string kTwoRunTrain = "train --epochs 4 --no-compare --threads 1 --quiet --set train.runs=2";

/// `out` without the lines on stderr: the loaders' warnings and notes, and the commands'
/// summaries (which carry timings).
std::string answer_lines(const std::string& out) {
  std::istringstream in(out);
  std::string line, kept;
  while (std::getline(in, line)) {
    bool said = false;
    for (const char* prefix : {"warning: ", "note: ", "predict: ", "recommend: "})
      said = said || line.rfind(prefix, 0) == 0;
    if (!said) kept += line + "\n";
  }
  return kept;
}

/// predict, recommend and evaluate of model `dir` (their answers), which must succeed.
std::string answers(const std::string& dir, const std::string& pairs) {
  std::string all, out;
  for (const std::string& cmd :
       {"predict --model " + dir + " --pairs " + pairs, "recommend --model " + dir + " --user 1 --k 5",
        "recommend --model " + dir + " --user 2 --k 5", "evaluate --model " + dir}) {
    EXPECT_EQ(run_symgnn(cmd, &out), 0) << cmd << "\n" << out;
    all += answer_lines(out);
  }
  return all;
}

/// predict, recommend and evaluate of model `dir` (and of its run0/) each refuse it with exit 2
/// in one line holding every one of `said`.
void expect_refused(const std::string& dir, const std::string& pairs, const std::vector<std::string>& said) {
  std::string out;
  for (const std::string& cmd :
       {"predict --model " + dir + " --pairs " + pairs, "recommend --model " + dir + " --user 1 --k 5",
        "evaluate --model " + dir, "predict --model " + dir + "/run0 --pairs " + pairs}) {
    EXPECT_EQ(run_symgnn(cmd, &out), 2) << cmd << "\n" << out;
    for (const std::string& s : said) EXPECT_NE(out.find(s), std::string::npos) << cmd << "\n" << out;
    EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1) << cmd << "\n" << out;
  }
}

}  // namespace

TEST(ModelDirectories, ACopiedDirectoryAnswersWithoutItsTrainingFiles) {
  const std::string root = scratch_dir("model_dirs_copy");
  const std::string csv = write_file(root, "ratings.csv", ratings_csv());
  const std::string pairs = write_file(root, "pairs.csv", "user,item\n1,5\n2,5\n3,7\n");
  std::string out;
  ASSERT_EQ(run_symgnn(kTwoRunTrain + " --data " + csv + " --out " + root + "/m", &out), 0) << out;
  ASSERT_TRUE(fs::exists(root + "/m/dataset.bin"));
  const std::string before = answers(root + "/m", pairs);

  // Users 1 and 2 trade rows in the training file: the model still answers for its own data.
  write_file(root, "ratings.csv", swapped_csv());
  EXPECT_EQ(answers(root + "/m", pairs), before);
  // Copied to another folder, the training file gone.
  fs::create_directories(root + "/elsewhere");
  fs::copy(root + "/m", root + "/elsewhere/m", fs::copy_options::recursive);
  fs::remove(csv);
  EXPECT_EQ(answers(root + "/elsewhere/m", pairs), before);
  // No note: the data came from the snapshot.
  ASSERT_EQ(run_symgnn("predict --model " + root + "/elsewhere/m --pairs " + pairs, &out), 0) << out;
  EXPECT_EQ(out.find("note:"), std::string::npos) << out;
}

TEST(ModelDirectories, ResumeRefusesChangedDataNamingTheFile) {
  const std::string root = scratch_dir("model_dirs_resume");
  const std::string csv = write_file(root, "ratings.csv", ratings_csv());
  const std::string dir = root + "/m";
  std::string out;
  // Killed at its 12th fault point (a few checkpoints in), then the file changes.
  const int rc =
      run_symgnn(kTwoRunTrain + " --set train.checkpoint_every=1 --set train.checkpoint_seconds=0 --data " +
                     csv + " --out " + dir,
                 &out, "SYMGNN_FAULT_INJECT=kill:12");
  ASSERT_NE(rc, 0) << out;
  ASSERT_TRUE(fs::exists(dir + "/dataset.bin"));
  write_file(root, "ratings.csv", swapped_csv());
  ASSERT_EQ(run_symgnn("train --quiet --resume " + dir, &out), 2) << out;
  EXPECT_NE(out.find("symgnn: error: data.source " + fs::canonical(csv).string() +
                     ": the training ratings differ from the file the run trained on"),
            std::string::npos)
      << out;
  // The file restored, the run resumes and ends.
  write_file(root, "ratings.csv", ratings_csv());
  ASSERT_EQ(run_symgnn("train --quiet --resume " + dir, &out), 0) << out;
  EXPECT_TRUE(fs::exists(dir + "/model.pt"));
}

TEST(ModelDirectories, CheckpointsArePrunedUnlessKept) {
  const std::string root = scratch_dir("model_dirs_prune");
  std::string out;
  ASSERT_EQ(run_symgnn(kTwoRunTrain + " --out " + root + "/pruned", &out), 0) << out;
  for (const char* f : {"model.pt", "dataset.bin", "run0/model.pt", "run1/model.pt", "run0/history.csv"})
    EXPECT_TRUE(fs::exists(root + "/pruned/" + f)) << f;
  for (const auto& e : fs::recursive_directory_iterator(root + "/pruned"))
    EXPECT_NE(e.path().filename(), "checkpoint.pt") << e.path();
  // A finished run whose checkpoints are gone has nothing to resume: said in one line.
  ASSERT_EQ(run_symgnn("train --quiet --resume " + root + "/pruned", &out), 2) << out;
  EXPECT_NE(out.find("the run is finished"), std::string::npos) << out;

  ASSERT_EQ(run_symgnn(kTwoRunTrain + " --set train.keep_checkpoints=true --out " + root + "/kept", &out), 0)
      << out;
  EXPECT_TRUE(fs::exists(root + "/kept/run0/checkpoint.pt"));
  EXPECT_TRUE(fs::exists(root + "/kept/run1/checkpoint.pt"));
  ASSERT_EQ(run_symgnn("train --quiet --resume " + root + "/kept", &out), 0) << out;
}

TEST(ModelDirectories, ADirectoryWithoutSnapshotLoadsWithANote) {
  // As an older symgnn wrote it (tests/fixtures/fit_v0/model_dir: no dataset.bin, no record
  // of its parts): the config's data are read again, and it says so.
  const std::string root = scratch_dir("model_dirs_old");
  fs::copy(std::string(SYMGNN_SOURCE_DIR) + "/tests/fixtures/fit_v0/model_dir", root + "/m",
           fs::copy_options::recursive);
  const std::string pairs = write_file(root, "pairs.csv", "user,item\n1,5\n");
  std::string out;
  ASSERT_EQ(run_symgnn("predict --model " + root + "/m --pairs " + pairs, &out), 0) << out;
  EXPECT_NE(out.find("note: " + root + "/m/model.pt was saved without the data it trained on"),
            std::string::npos)
      << out;
}

// docs/reliability.md, "Model folders": model.pt records the parts its folder had (the
// pinned data, the ranker); a folder that lost one is refused in one line naming it,
// instead of answering from the training files as they are now or ranking without the ranker.
TEST(ModelDirectories, AFolderThatLostAPartIsRefusedNamingIt) {
  const std::string root = scratch_dir("model_dirs_parts");
  const std::string csv = write_file(root, "ratings.csv", ratings_csv());
  const std::string pairs = write_file(root, "pairs.csv", "user,item\n1,5\n");
  std::string out;
  ASSERT_EQ(run_symgnn(kTwoRunTrain + " --data " + csv + " --out " + root + "/m", &out), 0) << out;
  ASSERT_TRUE(fs::is_regular_file(root + "/m/ranker/model.pt"));
  const auto copy = [&](const std::string& name) {
    fs::copy(root + "/m", root + "/" + name, fs::copy_options::recursive);
    return root + "/" + name;
  };
  const std::string no_data = copy("no_data"), data_folder = copy("data_folder"),
                    no_ranker = copy("no_ranker");
  fs::remove(no_data + "/dataset.bin");
  fs::remove(data_folder + "/dataset.bin");
  fs::create_directories(data_folder + "/dataset.bin");
  fs::remove_all(no_ranker + "/ranker");
  expect_refused(no_data, pairs, {no_data + "/dataset.bin: missing"});
  expect_refused(data_folder, pairs, {data_folder + "/dataset.bin: missing"});
  expect_refused(no_ranker, pairs, {no_ranker + "/ranker/model.pt: missing"});
  // The whole folder still answers.
  EXPECT_EQ(run_symgnn("recommend --model " + root + "/m --user 1 --k 5", &out), 0) << out;
}

// Issue 65, item 4: model.pt records each part by its checksum, so a dataset.bin or a
// ranker/ copied from another run (the same files with two users' rows traded) is refused in
// one line naming it, as a missing one is, instead of answering with that run's ids.
TEST(ModelDirectories, APartFromAnotherRunIsRefusedNamingIt) {
  const std::string root = scratch_dir("model_dirs_foreign_parts");
  const std::string csv = write_file(root, "ratings.csv", ratings_csv());
  const std::string other_csv = write_file(root, "swapped.csv", swapped_csv());
  const std::string pairs = write_file(root, "pairs.csv", "user,item\n1,5\n");
  std::string out;
  ASSERT_EQ(run_symgnn(kTwoRunTrain + " --data " + csv + " --out " + root + "/m", &out), 0) << out;
  ASSERT_EQ(run_symgnn(kTwoRunTrain + " --data " + other_csv + " --out " + root + "/other", &out), 0) << out;
  ASSERT_TRUE(fs::is_regular_file(root + "/other/ranker/model.pt"));
  const auto copy = [&](const std::string& name) {
    fs::copy(root + "/m", root + "/" + name, fs::copy_options::recursive);
    return root + "/" + name;
  };
  const std::string their_data = copy("their_data"), their_ranker = copy("their_ranker");
  fs::copy_file(root + "/other/dataset.bin", their_data + "/dataset.bin",
                fs::copy_options::overwrite_existing);
  fs::remove_all(their_ranker + "/ranker");
  fs::copy(root + "/other/ranker", their_ranker + "/ranker", fs::copy_options::recursive);
  expect_refused(their_data, pairs,
                 {their_data + "/dataset.bin: not the dataset.bin ", "a part from another run"});
  expect_refused(their_ranker, pairs,
                 {their_ranker + "/ranker/model.pt: not the ranker ", "a part from another run"});
  // Both whole folders still answer, and a copy of the whole folder too.
  EXPECT_EQ(run_symgnn("recommend --model " + root + "/m --user 1 --k 5", &out), 0) << out;
  EXPECT_EQ(run_symgnn("recommend --model " + root + "/other --user 1 --k 5", &out), 0) << out;
  EXPECT_EQ(run_symgnn("predict --model " + copy("whole") + " --pairs " + pairs, &out), 0) << out;
}

TEST(ModelDirectories, TheOutputOfRefreshAndCompactIsCheckedFirstAndNamedAsGiven) {
  // Issue 65, item 7: a valid name near the 255-byte limit is written (its staging folder's
  // name fits too); an --out that cannot be made is refused before any work, in one line
  // naming --out as given, exit 2.
  const std::string root = scratch_dir("model_dirs_out");
  const std::string csv = write_file(root, "ratings.csv", ratings_csv());
  const std::string fresh = write_file(root, "fresh.csv", "user,item,rating\n1,3,5\n");
  std::string out;
  ASSERT_EQ(
      run_symgnn("train --epochs 2 --no-compare --threads 1 --quiet --data " + csv + " --out " + root + "/m",
                 &out),
      0)
      << out;
  const std::string long_name = root + "/" + std::string(248, 'n');
  ASSERT_EQ(run_symgnn("graph compact --model " + root + "/m --out " + long_name, &out), 0) << out;
  EXPECT_TRUE(fs::exists(long_name + "/model.pt")) << out;
  const std::string long_refresh = root + "/" + std::string(248, 'r');
  ASSERT_EQ(run_symgnn("refresh --model " + root + "/m --ratings " + fresh + " --out " + long_refresh, &out),
            0)
      << out;
  EXPECT_TRUE(fs::exists(long_refresh + "/model.pt")) << out;
  fs::create_symlink(root + "/nowhere", root + "/dangling");
  for (const std::string& command :
       {"graph compact --model " + root + "/m", "refresh --model " + root + "/m --ratings " + fresh}) {
    SCOPED_TRACE(command);
    EXPECT_EQ(run_symgnn(command + " --out " + root + "/dangling", &out), 2) << out;
    EXPECT_NE(out.find("--out " + root + "/dangling: a link to nothing"), std::string::npos) << out;
    EXPECT_EQ(run_symgnn(command + " --out /proc/self/none/x", &out), 2) << out;
    EXPECT_NE(out.find("--out /proc/self/none/x: cannot be made"), std::string::npos) << out;
    EXPECT_EQ(out.find(".tmp."), std::string::npos) << out;
  }
  EXPECT_FALSE(fs::exists(root + "/nowhere"));
}

TEST(ModelDirectories, ARunRefusedForItsInputLeavesTheFolderReusableAndRecordsAbsolutePaths) {
  // Issue 65 ("Also"): a train that fails on bad input left config.txt in --out, and the same
  // command, the input fixed, was refused ("already holds a run"); relative test and graph
  // paths in config.txt made the folder work only from the data's folder.
  const std::string root = scratch_dir("model_dirs_reusable");
  write_file(root, "bad.csv", "user,item,rating\n1,2,x\n");
  write_file(root, "ratings.csv", ratings_csv());
  write_file(root, "test.csv", "user,item,rating\n1,2,4\n2,3,3\n");
  std::string out;
  EXPECT_EQ(run_symgnn("train --epochs 2 --no-compare --threads 1 --quiet --data " + root +
                           "/bad.csv --out " + root + "/m",
                       &out),
            2)
      << out;
  EXPECT_FALSE(fs::exists(root + "/m/config.txt"));
  // From the data's folder, with relative paths: the same folder takes the fixed run.
  ASSERT_EQ(symgnn::testing::run_command("cd " + root + " && " + symgnn::testing::symgnn_binary() +
                                             " train --epochs 2 --no-compare --threads 1 --quiet --data "
                                             "ratings.csv --set data.test_file=test.csv --out m",
                                         &out),
            0)
      << out;
  const std::string config = read_file(root + "/m/config.txt");
  EXPECT_NE(config.find("test_file = " + fs::canonical(root).string() + "/test.csv"), std::string::npos)
      << config;
  // Read from elsewhere.
  ASSERT_EQ(symgnn::testing::run_command("cd / && " + symgnn::testing::symgnn_binary() +
                                             " evaluate --model " + root + "/m --protocol new-users",
                                         &out),
            0)
      << out;
}
