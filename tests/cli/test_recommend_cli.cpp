// End-to-end: `symgnn recommend` and `symgnn evaluate` on a model trained by the binary
// on the synthetic default, their output formats, and the one-line errors (exit 2) of
// bad requests.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "common/test_support.h"
#include "util/strings.h"

using symgnn::testing::run_command;
using symgnn::testing::run_symgnn;
using symgnn::testing::scratch_dir;
using symgnn::testing::symgnn_binary;
using symgnn::testing::write_file;

namespace {

/// A low-rank model trained for a few epochs on the synthetic default (300 x 300).
const std::string& model_dir() {
  static const std::string dir = [] {
    const std::string d = scratch_dir("cli_recommend");
    std::string out;
    EXPECT_EQ(
        run_symgnn("train --preset paper --quiet --no-compare --epochs 5 --variant G --out " + d + "/run",
                   &out),
        0)
        << out;
    return d;
  }();
  return dir;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  return lines;
}

}  // namespace

TEST(RecommendCli, CsvForOneUserAndEveryUserAndJsonl) {
  const std::string& d = model_dir();
  std::string out;
  ASSERT_EQ(run_symgnn("recommend --model " + d + "/run --user 0 --k 4 --out " + d + "/one.csv", &out), 0)
      << out;
  const auto one = lines_of(symgnn::testing::read_file(d + "/one.csv"));
  ASSERT_EQ(one.size(), 5u);
  EXPECT_EQ(one[0], "user,item,prediction,rank");
  std::set<std::string> items;
  for (size_t r = 1; r < one.size(); ++r) {
    EXPECT_EQ(one[r].substr(0, 2), "0,") << one[r];
    EXPECT_EQ(one[r].substr(one[r].rfind(',') + 1), std::to_string(r)) << one[r];
    items.insert(one[r].substr(2, one[r].find(',', 2) - 2));
  }
  EXPECT_EQ(items.size(), 4u);  // distinct items

  ASSERT_EQ(run_symgnn("recommend --model " + d + "/run --all --k 3 --out " + d + "/all.csv", &out), 0)
      << out;
  EXPECT_EQ(lines_of(symgnn::testing::read_file(d + "/all.csv")).size(), 1u + 300u * 3u);
  // --users: the file's users in its order; the first user's list equals --user's.
  write_file(d, "users.txt", "user\n5\n0\n");
  ASSERT_EQ(
      run_symgnn("recommend --model " + d + "/run --users " + d + "/users.txt --k 4 --format jsonl", &out), 0)
      << out;
  std::vector<nlohmann::json> objs;
  for (const auto& l : lines_of(out))
    if (!l.empty() && l[0] == '{') objs.push_back(nlohmann::json::parse(l));
  ASSERT_EQ(objs.size(), 2u) << out;
  EXPECT_EQ(objs[0]["user"], "5");
  EXPECT_EQ(objs[1]["user"], "0");
  ASSERT_EQ(objs[1]["items"].size(), 4u);
  for (size_t r = 1; r < one.size(); ++r)
    EXPECT_EQ(objs[1]["items"][r - 1].get<std::string>(), one[r].substr(2, one[r].find(',', 2) - 2));
}

TEST(RecommendCli, EvaluateReportsRmseAndRankingMetrics) {
  const std::string& d = model_dir();
  std::string out;
  ASSERT_EQ(run_symgnn("evaluate --model " + d + "/run --k 5,10 --json " + d + "/eval.json", &out), 0) << out;
  EXPECT_NE(out.find("relevant = test rating >= 4"), std::string::npos) << out;
  const auto j = nlohmann::json::parse(symgnn::testing::read_file(d + "/eval.json"));
  const auto metrics = nlohmann::json::parse(symgnn::testing::read_file(d + "/run/metrics.json"));
  EXPECT_NEAR(j["rmse"].get<double>(), metrics["test_rmse"].get<double>(), 1e-4);
  for (const char* key : {"precision@5", "recall@10", "ndcg@10", "map@5", "hit_rate@10", "coverage@10"}) {
    ASSERT_TRUE(j["ranking"].contains(key)) << key;
    EXPECT_GE(j["ranking"][key].get<double>(), 0.0) << key;
    EXPECT_LE(j["ranking"][key].get<double>(), 1.0) << key;
  }
  EXPECT_GT(j["ranking"]["users_evaluated"].get<int64_t>(), 0);
}

