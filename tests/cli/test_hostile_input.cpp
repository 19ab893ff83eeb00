// Input a hostile or unlucky user gives (issue 13): a data path that is not valid UTF-8
// trains and writes its metrics (the bad bytes replaced in the JSON), and a file too small
// to leave any test rating is an error, not an RMSE of nan with exit 0.
#include <gtest/gtest.h>

#include <algorithm>
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
  // The error is one line, the last (the identity-graph warnings come before it).
  const std::string error = out.substr(std::min(out.size(), out.find("symgnn: error:")));
  EXPECT_EQ(std::count(error.begin(), error.end(), '\n'), 1) << out;
}

// graph.knn_source = ratings no longer builds a dense n1 x n2 matrix, so a 200,000 x
// 200,000 set is no longer refused: the sparse k-NN (tests/graph/test_knn_sparse.cpp)
// builds its graph in O(threads x n + nnz + n k) memory.
