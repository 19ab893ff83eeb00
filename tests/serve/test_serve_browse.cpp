// The routes behind serve's page (src/serve/api.h): GET /v1/similar against a brute-force
// cosine of the model's representations, GET /v1/users against the model's training data,
// item names from a names file and from MovieLens titles, the page itself, and the
// refusals of these routes.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "common/test_support.h"
#include "data/item_names.h"
#include "serve/api.h"
#include "serve/model_store.h"
#include "serve/serve_test_model.h"
#include "symgnn/error.h"
#include "symgnn/fit.h"
#include "symgnn/trained_model.h"

namespace st = symgnn::testing;
using nlohmann::json;
using symgnn::NodeSide;
using symgnn::serve::Request;
using symgnn::serve::Response;
using symgnn::testing::error_of;

namespace {

const std::string& lowrank_dir() {
  static const std::string d = st::serve_test_model("lowrank");
  return d;
}
const std::string& ease_dir() {
  static const std::string d = st::serve_test_model("ease");
  return d;
}
const std::string& popularity_dir() {
  static const std::string d = st::serve_test_model("popularity");
  return d;
}

/// A names file naming every item of the lowrank test model "Title <id>, with a comma".
std::string names_file() {
  static const std::string path = [] {
    const auto model = symgnn::TrainedModel::load(lowrank_dir());
    const std::string p = st::scratch_dir("serve_browse_names") + "/names.csv";
    std::ofstream out(p);
    out << "id,name\n";
    for (int64_t i = 0; i < model.items(); ++i) {
      const std::string id = model.dataset().items.id_of(i);
      out << id << ",Title " << id << ", with a comma\n";
    }
    return p;
  }();
  return path;
}

struct BrowseFixture {
  symgnn::serve::ModelStore store;
  symgnn::serve::ServeMetrics metrics;
  symgnn::serve::Api api;
  BrowseFixture()
      : store({{"main", lowrank_dir()}, {"ease", ease_dir()}, {"pop", popularity_dir()}}, "cpu",
              symgnn::serve::ModelStore::kDefaultCachePairs, names_file()),
        api(store, metrics, symgnn::serve::ApiLimits{}, "") {}
  Response get(const std::string& path, std::multimap<std::string, std::string> params = {}) const {
    return st::get_request(api, path, std::move(params));
  }
};

/// Brute force: cosine of row `index` with every row of `rows` (float64), the k best others.
std::vector<std::pair<int64_t, double>> brute_nearest(const at::Tensor& rows, int64_t index, int64_t k) {
  const at::Tensor r = rows.to(at::kDouble);
  std::vector<std::pair<int64_t, double>> all;
  for (int64_t j = 0; j < r.size(0); ++j) {
    if (j == index) continue;
    const double dot = (r[index] * r[j]).sum().item<double>();
    const double norm =
        std::sqrt((r[index] * r[index]).sum().item<double>() * (r[j] * r[j]).sum().item<double>());
    all.emplace_back(j, dot / std::max(norm, 1e-300));
  }
  std::stable_sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  all.resize(static_cast<size_t>(std::min<int64_t>(k, static_cast<int64_t>(all.size()))));
  return all;
}

}  // namespace

TEST(ServeBrowse, SimilarItemsAreTheNearestByTheModelsRepresentations) {
  const BrowseFixture f;
  const auto model = symgnn::TrainedModel::load(lowrank_dir());
  // The route answers what the library's similar() answers (checked against brute force
  // for a closed-form kind below), most similar first, the item itself left out.
  const std::string item = model.dataset().items.id_of(3);
  const Response r = f.get("/v1/similar", {{"item", item}, {"k", "5"}, {"model", "main"}});
  ASSERT_EQ(r.status, 200) << r.body;
  const json j = json::parse(r.body);
  EXPECT_EQ(j["by"], "representations");
  ASSERT_EQ(j["items"].size(), 5u);
  const auto lib = model.similar(NodeSide::items, 3, 5);
  for (size_t n = 0; n < lib.size(); ++n) {
    EXPECT_EQ(j["items"][n]["item"], model.dataset().items.id_of(lib[n].index));
    EXPECT_NEAR(j["items"][n]["similarity"].get<double>(), lib[n].similarity, 1e-6);
    EXPECT_EQ(j["items"][n]["name"], "Title " + model.dataset().items.id_of(lib[n].index) + ", with a comma");
    if (n > 0) {
      EXPECT_GE(lib[n - 1].similarity, lib[n].similarity);
    }
    EXPECT_NE(lib[n].index, 3);
  }
}