TEST(RecommendCli, EvaluateNewUsersFitsWithoutThemAndPrintsEaseGivenTheSameRatings) {
  const std::string& d = model_dir();
  std::string out;
  ASSERT_EQ(run_symgnn("evaluate --model " + d +
                           "/run --protocol new-users --hold-out 0.2 --fold-in 0.5 --k 10 --json " + d +
                           "/new_users.json",
                       &out),
            0)
      << out;
  EXPECT_NE(out.find("held out of the fit (seed 1)"), std::string::npos) << out;
  EXPECT_NE(out.find("NDCG@10: "), std::string::npos) << out;
  EXPECT_NE(out.find("against EASE's"), std::string::npos) << out;
  const auto j = nlohmann::json::parse(symgnn::testing::read_file(d + "/new_users.json"));
  EXPECT_EQ(j["protocol"], "new-users");
  EXPECT_GT(j["held_out_users"].get<int64_t>(), 0);
  EXPECT_EQ(j["given"]["test_ratings"], j["scored_ratings"]);
  for (const char* part : {"given", "cold", "ease"}) {
    ASSERT_TRUE(j[part].contains("ranking")) << part;
    EXPECT_GE(j[part]["ranking"]["ndcg@10"].get<double>(), 0.0) << part;
  }
  // The held-out users by degree in the user graph: the table (or its note), and the slices
  // of the JSON adding up to them.
  EXPECT_NE(out.find("degree in the user graph"), std::string::npos) << out;
  int64_t users = 0;
  for (const char* slice : {"0", "1-5", ">5"}) {
    ASSERT_TRUE(j["by_degree"].contains(slice)) << slice;
    users += j["by_degree"][slice]["users"].get<int64_t>();
  }
  EXPECT_EQ(users, j["held_out_users"].get<int64_t>());
}

TEST(RecommendCli, BadRequestsExitTwoWithOneLine) {
  const std::string& d = model_dir();
  const std::string m = " --model " + d + "/run";
  write_file(d, "empty_users.txt", "# nobody\n");
  write_file(d, "unknown_users.txt", "0\nnobody\n");
  write_file(d, "other/model.pt", "not a model");
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"recommend" + m + " --user nobody", "nobody"},
      {"recommend" + m + " --user 0 --k 0", "--k"},
      {"recommend" + m + " --users " + d + "/empty_users.txt", "empty_users.txt"},
      {"recommend" + m + " --users " + d + "/unknown_users.txt", "unknown_users.txt:2"},
      {"recommend" + m + " --user 0 --all", "exactly one of"},
      {"recommend" + m + " --all --out " + d, "is a directory"},
      {"recommend --model " + d + "/other --all", "model.pt"},
      {"recommend --model " + d + "/nothing_here --all", "nothing_here"},
      {"evaluate" + m + " --k 5,0", "--k"},
      {"evaluate" + m + " --protocol sideways", "--protocol"},
      {"evaluate" + m + " --protocol new-users --fold-in 1", "--fold-in"},
      {"evaluate" + m + " --protocol new-users --hold-out 0", "--hold-out"},
      // docs/reliability.md, "Garbage refused": a cut-off past the catalogue, a threshold
      // outside the rating scale.
      {"evaluate" + m + " --k 9223372036854775807", "k = 9223372036854775807 is outside 1.."},
      {"evaluate" + m + " --k 10,100000", "k = 100000 is outside"},
      {"evaluate" + m + " --relevant-min -3", "below the lowest rating"},
      {"evaluate" + m + " --relevant-min 99", "above the top rating"},
      {"evaluate --model " + d + "/other", "model.pt"},
  };
  for (const auto& [args, needle] : cases) {
    std::string out;
    EXPECT_EQ(run_symgnn(args, &out), 2) << args << "\n" << out;
    EXPECT_NE(out.find(needle), std::string::npos) << args << "\n" << out;
    EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1) << args << "\n" << out;
  }
}

