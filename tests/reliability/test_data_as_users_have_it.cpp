// Data as users have it (issue 30, docs/reliability.md): a user's own split whose test file
// names items and users the training file lacks, with an item feature table of the whole
// catalogue. Training, evaluate and the model directory count those test ratings, score them
// (features for nodes without ratings, the data.unknown_test fallback for ids that are no
// node) and report them apart; nothing is an error.
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

#include "common/test_support.h"

using symgnn::testing::read_file;
using symgnn::testing::run_symgnn;
using symgnn::testing::scratch_dir;
using symgnn::testing::write_file;

namespace {

int rating(int u, int i) {
  return 1 + (u * 7 + i * 3) % 5;
}

}  // namespace

TEST(DataAsUsersHaveIt, TestRatingsOfUnseenIdsAreCountedScoredAndReportedApart) {
  const std::string dir = scratch_dir("users_data");
  // Users 1..30 rate items 1..20; item 21 has a feature row but no rating; item 99 and
  // user 77 appear in the test file alone.
  std::string train = "user,item,rating\n", test = "user,item,rating\n", features = "item,genre_a,genre_b\n";
  for (int u = 1; u <= 30; ++u)
    for (int k = 0; k < 8; ++k) {
      const int i = 1 + (u * 3 + k * 7) % 20;
      train += std::to_string(u) + "," + std::to_string(i) + "," + std::to_string(rating(u, i)) + "\n";
    }
  for (int u = 1; u <= 30; u += 3) {
    const int i = 1 + (u * 3 + 8 * 7) % 20;
    if (train.find("\n" + std::to_string(u) + "," + std::to_string(i) + ",") == std::string::npos)
      test += std::to_string(u) + "," + std::to_string(i) + "," + std::to_string(rating(u, i)) + "\n";
  }
  test += "4,21,3\n9,21,4\n";           // a node without ratings, placed by its features
  test += "5,99,5\n77,3,2\n77,99,1\n";  // ids that are no node: the fallback
  for (int i = 1; i <= 21; ++i)
    features += std::to_string(i) + "," + std::to_string(i % 2) + "," + std::to_string((i / 2) % 2) + "\n";
  const std::string train_csv = write_file(dir, "train.csv", train);
  const std::string conf = write_file(
      dir, "own.conf",
      "data.source = " + train_csv + "\n" + "data.test_file = " + write_file(dir, "test.csv", test) + "\n" +
          "data.item_features_file = " + write_file(dir, "items.csv", features) + "\n");
  std::string out;
  ASSERT_EQ(run_symgnn("data info " + train_csv + " --config " + conf, &out), 0) << out;
  EXPECT_NE(out.find("21 nodes (1 without training ratings)"), std::string::npos) << out;
  EXPECT_NE(out.find("and 3 test naming an id that is no node"), std::string::npos) << out;

  const std::string model = dir + "/m";
  ASSERT_EQ(
      run_symgnn("train --config " + conf + " --epochs 3 --no-compare --threads 1 --out " + model, &out), 0)
      << out;
  EXPECT_NE(out.find("2 of the"), std::string::npos) << out;
  EXPECT_NE(
      out.find("3 more name an id that is no node (1 user(s), 1 item(s)), scored apart by the known-mean"),
      std::string::npos)
      << out;
  const auto metrics = nlohmann::json::parse(read_file(model + "/metrics.json"));
  const auto& u = metrics.at("test_unseen");
  EXPECT_EQ(u.at("cold_ratings"), 2);
  EXPECT_EQ(u.at("unknown_ratings"), 3);
  EXPECT_EQ(u.at("unknown_users"), 1);
  EXPECT_EQ(u.at("unknown_items"), 1);
  EXPECT_EQ(u.at("fallback"), "known-mean");
  // known-mean, by hand: (5, 99) takes user 5's mean, (77, 3) item 3's, (77, 99) the global
  // mean; each clipped to 1..5. Validation ratings are carved from training, so the means
  // come from the model's own training ratings: the reported RMSE lies in what any mean can give.
  const double unknown_rmse = u.at("unknown_rmse");
  EXPECT_GT(unknown_rmse, 0.0);
  EXPECT_LT(unknown_rmse, 4.0);
  const double test_rmse = u.at("test_rmse");
  const double all_rmse = u.at("all_rmse");
  const double n = u.at("test_ratings"), m = 3;
  EXPECT_NEAR(all_rmse * all_rmse * (n + m), test_rmse * test_rmse * n + unknown_rmse * unknown_rmse * m,
              1e-6);

  // evaluate reports the same parts, with another fallback on request.
  ASSERT_EQ(run_symgnn("evaluate --model " + model + " --json " + dir + "/eval.json", &out), 0) << out;
  EXPECT_NE(out.find("scored apart by the known-mean fallback"), std::string::npos) << out;
  const auto ev = nlohmann::json::parse(read_file(dir + "/eval.json"));
  EXPECT_EQ(ev.at("unseen").at("unknown_ratings"), 3);
  EXPECT_NEAR(ev.at("unseen").at("unknown_rmse").get<double>(), unknown_rmse, 1e-9);
  ASSERT_EQ(run_symgnn("evaluate --model " + model + " --unknown global-mean", &out), 0) << out;
  EXPECT_NE(out.find("scored apart by the global-mean fallback"), std::string::npos) << out;

  // The loud error stays one setting away.
  ASSERT_EQ(
      run_symgnn("data info " + train_csv + " --config " + conf + " --set data.unknown_test=error", &out), 2)
      << out;
  EXPECT_NE(out.find("test.csv:"), std::string::npos) << out;
  EXPECT_NE(out.find("unknown item id '99'"), std::string::npos) << out;
}

TEST(DataAsUsersHaveIt, ATrustExportWithSelfLoopsTrainsAndSaysWhatItDropped) {
  // People trust themselves in real exports (issue 65, 7b): `train` reads the graph without
  // those rows and the repeated ones, and the data line counts them; the strict key refuses
  // the first self-loop in one line naming the file and line, exit 2.
  const std::string dir = scratch_dir("users_trust_loops");
  std::string train = "user,item,rating\n", trust;
  for (int u = 1; u <= 30; ++u) {
    for (int k = 0; k < 8; ++k) {
      const int i = 1 + (u * 3 + k * 7) % 20;
      train += std::to_string(u) + "," + std::to_string(i) + "," + std::to_string(rating(u, i)) + "\n";
    }
    trust += std::to_string(u) + "," + std::to_string(1 + u % 30) + "\n";
    if (u % 10 == 0) trust += std::to_string(u) + "," + std::to_string(u) + "\n";  // a self-loop
  }
  trust += "1,2\n";  // given twice
  const std::string ratings = write_file(dir, "ratings.csv", train),
                    graph = write_file(dir, "trust.csv", trust);
  const std::string args = "--data " + ratings + " --set data.user_graph_file=" + graph +
                           " --preset paper --epochs 2 --no-compare --threads 1";
  std::string out;
  ASSERT_EQ(run_symgnn("train " + args + " --out " + dir + "/model", &out), 0) << out;
  EXPECT_NE(out.find("(3 self-loops and 1 repeated row dropped)"), std::string::npos) << out;
  EXPECT_EQ(run_symgnn("train " + args + " --set data.graph_self_loops=error", &out), 2) << out;
  EXPECT_NE(out.find("trust.csv:11: self-loop ('10', '10')"), std::string::npos) << out;
  EXPECT_EQ(out.find("\n", out.find("trust.csv:11:")), out.size() - 1) << out;
}
