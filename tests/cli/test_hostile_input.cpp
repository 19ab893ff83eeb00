// Input a hostile or unlucky user gives (issue 13): a data path that is not valid UTF-8
// trains and writes its metrics (the bad bytes replaced in the JSON), and a file too small
// to leave any test rating is an error, not an RMSE of nan with exit 0.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "common/test_support.h"

using symgnn::testing::run_symgnn;
using symgnn::testing::scratch_dir;
using symgnn::testing::write_file;

TEST(HostileInput, ANonUtf8DataPathTrainsAndWritesItsMetrics) {
  const std::string dir = scratch_dir("cli_non_utf8");
  std::string csv = "user,item,rating\n";
  for (int u = 0; u < 30; ++u)
    for (int i = 0; i < 20; ++i)
      if ((u * 7 + i * 3) % 4 != 0)
        csv +=
            "u" + std::to_string(u) + ",i" + std::to_string(i) + "," + std::to_string(1 + (u + i) % 5) + "\n";
  const std::string path = write_file(dir, "r\xff\xfe.csv", csv);
  std::string out;
  ASSERT_EQ(run_symgnn("train --data '" + path + "' --epochs 2 --quiet --out '" + dir + "/run'", &out), 0)
      << out;
  const std::string metrics = symgnn::testing::read_file(dir + "/run/metrics.json");
  ASSERT_FALSE(metrics.empty());
  const auto j = nlohmann::json::parse(metrics);  // valid JSON, valid UTF-8
  EXPECT_TRUE(j.contains("test_rmse"));
}

TEST(HostileInput, NoTestRatingLeftIsAnError) {
  const std::string dir = scratch_dir("cli_tiny");
  const std::string path = write_file(dir, "one.csv", "a,x,4\n");
  std::string out;
  EXPECT_EQ(run_symgnn("train --data " + path + " --epochs 2 --quiet", &out), 2) << out;
  EXPECT_NE(out.find("one.csv"), std::string::npos) << out;
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1) << out;
  // Describing a set needs no split: data info shows what a valid 4-rating file holds.
  const std::string four = write_file(dir, "four.csv", "a,x,4\na,y,3\nb,x,5\nb,y,2\n");
  EXPECT_EQ(run_symgnn("data info " + four + " 2>/dev/null", &out), 0) << out;
  EXPECT_NE(out.find("4 (train"), std::string::npos) << out;
}

TEST(HostileInput, GarbageTheReadersOnceTookIsRefusedInOneLine) {
  const std::string dir = scratch_dir("cli_garbage");
  std::string out;
  // A rating's time past the year 9999; the file named as given (relative), not made absolute.
  write_file(dir, "timed.csv", "a,x,4,1000\na,y,3,1e30\nb,x,5,1002\nb,y,2,1003\n");
  EXPECT_EQ(symgnn::testing::run_command("cd '" + dir + "' && '" + symgnn::testing::symgnn_binary() +
                                             "' train --data timed.csv --epochs 2 --quiet 2>&1",
                                         &out),
            2)
      << out;
  EXPECT_EQ(out.rfind("symgnn: error: timed.csv:2: time '1e30' is not a time", 0), 0u) << out;
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1) << out;
  // The features of a node a graph edit creates, given twice (once concatenated): refused
  // before any model is read.
  EXPECT_EQ(run_symgnn("graph edit --model " + dir +
                           " --create --add-user-edge new,a --features new,1 "
                           "--features new,2",
                       &out),
            2)
      << out;
  EXPECT_NE(out.find("--features new,2: the features of new are given twice"), std::string::npos) << out;
}

TEST(HostileInput, ADirectoryGivenForAFileIsSaidToBeOne) {
  const std::string dir = scratch_dir("cli_directory_as_file");
  const std::string conf = write_file(dir, "base.conf", "model = lowrank\n");
  const std::string ratings = write_file(dir, "six.csv", "a,x,4\na,y,3\nb,x,5\nb,y,2\nc,x,1\nc,y,2\n");
  for (const std::string& args :
       {"tune --data synthetic --config " + conf + " --space " + dir + " --budget 1 --out " + dir + "/t",
        "train --data " + ratings + " --set data.test_file=" + dir + " --epochs 1 --quiet",
        "data info " + ratings + " --set data.user_graph_file=" + dir}) {
    std::string out;
    EXPECT_EQ(run_symgnn(args, &out), 2) << args << "\n" << out;
    EXPECT_NE(out.find(dir + ": is a directory, not a file"), std::string::npos) << args << "\n" << out;
    EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1) << args << "\n" << out;
  }
}