TEST(ServeBrowse, SimilarOfAClosedFormKindIsTheCosineOfItsScoreColumns) {
  // EASE keeps its scores X W (n1 x n2): an item's representation is its column. Checked
  // against a brute-force cosine over the scores the library returns for every user.
  const auto model = symgnn::TrainedModel::load(ease_dir());
  std::vector<int64_t> users(static_cast<size_t>(model.users()));
  for (int64_t u = 0; u < model.users(); ++u) users[static_cast<size_t>(u)] = u;
  const std::vector<float> s = model.score_all_items(users);
  const at::Tensor scores =
      at::from_blob(const_cast<float*>(s.data()), {model.users(), model.items()}, at::kFloat).clone();
  EXPECT_EQ(model.similarity_basis(NodeSide::items), "representations");
  for (const int64_t item : {0, 7, 19}) {
    const auto want = brute_nearest(scores.t(), item, 6);
    const auto got = model.similar(NodeSide::items, item, 6);
    ASSERT_EQ(got.size(), want.size());
    for (size_t n = 0; n < got.size(); ++n) EXPECT_NEAR(got[n].similarity, want[n].second, 1e-5) << n;
  }
  const auto want_u = brute_nearest(scores, 4, 3);
  const auto got_u = model.similar(NodeSide::users, 4, 3);
  for (size_t n = 0; n < got_u.size(); ++n) EXPECT_NEAR(got_u[n].similarity, want_u[n].second, 1e-5);
}