/// The first line of `text` that is a JSON object (the command's stderr lines are beside it).
static nlohmann::json first_json_line(const std::string& text) {
  for (const std::string& l : lines_of(text))
    if (!l.empty() && l[0] == '{') return nlohmann::json::parse(l);
  ADD_FAILURE() << "no JSON line in " << text;
  return nlohmann::json::object();
}

TEST(RecommendCli, ExplainSplitsAScoreAndRefusesBadIds) {
  const std::string& d = model_dir();
  std::string out;
  // EASE: exact, the parts (with the rest) sum to the score the list shows.
  ASSERT_EQ(run_symgnn("train --model ease --quiet --out " + d + "/ease", &out), 0) << out;
  ASSERT_EQ(run_symgnn("recommend --model " + d + "/ease --user 0 --k 1 --format jsonl", &out), 0) << out;
  const nlohmann::json list = first_json_line(out);
  const std::string item = list.at("items").at(0).get<std::string>();
  ASSERT_EQ(
      run_symgnn("explain --model " + d + "/ease --user 0 --item " + item + " --top 3 --format json", &out),
      0)
      << out;
  const nlohmann::json e = first_json_line(out);
  EXPECT_TRUE(e.at("exact").get<bool>());
  double sum = 0;
  for (const auto& p : e.at("parts")) sum += p.at("value").get<double>();
  EXPECT_NEAR(sum, e.at("score").get<double>(), 1e-6);
  EXPECT_EQ(e.at("parts").size(), 4u);  // three and the rest
  EXPECT_EQ(e.at("parts").at(0).at("source"), "rated");
  ASSERT_EQ(run_symgnn("explain --model " + d + "/ease --user 0 --item " + item, &out), 0) << out;
  EXPECT_NE(out.find("you rated '"), std::string::npos) << out;
  EXPECT_NE(out.find("exact: the parts sum to it"), std::string::npos) << out;
  // The learned model: occlusion over a few inputs.
  ASSERT_EQ(run_symgnn("explain --model " + d + "/run --user 0 --item " + item + " --candidates 4", &out), 0)
      << out;
  EXPECT_NE(out.find("occlusion"), std::string::npos) << out;
  const std::string m = " --model " + d + "/ease";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"explain" + m + " --user nobody --item " + item, "--user 'nobody' is no user of the model"},
      {"explain" + m + " --user 0 --item nothing", "--item 'nothing' is no item of the model"},
      {"explain" + m + " --user 0 --item " + item + " --target sideways", "--target"},
      {"explain" + m + " --user 0 --item " + item + " --top 0", "--top"},
  };
  for (const auto& [args, needle] : cases) {
    EXPECT_EQ(run_symgnn(args, &out), 2) << args << "\n" << out;
    EXPECT_NE(out.find(needle), std::string::npos) << args << "\n" << out;
    EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1) << args << "\n" << out;
  }
}

