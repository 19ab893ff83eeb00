// End-to-end: `symgnn refresh` (symgnn/model_dir.h) writes a model directory with ratings
// folded in whose lists are those of `recommend --new-ratings` on the directory it came from
// (once, and refreshed again), checked on load; bad requests exit 2 with one line and write
// nothing.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <sstream>

#include "common/test_support.h"

using symgnn::testing::read_file;
using symgnn::testing::run_symgnn;
using symgnn::testing::scratch_dir;
using symgnn::testing::write_file;

namespace fs = std::filesystem;

namespace {

/// A low-rank model of a few epochs on the synthetic default (300 x 300, its user graph from
/// a file), with the EASE ranker beside it, whose lists new ratings change.
const std::string& refresh_model_dir() {
  static const std::string dir = [] {
    const std::string d = scratch_dir("cli_refresh");
    std::string out;
    EXPECT_EQ(run_symgnn("train --preset paper --quiet --no-compare --epochs 3 --variant G --threads 1 "
                         "--set lowrank.hidden=8 --set train.ranker=ease --out " +
                             d + "/run",
                         &out),
              0)
        << out;
    return d;
  }();
  return dir;
}

/// The first (user, item) pair of the run's test predictions: a known user's fresh rating.
std::pair<std::string, std::string> first_test_pair(const std::string& run) {
  std::istringstream in(read_file(run + "/predictions/test.csv"));
  std::string line;
  std::getline(in, line);  // header
  std::getline(in, line);
  const size_t a = line.find(','), b = line.find(',', a + 1);
  return {line.substr(0, a), line.substr(a + 1, b - a - 1)};
}

/// `recommend --all --k 5` of `args` (the model and its new ratings) as its CSV text.
std::string every_list(const std::string& args, const std::string& out_file) {
  std::string out;
  EXPECT_EQ(run_symgnn("recommend " + args + " --all --k 5 --threads 1 --out " + out_file, &out), 0) << out;
  return read_file(out_file);
}

}  // namespace

TEST(RefreshCli, TheRefreshedDirectoryListsAsNewRatingsDoAndRefreshesAgain) {
  const std::string& d = refresh_model_dir();
  const auto [user, item] = first_test_pair(d + "/run");
  // A new user (with graph edges) and a known user's fresh rating of an item of their test set.
  write_file(d, "new.csv",
             "user,item,rating\nfresh-1,0,5\nfresh-1,1,4\nfresh-1,2,1\n" + user + "," + item + ",3\n");
  write_file(d, "edges.csv", "fresh-1,5\nfresh-1,7\n");
  std::string out;
  ASSERT_EQ(run_symgnn("refresh --model " + d + "/run --ratings " + d + "/new.csv --new-user-graph " + d +
                           "/edges.csv --out " + d + "/r1",
                       &out),
            0)
      << out;
  EXPECT_NE(out.find("1 new user(s)"), std::string::npos) << out;
  EXPECT_TRUE(fs::is_regular_file(d + "/r1/refresh/1/ratings.csv"));
  EXPECT_TRUE(fs::is_regular_file(d + "/r1/refresh/1/user_graph.csv"));
  EXPECT_TRUE(fs::is_regular_file(d + "/r1/ranker/model.pt"));
  EXPECT_FALSE(fs::exists(d + "/r1/run0"));  // the model, not the fit's history
  const std::string refreshed = every_list("--model " + d + "/r1", d + "/r1.csv");
  const std::string given =
      every_list("--model " + d + "/run --new-ratings " + d + "/new.csv --new-user-graph " + d + "/edges.csv",
                 d + "/given.csv");
  EXPECT_EQ(std::count(refreshed.begin(), refreshed.end(), '\n'), 1 + 301 * 5);
  EXPECT_NE(refreshed.find("\nfresh-1,"), std::string::npos);
  EXPECT_EQ(refreshed, given);

  // Refreshed again: a second new user and a new item, on top of the first refresh.
  write_file(d, "new2.csv", "user,item,rating\nfresh-2,3,5\nfresh-2,brand-new,4\nfresh-1,4,2\n");
  ASSERT_EQ(run_symgnn("refresh --model " + d + "/r1 --ratings " + d + "/new2.csv --out " + d + "/r2", &out),
            0)
      << out;
  EXPECT_NE(out.find("2 refresh(es)"), std::string::npos) << out;
  EXPECT_EQ(every_list("--model " + d + "/r2", d + "/r2.csv"),
            every_list("--model " + d + "/r1 --new-ratings " + d + "/new2.csv", d + "/given2.csv"));
  // More ratings on a refreshed directory without new items: the ranker answers the users of
  // both from their rated items, as it answers them given all the ratings at once (the known
  // user of the first refresh keeps their fresh rows).
  write_file(d, "new3.csv", "user,item,rating\nfresh-3,6,5\nfresh-1,8,4\n");
  write_file(d, "both.csv", read_file(d + "/new.csv") + "fresh-3,6,5\nfresh-1,8,4\n");
  const auto ranked = [](const std::string& csv) {  // user,item,rank of each line
    std::istringstream in(csv);
    std::string out;
    for (std::string line; std::getline(in, line);) {
      const size_t a = line.find(','), b = line.find(',', a + 1), c = line.rfind(',');
      out += line.substr(0, b) + line.substr(c) + "\n";
    }
    return out;
  };
  const std::string chained =
      every_list("--model " + d + "/r1 --new-ratings " + d + "/new3.csv", d + "/chained.csv");
  EXPECT_EQ(ranked(chained), ranked(every_list("--model " + d + "/run --new-ratings " + d +
                                                   "/both.csv --new-user-graph " + d + "/edges.csv",
                                               d + "/both_lists.csv")));
  // predict reads the refreshed directory too.
  write_file(d, "pairs.csv", "user,item\nfresh-2,brand-new\nfresh-1,9\n");
  ASSERT_EQ(run_symgnn("predict --model " + d + "/r2 --pairs " + d + "/pairs.csv", &out), 0) << out;
  EXPECT_NE(out.find("fresh-2,brand-new,"), std::string::npos) << out;
  // A run trained over a refreshed directory (--overwrite) leaves none of its refreshes.
  ASSERT_EQ(run_symgnn("train --preset paper --quiet --no-compare --epochs 1 --variant G --threads 1 "
                       "--set lowrank.hidden=8 --overwrite --out " +
                           d + "/r2",
                       &out),
            0)
      << out;
  EXPECT_FALSE(fs::exists(d + "/r2/refresh"));
  ASSERT_EQ(run_symgnn("recommend --model " + d + "/r2 --user 0 --k 2", &out), 0) << out;
}