TEST(ServeBrowse, AKindWithoutRepresentationsComparesCoRatings) {
  // Popularity has no per-node representation: items are compared by the users who rated
  // both, cos = shared / sqrt(n_a n_b), brute force over the training interactions.
  const BrowseFixture f;
  const auto model = symgnn::TrainedModel::load(popularity_dir());
  EXPECT_EQ(model.similarity_basis(NodeSide::items), "co-ratings");
  const auto& seen = model.seen_items();
  const int64_t n2 = model.items(), target = 2;
  std::vector<std::set<int64_t>> raters(static_cast<size_t>(n2));
  for (size_t u = 0; u < seen.size(); ++u)
    for (const int64_t i : seen[u]) raters[static_cast<size_t>(i)].insert(static_cast<int64_t>(u));
  std::vector<std::pair<int64_t, double>> want;
  for (int64_t j = 0; j < n2; ++j) {
    if (j == target) continue;
    double shared = 0;
    for (const int64_t u : raters[static_cast<size_t>(j)])
      shared += raters[static_cast<size_t>(target)].count(u);
    if (shared > 0)
      want.emplace_back(
          j, shared / std::sqrt(double(raters[size_t(target)].size()) * double(raters[size_t(j)].size())));
  }
  std::stable_sort(want.begin(), want.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  const auto got = model.similar(NodeSide::items, target, 1000);
  ASSERT_EQ(got.size(), want.size());
  for (size_t n = 0; n < got.size(); ++n) {
    EXPECT_EQ(got[n].index, want[n].first) << n;
    EXPECT_NEAR(got[n].similarity, want[n].second, 1e-6);
  }
  const json j = json::parse(
      f.get("/v1/similar", {{"item", model.dataset().items.id_of(target)}, {"model", "pop"}}).body);
  EXPECT_EQ(j["by"], "co-ratings");
}

TEST(ServeBrowse, SimilarUsersAndRefusals) {
  const BrowseFixture f;
  const auto model = symgnn::TrainedModel::load(lowrank_dir());
  const std::string user = model.dataset().users.id_of(5);
  const json j = json::parse(f.get("/v1/similar", {{"user", user}, {"k", "4"}}).body);
  ASSERT_EQ(j["users"].size(), 4u);
  const auto lib = model.similar(NodeSide::users, 5, 4);
  for (size_t n = 0; n < lib.size(); ++n)
    EXPECT_EQ(j["users"][n]["user"], model.dataset().users.id_of(lib[n].index));

  EXPECT_NE(error_of(f.get("/v1/similar", {{"item", "no-such-item"}}), 404).find("no-such-item"),
            std::string::npos);
  EXPECT_NE(error_of(f.get("/v1/similar", {{"user", "nobody"}}), 404).find("nobody"), std::string::npos);
  error_of(f.get("/v1/similar", {}), 400);
  error_of(f.get("/v1/similar", {{"item", "1"}, {"user", "1"}}), 400);
  error_of(f.get("/v1/similar", {{"item", model.dataset().items.id_of(0)}, {"k", "0"}}), 400);
  error_of(f.get("/v1/similar", {{"item", model.dataset().items.id_of(0)}, {"k", "x"}}), 400);
  Request post;
  post.method = "POST";
  post.path = "/v1/similar";
  post.body = "{}";
  error_of(f.api.handle(post), 405);
  // k beyond the catalogue: refused with the count (docs/reliability.md, "Garbage refused");
  // every other item is k = items - 1.
  EXPECT_NE(error_of(f.get("/v1/similar", {{"item", model.dataset().items.id_of(0)}, {"k", "999"}}), 400)
                .find("the model has " + std::to_string(model.items() - 1) + " other items"),
            std::string::npos);
  const json all = json::parse(f.get("/v1/similar", {{"item", model.dataset().items.id_of(0)},
                                                     {"k", std::to_string(model.items() - 1)}})
                                   .body);
  EXPECT_EQ(static_cast<int64_t>(all["items"].size()), model.items() - 1);
}

TEST(ServeBrowse, UsersListsIdsAndAUsersRatings) {
  const BrowseFixture f;
  const auto model = symgnn::TrainedModel::load(lowrank_dir());
  const json page = json::parse(f.get("/v1/users", {{"offset", "3"}, {"limit", "4"}}).body);
  EXPECT_EQ(page["total"], model.users());
  ASSERT_EQ(page["users"].size(), 4u);
  for (int n = 0; n < 4; ++n) EXPECT_EQ(page["users"][n], model.dataset().users.id_of(3 + n));
  const json end = json::parse(f.get("/v1/users", {{"offset", std::to_string(model.users())}}).body);
  EXPECT_TRUE(end["users"].empty());
  error_of(f.get("/v1/users", {{"limit", "1001"}}), 400);
  error_of(f.get("/v1/users", {{"offset", "-1"}}), 400);

  const int64_t u = 6;
  const std::string user = model.dataset().users.id_of(u);
  const json rated = json::parse(f.get("/v1/users", {{"user", user}}).body);
  std::vector<std::string> want;
  for (const int64_t i : model.seen_items()[static_cast<size_t>(u)])
    want.push_back(model.dataset().items.id_of(i));
  std::vector<std::string> got;
  double last = 1e9;
  for (const json& e : rated["ratings"]) {
    got.push_back(e["item"]);
    EXPECT_LE(e["rating"].get<double>(), last);  // highest first
    last = e["rating"].get<double>();
    EXPECT_EQ(e["name"], "Title " + e["item"].get<std::string>() + ", with a comma");
  }
  std::sort(want.begin(), want.end());
  std::sort(got.begin(), got.end());
  EXPECT_EQ(got, want);
  error_of(f.get("/v1/users", {{"user", "nobody"}}), 404);
}

TEST(ServeBrowse, RecommendationsCarryNamesAndThePageIsServed) {
  const BrowseFixture f;
  const auto model = symgnn::TrainedModel::load(lowrank_dir());
  const json r =
      json::parse(f.get("/v1/recommend", {{"user", model.dataset().users.id_of(0)}, {"k", "3"}}).body);
  for (const json& e : r["items"])
    EXPECT_EQ(e["name"], "Title " + e["item"].get<std::string>() + ", with a comma");
  const Response page = f.get("/");
  EXPECT_EQ(page.status, 200);
  EXPECT_EQ(page.content_type, "text/html; charset=utf-8");
  EXPECT_NE(page.body.find("/v1/recommend"), std::string::npos);
  EXPECT_EQ(page.body.find("http://"),
            page.body.find("http://www.w3.org/2000/svg"));  // nothing fetched outside
  const json models = json::parse(f.get("/v1/models").body);
  EXPECT_EQ(models["models"][0]["item_names"], true);
}

TEST(ServeBrowse, NamesFilesAndMovieLensTitles) {
  const std::string dir = st::scratch_dir("serve_browse_files");
  { std::ofstream(dir + "/names.tsv") << "7\tAmélie\n8\tA, B and C\n"; }
  const auto names = symgnn::data::read_item_names(dir + "/names.tsv");
  EXPECT_EQ(names.at("7"), "Amélie");
  EXPECT_EQ(names.at("8"), "A, B and C");
  { std::ofstream(dir + "/dup.csv") << "id,name\n1,x\n1,y\n"; }
  try {
    symgnn::data::read_item_names(dir + "/dup.csv");
    FAIL() << "a repeated id was accepted";
  } catch (const symgnn::DataError& e) {
    EXPECT_NE(std::string(e.what()).find("dup.csv:3"), std::string::npos) << e.what();
  }
  { std::ofstream(dir + "/noname.csv") << "1\n"; }
  EXPECT_THROW(symgnn::data::read_item_names(dir + "/noname.csv"), symgnn::DataError);
  // A MovieLens-100K directory's u.item is latin-1: its titles come out as UTF-8.
  const std::string ml = st::scratch_dir("serve_browse_ml");
  {
    std::ofstream(ml + "/u.item") << "1|Toy Story (1995)|01-Jan-1995||http://x|0|0\n"
                                  << "2|Caf\xe9 (1994)|01-Jan-1994||http://y|0|1\n";
  }
  const auto titles = symgnn::data::source_item_names(ml);
  EXPECT_EQ(titles.at("1"), "Toy Story (1995)");
  EXPECT_EQ(titles.at("2"), "Caf\xc3\xa9 (1994)");
  EXPECT_TRUE(symgnn::data::source_item_names("synthetic").empty());
}

TEST(ServeBrowse, AModelDirectoryKeepsTheTitlesOfItsData) {
  SYMGNN_REQUIRE_DATA("ml-100k/u.item");
  // Trained on MovieLens, the directory keeps the titles (item_names.csv) that serve shows
  // once the directory is copied away from the MovieLens folder.
  symgnn::RunConfig cfg = symgnn::preset_config("recommended");
  cfg.model = "popularity";
  cfg.data.source = st::data_dir() + "/ml-100k";
  symgnn::FitOptions fo;
  fo.out_dir = st::scratch_dir("serve_titles") + "/model";
  symgnn::fit(cfg, fo);
  const auto kept = symgnn::data::read_item_names(fo.out_dir + "/item_names.csv");
  EXPECT_EQ(kept.size(), 1682u);
  EXPECT_EQ(kept.at("1"), "Toy Story (1995)");
  const symgnn::serve::ModelStore store({{"main", fo.out_dir}}, "cpu");
  const auto served = store.get("main");
  const int64_t toy_story = served->items.find("1");
  ASSERT_GE(toy_story, 0);
  EXPECT_EQ(served->item_names.at(static_cast<size_t>(toy_story)), "Toy Story (1995)");
}

TEST(ServeBrowse, IdsThatAreNotUtf8AreRefusedInValidJson) {
  // Found by fuzz/fuzz_serve_api.cpp: an id of raw bytes ("%FF" in a query) made the JSON
  // dump of the 404 throw, which answered 500 "internal error".
  const BrowseFixture f;
  for (const std::string path : {"/v1/recommend", "/v1/similar", "/v1/users"}) {
    const Response r = f.get(path, {{"user", "\xff\xfe caf\xc3"}});
    const std::string e = error_of(r, 404);
    EXPECT_NE(e.find("caf"), std::string::npos) << path;
  }
  Request q;
  q.method = "\xb5\xbf";
  q.path = "/metrics";
  error_of(f.api.handle(q), 405);
}