TEST(RecommendCli, NewUsersFromTheirRatingsAndEdges) {
  // The synthetic default's user graph comes with the data, so new users' edges are a file.
  const std::string& d = model_dir();
  write_file(d, "new_ratings.csv", "user,item,rating\nnew1,0,4\nnew1,1,3\nnew1,2,5\n");
  write_file(d, "new_edges.csv", "new1,5\nnew1,7\n");
  std::string out;
  ASSERT_EQ(
      run_symgnn("recommend --model " + d + "/run --user new1 --k 3 --new-ratings " + d +
                     "/new_ratings.csv --new-user-graph " + d + "/new_edges.csv --out " + d + "/new.csv",
                 &out),
      0)
      << out;
  EXPECT_NE(out.find("1 new user(s)"), std::string::npos) << out;
  EXPECT_NE(out.find("2 graph entries (file)"), std::string::npos) << out;
  const auto rows = lines_of(symgnn::testing::read_file(d + "/new.csv"));
  ASSERT_EQ(rows.size(), 4u);
  for (size_t r = 1; r < rows.size(); ++r) {
    EXPECT_EQ(rows[r].substr(0, 5), "new1,") << rows[r];
    for (const char* rated : {"new1,0,", "new1,1,", "new1,2,"})
      EXPECT_NE(rows[r].substr(0, 7), rated) << rows[r];
  }
  // An edge between two trained users is a graph edit of the load (docs/graph_edits.md),
  // counted on the summary line.
  write_file(d, "old_edges.csv", "3,5\n");
  const std::string edit = "predict --model " + d + "/run --pairs " + d + "/new_ratings.csv --new-ratings " +
                           d + "/new_ratings.csv --new-user-graph " + d + "/old_edges.csv";
  EXPECT_EQ(run_symgnn(edit, &out), 0) << edit << "\n" << out;
  EXPECT_NE(out.find("with 2 user-graph and 0 item-graph entries between trained nodes set"),
            std::string::npos)
      << out;
  // Edges of an unknown user, or for the wrong side: one line, exit 2.
  write_file(d, "unknown_edges.csv", "3,nobody\n");
  for (const auto& [flag, needle] : std::vector<std::pair<std::string, std::string>>{
           {"--new-user-graph " + d + "/unknown_edges.csv", "unknown_edges.csv"},
           {"--new-item-graph " + d + "/new_edges.csv", "new_edges.csv"}}) {
    const std::string args = "predict --model " + d + "/run --pairs " + d +
                             "/new_ratings.csv --new-ratings " + d + "/new_ratings.csv " + flag;
    EXPECT_EQ(run_symgnn(args, &out), 2) << args << "\n" << out;
    EXPECT_NE(out.find(needle), std::string::npos) << out;
    EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1) << out;
  }
}