namespace {

/// A ratings CSV of 200,000 users x 200,000 items, one rating each: small on disk, huge dense.
std::string huge_diagonal_csv(const std::string& dir) {
  std::string csv;
  csv.reserve(200000 * 20);
  for (int k = 0; k < 200000; ++k) csv += "u" + std::to_string(k) + ",i" + std::to_string(k) + ",3\n";
  return write_file(dir, "huge.csv", csv);
}

}  // namespace

TEST(HostileInput, TheDenseSylvesterBaselineRefusesASetItCannotHold) {
  // 200,000 users x 200,000 items (one rating each): Eq. 1's dense matrices would need
  // about 2.3 TiB; the refusal comes before any of it is allocated.
  const std::string path = huge_diagonal_csv(scratch_dir("cli_huge_sylvester"));
  std::string out;
  EXPECT_EQ(run_symgnn("train --model sylvester --quiet --data " + path, &out), 2) << out;
  EXPECT_NE(out.find("GiB"), std::string::npos) << out;
  EXPECT_NE(out.find("200000 users x 200000 items"), std::string::npos) << out;
  // Refused before the ranker beside it is fitted and evaluated (half a minute on this set).
  EXPECT_EQ(out.find("ranker"), std::string::npos) << out;
  // The error is one line, the last (the identity-graph warnings come before it).
  const std::string error = out.substr(std::min(out.size(), out.find("symgnn: error:")));
  EXPECT_EQ(std::count(error.begin(), error.end(), '\n'), 1) << out;
}

// graph.knn_source = ratings no longer builds a dense n1 x n2 matrix, so a 200,000 x
// 200,000 set is no longer refused: the sparse k-NN (tests/graph/test_knn_sparse.cpp)
// builds its graph in O(threads x n + nnz + n k) memory.

TEST(HostileInput, AnExplodingLossStopsTheRunInOneLine) {
  // The largest learning rate the config admits: the loss grows by 1e15 in one epoch, and the
  // run would otherwise end with exit 0 and clipped constant predictions.
  std::string out;
  EXPECT_EQ(run_symgnn("train --set train.lr=10 --epochs 20 --no-compare --quiet", &out), 2) << out;
  EXPECT_NE(out.find("training diverged (loss "), std::string::npos) << out;
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1) << out;
  // Asked to train on, it does.
  EXPECT_EQ(
      run_symgnn(
          "train --set train.lr=10 --set train.stop_on_divergence=false --epochs 3 --no-compare --quiet",
          &out),
      0)
      << out;
}

// docs/reliability.md, "Output folders": a folder that cannot be made (a link to nowhere, a
// name over the file system's limit, a place the kernel owns) is one line naming it, exit 2,
// in every command that writes one.
TEST(HostileInput, AnOutputFolderThatCannotBeMadeIsOneLineNamingIt) {
  const std::string dir = scratch_dir("cli_bad_out");
  const std::string dangling = dir + "/dangling";
  std::filesystem::create_symlink(dir + "/missing/deeper", dangling);
  const std::string conf = write_file(dir, "base.conf", "model = lowrank\n");
  const std::string space = write_file(dir, "lr.space", "train.lr = loguniform 0.001 0.01\n");
  for (const std::string& out_dir :
       {dangling + "/run", dir + "/" + std::string(300, 'x'), std::string("/proc/symgnn_out")}) {
    for (const std::string& args :
         {"train --epochs 1 --quiet --no-compare --out " + out_dir,
          "tune --data synthetic --config " + conf + " --space " + space + " --budget 1 --out " + out_dir,
          "blend --models " + dir + "/a " + dir + "/b --out " + out_dir}) {
      std::string out;
      EXPECT_EQ(run_symgnn(args, &out), 2) << args << "\n" << out;
      EXPECT_EQ(out.find("internal error"), std::string::npos) << args << "\n" << out;
      EXPECT_NE(out.find("symgnn: error: "), std::string::npos) << args << "\n" << out;
      EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1) << args << "\n" << out;
    }
  }
}