TEST(RefreshCli, BadRequestsExitTwoWithOneLineAndWriteNothing) {
  const std::string& d = refresh_model_dir();
  write_file(d, "ok.csv", "user,item,rating\nfresh-9,0,5\n");
  write_file(d, "full/something.txt", "x");
  write_file(d, "bad.csv", "user,item,rating\nfresh-9,0,5\nfresh-9,1,seven\n");
  fs::create_directories(d + "/empty");
  const std::string m = " --model " + d + "/run";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"refresh" + m + " --ratings " + d + "/ok.csv --out " + d + "/full", "exists and is not empty"},
      {"refresh" + m + " --ratings " + d + "/ok.csv --out " + d + "/full/something.txt",
       "is not a directory"},
      {"refresh" + m + " --ratings " + d + "/nowhere.csv --out " + d + "/n1", "nowhere.csv"},
      {"refresh" + m + " --ratings " + d + "/bad.csv --out " + d + "/n2", "bad.csv:3"},
      {"refresh --model " + d + "/nothing_here --ratings " + d + "/ok.csv --out " + d + "/n3",
       "nothing_here"},
      {"refresh" + m + " --out " + d + "/n4", "--ratings"},
  };
  for (const auto& [args, needle] : cases) {
    std::string out;
    EXPECT_EQ(run_symgnn(args, &out), 2) << args << "\n" << out;
    EXPECT_NE(out.find(needle), std::string::npos) << args << "\n" << out;
    EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1) << args << "\n" << out;
  }
  for (const char* n : {"n1", "n2", "n3", "n4"}) EXPECT_FALSE(fs::exists(d + "/" + n)) << n;
  EXPECT_EQ(read_file(d + "/full/something.txt"), "x");
  // An empty folder is taken; nothing temporary is left beside it.
  std::string out;
  ASSERT_EQ(run_symgnn("refresh" + m + " --ratings " + d + "/ok.csv --out " + d + "/empty", &out), 0) << out;
  EXPECT_TRUE(fs::is_regular_file(d + "/empty/model.pt"));
  for (const auto& entry : fs::directory_iterator(d))
    EXPECT_EQ(entry.path().filename().string().find(".tmp."), std::string::npos) << entry.path();
  // Verified on load: an edited refresh file, a lost refresh folder.
  write_file(d, "empty/refresh/1/ratings.csv", "user,item,rating\nfresh-9,0,1\n");
  EXPECT_EQ(run_symgnn("recommend --model " + d + "/empty --user fresh-9", &out), 2) << out;
  EXPECT_NE(out.find("checksum differs"), std::string::npos) << out;
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1) << out;
  fs::remove_all(d + "/empty/refresh");
  EXPECT_EQ(run_symgnn("recommend --model " + d + "/empty --user 0", &out), 2) << out;
  EXPECT_NE(out.find("refresh: missing"), std::string::npos) << out;
  // --help says what it does.
  ASSERT_EQ(run_symgnn("refresh --help", &out), 0) << out;
  EXPECT_NE(out.find("--new-ratings"), std::string::npos) << out;
  EXPECT_NE(out.find("--ratings"), std::string::npos) << out;
}