TEST(RecommendCli, ANewUserKnownByLinksAloneIsTheUserAGraphEditCreates) {
  // Issue 63, item 2, from the command line: a user named first in --new-user-graph rows, neither
  // trained nor in --new-ratings, follows people and has rated nothing.
  const std::string& d = model_dir();
  write_file(d, "follows.csv", "lonely,5\nlonely,7\n");
  std::string out;
  ASSERT_EQ(run_symgnn("recommend --model " + d + "/run --user lonely --k 5 --new-user-graph " + d +
                           "/follows.csv --out " + d + "/lonely_given.csv",
                       &out),
            0)
      << out;
  EXPECT_NE(out.find("1 new user(s) known by their links alone (2 graph entries from " + d +
                     "/follows.csv, no rating)"),
            std::string::npos)
      << out;
  // The list is the one `graph edit --create` gives the same user in a copy of the directory.
  std::filesystem::copy(d + "/run", d + "/edited", std::filesystem::copy_options::recursive);
  ASSERT_EQ(run_symgnn("graph edit --model " + d +
                           "/edited --create --add-user-edge lonely,5 --add-user-edge lonely,7",
                       &out),
            0)
      << out;
  ASSERT_EQ(
      run_symgnn("recommend --model " + d + "/edited --user lonely --k 5 --out " + d + "/lonely_edited.csv",
                 &out),
      0)
      << out;
  // The same items in the same ranks; the predictions to 1e-5 (each folder computes them in a
  // process of its own, where a CPU's summation order may differ in the last bits).
  const std::vector<std::string> given = lines_of(symgnn::testing::read_file(d + "/lonely_given.csv"));
  const std::vector<std::string> edited = lines_of(symgnn::testing::read_file(d + "/lonely_edited.csv"));
  ASSERT_EQ(given.size(), 6u);
  ASSERT_EQ(edited.size(), given.size());
  EXPECT_EQ(given[0], edited[0]);
  for (size_t r = 1; r < given.size(); ++r) {
    const std::vector<std::string> a = symgnn::split(given[r], ','), b = symgnn::split(edited[r], ',');
    ASSERT_EQ(a.size(), 4u) << given[r];
    ASSERT_EQ(b.size(), 4u) << edited[r];
    EXPECT_EQ(a[0] + "," + a[1] + "," + a[3], b[0] + "," + b[1] + "," + b[3]) << "row " << r;
    EXPECT_NEAR(std::stod(a[2]), std::stod(b[2]), 1e-5) << "row " << r;
  }
  // explain takes the same option, and its parts name the people followed.
  ASSERT_EQ(run_symgnn(
                "explain --model " + d + "/run --user lonely --item 3 --new-user-graph " + d + "/follows.csv",
                &out),
            0)
      << out;
  EXPECT_NE(out.find("(whom you follow)"), std::string::npos) << out;
  // A kind that scores users from their rated items alone lists them as its users without
  // ratings (infer/cold_lists.h).
  ASSERT_EQ(run_symgnn("train --model ease --quiet --out " + d + "/ease_links", &out), 0) << out;
  ASSERT_EQ(run_symgnn("recommend --model " + d + "/ease_links --user lonely --k 3 --new-user-graph " + d +
                           "/follows.csv",
                       &out),
            0)
      << out;
  EXPECT_NE(out.find("1 user(s) without ratings ranked by"), std::string::npos) << out;
  // An unknown id no row names first is a mistyped neighbour, not a node: one line naming it.
  write_file(d, "typo.csv", "lonely,5\nlonely,nobody\n");
  EXPECT_EQ(
      run_symgnn("recommend --model " + d + "/run --user lonely --new-user-graph " + d + "/typo.csv", &out),
      2)
      << out;
  EXPECT_NE(out.find("typo.csv:2: unknown user id 'nobody'"), std::string::npos) << out;
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1) << out;
}

TEST(RecommendCli, PredictReadsPairsAsTheLoaderReadsRatings) {
  // A UTF-8 byte-order mark, a header and tabs: the ratings reader's rules (issue 13).
  const std::string& d = model_dir();
  write_file(d, "bom_pairs.tsv", "\xEF\xBB\xBFuser\titem\n0\t1\n5\t7\n");
  std::string out;
  ASSERT_EQ(
      run_symgnn("predict --model " + d + "/run --pairs " + d + "/bom_pairs.tsv --out " + d + "/bom.csv",
                 &out),
      0)
      << out;
  const auto rows = lines_of(symgnn::testing::read_file(d + "/bom.csv"));
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[1].substr(0, 4), "0,1,");
  EXPECT_EQ(rows[2].substr(0, 4), "5,7,");
  // Unknown ids with a fallback are counted on the summary line.
  write_file(d, "unknown_pairs.csv", "0,1\nzz,1\n");
  ASSERT_EQ(
      run_symgnn("predict --model " + d + "/run --pairs " + d + "/unknown_pairs.csv --unknown item-mean",
                 &out),
      0)
      << out;
  EXPECT_NE(out.find("1 pair(s) with an unknown id took the fallback (item-mean)"), std::string::npos) << out;
  EXPECT_EQ(run_symgnn("predict --model " + d + "/run --pairs " + d + "/unknown_pairs.csv", &out), 2);
  EXPECT_NE(out.find("unknown_pairs.csv:2: unknown user 'zz'"), std::string::npos) << out;
}

TEST(RecommendCli, EveryModelKindWritesTheSameModelDirectory) {
  const std::string& d = model_dir();
  std::string out;
  ASSERT_EQ(
      run_symgnn("train --model sylvester --set sylvester.alphas=0.5,0.9 --quiet --out " + d + "/syl", &out),
      0)
      << out;
  const auto learned = nlohmann::json::parse(symgnn::testing::read_file(d + "/run/metrics.json"));
  const auto syl = nlohmann::json::parse(symgnn::testing::read_file(d + "/syl/metrics.json"));
  for (const char* key : {"model", "test_rmse", "test_rmse_std", "val_rmse", "val_rmse_std", "test_mae",
                          "train_seconds", "runs", "config", "dataset", "evaluation"}) {
    EXPECT_TRUE(learned.contains(key)) << key;
    EXPECT_TRUE(syl.contains(key)) << key;
  }
  EXPECT_EQ(syl["model"], "sylvester");
  // predict, recommend and evaluate take the Sylv. directory like any other.
  ASSERT_EQ(run_symgnn("evaluate --model " + d + "/syl --json " + d + "/syl_eval.json", &out), 0) << out;
  const auto ev = nlohmann::json::parse(symgnn::testing::read_file(d + "/syl_eval.json"));
  EXPECT_NEAR(ev["rmse"].get<double>(), syl["test_rmse"].get<double>(), 1e-5);
  EXPECT_NEAR(ev["mae"].get<double>(), syl["test_mae"].get<double>(), 1e-5);
  ASSERT_EQ(run_symgnn("recommend --model " + d + "/syl --user 0 --k 3", &out), 0) << out;
  EXPECT_NE(out.find("user,item,prediction,rank"), std::string::npos) << out;
  write_file(d, "pairs.csv", "0,1\n2,3\n");
  ASSERT_EQ(run_symgnn("predict --model " + d + "/syl --pairs " + d + "/pairs.csv", &out), 0) << out;
  EXPECT_NE(out.find("2,3,"), std::string::npos) << out;
}

// Fewer candidates than k: the shorter list, a field saying how many and a note; no candidate
// at all: the one error.
TEST(RecommendCli, FewerCandidatesThanKGiveTheShorterListAndANote) {
  const std::string& d = model_dir();
  const std::string m = " --model " + d + "/run";
  std::string out;
  ASSERT_EQ(run_symgnn("recommend" + m + " --user 0 --k 100000 --format jsonl", &out), 0) << out;
  const nlohmann::json unrated = first_json_line(out);
  const size_t n = unrated.at("items").size();
  ASSERT_GT(n, 0u);
  EXPECT_EQ(unrated.at("candidates").get<size_t>(), n);
  EXPECT_NE(out.find("note: 1 list(s) shorter than k = 100000: user '0' has " + std::to_string(n) +
                     " candidate items, fewer than k = 100000: the list holds " + std::to_string(n)),
            std::string::npos)
      << out;
  ASSERT_EQ(run_symgnn("recommend" + m + " --user 0 --k 100000 --include-seen --format jsonl", &out), 0)
      << out;
  const nlohmann::json all = first_json_line(out);
  // Every item, fewer than k too: the catalogue's count.
  EXPECT_EQ(all.at("candidates").get<size_t>(), all.at("items").size());
  std::set<std::string> rated;
  for (const auto& i : all.at("items")) rated.insert(i.get<std::string>());
  for (const auto& i : unrated.at("items")) rated.erase(i.get<std::string>());
  ASSERT_FALSE(rated.empty());
  std::string ids;
  for (const std::string& i : rated) ids += i + "\n";
  write_file(d, "rated_only.txt", ids);
  EXPECT_EQ(run_symgnn("recommend" + m + " --user 0 --k 3 --items " + d + "/rated_only.txt", &out), 2) << out;
  EXPECT_NE(out.find("user '0' has no candidate item after the filters"), std::string::npos) << out;
}
