// The routes of `symgnn serve` (src/serve/api.h) called without a socket: every answer
// against the library's own (recommend, predict on TrainedModel), new users through the
// API against TrainedModel::load with the same ratings, reloads, and every refusal.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "common/test_support.h"
#include "infer/graph_journal.h"
#include "serve/api.h"
#include "serve/model_store.h"
#include "serve/serve_test_model.h"
#include "symgnn/explain.h"
#include "symgnn/fit.h"
#include "symgnn/graph_edit.h"
#include "symgnn/recommend.h"
#include "symgnn/trained_model.h"
#include "symgnn/update.h"

namespace fs = std::filesystem;
namespace st = symgnn::testing;
using nlohmann::json;
using symgnn::serve::Request;
using symgnn::serve::Response;
using symgnn::testing::error_of;

namespace {

struct Served {
  std::string lowrank, ease;
};

const Served& served() {
  static const Served s = [] {
    return Served{st::serve_test_model("lowrank"), st::serve_test_model("ease")};
  }();
  return s;
}

struct Fixture {
  symgnn::serve::ModelStore store;
  symgnn::serve::ServeMetrics metrics;
  symgnn::serve::Api api;
  Fixture(const std::string& token = "0123456789abcdef")
      : store({{"main", served().lowrank}, {"ease", served().ease}}, "cpu"),
        api(store, metrics, symgnn::serve::ApiLimits{}, token) {}
  Response get(const std::string& path, std::multimap<std::string, std::string> params = {}) const {
    return st::get_request(api, path, std::move(params));
  }
  Response post(const std::string& path, const std::string& body, const std::string& auth = "") const {
    Request q;
    q.method = "POST";
    q.path = path;
    q.body = body;
    q.authorization = auth;
    return api.handle(q);
  }
};

json body_of(const Response& r) {
  return json::parse(r.body);
}

/// The error's one line, checked to be a JSON {"error": ...} with status `status`.
}  // namespace

TEST(ServeApi, RecommendAnswersWhatTheLibraryRecommends) {
  const Fixture f;
  const symgnn::TrainedModel model = symgnn::TrainedModel::load(served().lowrank);
  const auto& users = model.dataset().users;
  for (const int64_t u : {int64_t{0}, int64_t{7}, int64_t{39}}) {
    symgnn::RecommendOptions o;
    o.k = 5;
    const auto want = symgnn::recommend(model, {u}, o).front();
    const Response r = f.get("/v1/recommend", {{"user", users.id_of(u)}, {"k", "5"}});
    ASSERT_EQ(r.status, 200) << r.body;
    const json j = body_of(r);
    EXPECT_EQ(j["model"], "main");
    EXPECT_EQ(j["version"], 1);
    ASSERT_EQ(j["items"].size(), 5u);
    for (size_t k = 0; k < 5; ++k) {
      EXPECT_EQ(j["items"][k]["item"], model.dataset().items.id_of(want.items[k]));
      EXPECT_FLOAT_EQ(j["items"][k]["prediction"].get<float>(), want.scores[k]);
    }
  }
  // Many users at once, another model by name, seen items on request.
  const Response many =
      f.post("/v1/recommend", R"({"users": [")" + users.id_of(1) + R"(", ")" + users.id_of(2) +
                                  R"("], "k": 3, "model": "ease", "include_seen": true})");
  ASSERT_EQ(many.status, 200) << many.body;
  const symgnn::TrainedModel ease = symgnn::TrainedModel::load(served().ease);
  symgnn::RecommendOptions o;
  o.k = 3;
  o.include_seen = true;
  const auto want = symgnn::recommend(ease, {1, 2}, o);
  const json j = body_of(many);
  EXPECT_EQ(j["model"], "ease");
  ASSERT_EQ(j["results"].size(), 2u);
  for (size_t n = 0; n < 2; ++n)
    for (size_t k = 0; k < 3; ++k)
      EXPECT_EQ(j["results"][n]["items"][k]["item"], ease.dataset().items.id_of(want[n].items[k]));
}

TEST(ServeApi, ACopiedModelDirectoryIsServedWithoutItsTrainingFiles) {
  // Trained on a ratings file, copied elsewhere, the file removed: the served directory
  // answers from the data it pinned (dataset.bin), as the original did.
  const std::string root = st::scratch_dir("serve_copied");
  std::string csv = "user,item,rating\n";
  for (int u = 1; u <= 30; ++u)
    for (int k = 0; k < 8; ++k) {
      const int i = 1 + (u * 3 + k * 7) % 20;
      csv +=
          "u" + std::to_string(u) + ",i" + std::to_string(i) + "," + std::to_string(1 + (u + i) % 5) + "\n";
    }
  symgnn::RunConfig cfg = symgnn::preset_config("paper");
  cfg.data.source = st::write_file(root, "ratings.csv", csv);
  cfg.train.epochs = 3;
  cfg.lowrank.hidden = 8;
  symgnn::FitOptions fo;
  fo.out_dir = root + "/model";
  symgnn::fit(cfg, fo);
  const auto answer = [](const std::string& dir) {
    symgnn::serve::ModelStore store({{"main", dir}}, "cpu");
    symgnn::serve::ServeMetrics metrics;
    const symgnn::serve::Api api(store, metrics, symgnn::serve::ApiLimits{}, "0123456789abcdef");
    const Response r = st::get_request(api, "/v1/recommend", {{"user", "u7"}, {"k", "5"}});
    EXPECT_EQ(r.status, 200) << r.body;
    return r.body;
  };
  const std::string before = answer(fo.out_dir);
  std::filesystem::create_directories(root + "/elsewhere");
  std::filesystem::copy(fo.out_dir, root + "/elsewhere/model", std::filesystem::copy_options::recursive);
  std::filesystem::remove(cfg.data.source);
  EXPECT_EQ(answer(root + "/elsewhere/model"), before);
}

TEST(ServeApi, PredictAnswersWhatTheLibraryPredicts) {
  const Fixture f;
  const symgnn::TrainedModel model = symgnn::TrainedModel::load(served().lowrank);
  const auto& ds = model.dataset();
  const std::vector<int64_t> users = {0, 5, 39}, items = {3, 0, 29};
  const auto want = model.predict(users, items);
  json pairs = json::array();
  for (size_t n = 0; n < users.size(); ++n)
    pairs.push_back({{"user", ds.users.id_of(users[n])}, {"item", ds.items.id_of(items[n])}});
  pairs[2] = json::array({ds.users.id_of(users[2]), ds.items.id_of(items[2])});  // the [USER, ITEM] form
  const Response r = f.post("/v1/predict", json{{"pairs", pairs}}.dump());
  ASSERT_EQ(r.status, 200) << r.body;
  const json j = body_of(r);
  for (size_t n = 0; n < users.size(); ++n)
    EXPECT_FLOAT_EQ(j["predictions"][n]["prediction"].get<float>(), want[n]);
}

TEST(ServeApi, NewUserIsRecommendedAsTheNewRatingsPathDoes) {
  const Fixture f;
  const symgnn::TrainedModel model = symgnn::TrainedModel::load(served().lowrank);
  const auto& items = model.dataset().items;
  const std::string file = st::scratch_dir("serve_api_new") + "/new.csv";
  std::ofstream(file) << "user,item,rating\nnewcomer," << items.id_of(2) << ",5\nnewcomer," << items.id_of(4)
                      << ",1\n";
  const symgnn::TrainedModel grown = symgnn::TrainedModel::load(served().lowrank, "cpu", file);
  symgnn::RecommendOptions o;
  o.k = 4;
  const auto want = symgnn::recommend(grown, {grown.users() - 1}, o).front();
  const Response r =
      f.post("/v1/recommend", R"({"k": 4, "ratings": [{"item": ")" + items.id_of(2) +
                                  R"(", "rating": 5}, {"item": ")" + items.id_of(4) + R"(", "rating": 1}]})");
  ASSERT_EQ(r.status, 200) << r.body;
  const json j = body_of(r);
  ASSERT_EQ(j["items"].size(), 4u);
  for (size_t k = 0; k < 4; ++k) {
    EXPECT_EQ(j["items"][k]["item"], items.id_of(want.items[k]));
    EXPECT_NE(j["items"][k]["item"], items.id_of(2)) << "a rated item was recommended";
  }
  // EASE scores a new user x B from their ratings alone, as the new-ratings path does.
  const symgnn::TrainedModel ease = symgnn::TrainedModel::load(served().ease, "cpu", file);
  const auto ease_want = symgnn::recommend(ease, {ease.users() - 1}, o).front();
  const Response e =
      f.post("/v1/recommend", R"({"model": "ease", "k": 4, "ratings": [{"item": ")" + items.id_of(2) +
                                  R"(", "rating": 5}, {"item": ")" + items.id_of(4) + R"(", "rating": 1}]})");
  ASSERT_EQ(e.status, 200) << e.body;
  const json ej = body_of(e);
  ASSERT_EQ(ej["items"].size(), 4u);
  for (size_t k = 0; k < 4; ++k) EXPECT_EQ(ej["items"][k]["item"], items.id_of(ease_want.items[k]));
}

TEST(ServeApi, ModelsHealthAndMetrics) {
  const Fixture f;
  const json models = body_of(f.get("/v1/models"));
  ASSERT_EQ(models["models"].size(), 2u);
  EXPECT_EQ(models["models"][0]["name"], "main");
  EXPECT_EQ(models["models"][0]["model"], "lowrank-full");
  EXPECT_TRUE(models["models"][0]["metrics"].contains("test_rmse"));
  EXPECT_GT(models["models"][0]["training_curve"]["rows"].size(), 0u);
  EXPECT_NE(models["models"][0]["config"].get<std::string>().find("model = lowrank"), std::string::npos);
  EXPECT_EQ(body_of(f.get("/healthz"))["status"], "ok");
  f.get("/v1/recommend", {{"user", "nobody"}});
  const Response m = f.get("/metrics");
  EXPECT_EQ(m.content_type.rfind("text/plain", 0), 0u);
  EXPECT_NE(m.body.find("symgnn_requests_total{route=\"/v1/recommend\",status=\"404\"} 1"), std::string::npos)
      << m.body;
  EXPECT_NE(m.body.find("symgnn_request_seconds_count{route=\"/healthz\"} 1"), std::string::npos) << m.body;
  EXPECT_NE(m.body.find("symgnn_model_version{model=\"ease\"} 1"), std::string::npos) << m.body;
}

TEST(ServeApi, ReloadSwapsInANewVersionOrKeepsTheOldOne) {
  // A copy of the model directory, so that it can be damaged.
  const std::string dir = st::scratch_dir("serve_api_reload") + "/model";
  fs::remove_all(dir);
  fs::copy(served().lowrank, dir, fs::copy_options::recursive);
  symgnn::serve::ModelStore store({{"main", dir}}, "cpu");
  symgnn::serve::ServeMetrics metrics;
  const symgnn::serve::Api api(store, metrics, {}, "0123456789abcdef");
  Request q;
  q.method = "POST";
  q.path = "/v1/admin/reload";
  error_of(api.handle(q), 401);
  q.authorization = "Bearer 0123456789abcdef";
  Response r = api.handle(q);
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(body_of(r)["reloaded"][0]["version"], 2);
  EXPECT_EQ(store.get("main")->version, 2);
  // A damaged model file: the reload fails, version 2 keeps serving.
  {
    std::fstream f(dir + "/model.pt", std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(100);
    f.put('\x5a');
  }
  r = api.handle(q);
  EXPECT_EQ(r.status, 500);
  const json j = body_of(r);
  EXPECT_FALSE(j["reloaded"][0]["ok"].get<bool>());
  EXPECT_NE(j["reloaded"][0]["error"].get<std::string>().find("model.pt"), std::string::npos) << r.body;
  EXPECT_EQ(store.get("main")->version, 2);
  Request rec;
  rec.method = "GET";
  rec.path = "/v1/recommend";
  rec.params = {{"user", store.get("main")->model->dataset().users.id_of(0)}};
  EXPECT_EQ(api.handle(rec).status, 200);
  // Without a token file, admin routes are off.
  const symgnn::serve::Api closed(store, metrics, {}, "");
  error_of(closed.handle(q), 403);
}

TEST(ServeApi, BadRequestsGetOneLineJsonErrors) {
  const Fixture f;
  const std::string user = symgnn::TrainedModel::load(served().lowrank).dataset().users.id_of(0);
  EXPECT_NE(error_of(f.get("/v1/recommend", {{"user", "nobody"}}), 404).find("'nobody'"), std::string::npos);
  error_of(f.get("/v1/recommend"), 400);
  error_of(f.get("/v1/recommend", {{"user", user}, {"model", "absent"}}), 404);
  for (const char* k : {"0", "-1", "2.5", "ten", "", "1001", "99999999999"})
    error_of(f.get("/v1/recommend", {{"user", user}, {"k", k}}), 400);
  // A key given twice is refused, not one of its values taken.
  EXPECT_EQ(error_of(f.get("/v1/recommend", {{"user", user}, {"k", "5"}, {"k", "10"}}), 400),
            "k is given more than once: give it once");
  error_of(f.get("/v1/recommend", {{"user", user}, {"user", user}}), 400);
  // k beyond the candidates: the shorter list and a note, not an error.
  EXPECT_EQ(f.get("/v1/recommend", {{"user", user}, {"k", "30"}}).status, 200);
  error_of(f.get("/v1/recommend", {{"user", user}, {"include_seen", "maybe"}}), 400);
  error_of(f.get("/nowhere"), 404);
  error_of(f.get("/v1/predict"), 405);
  error_of(f.post("/v1/recommend", "{not json"), 400);
  error_of(f.post("/v1/recommend", "[1, 2]"), 400);
  error_of(f.post("/v1/recommend", ""), 400);
  error_of(f.post("/v1/recommend", R"({"users": []})"), 400);
  error_of(f.post("/v1/recommend", R"({"users": [")" + user + R"("], "k": 2.9})"), 400);
  error_of(f.post("/v1/recommend", R"({"users": [{"a": 1}]})"), 400);
  error_of(f.post("/v1/recommend", R"({"users": ["nobody"]})"), 404);
  json many = {{"users", json::array()}};
  for (int n = 0; n < 1001; ++n) many["users"].push_back(user);
  error_of(f.post("/v1/recommend", many.dump()), 400);
  error_of(f.post("/v1/recommend", R"({"ratings": [{"item": "nothing", "rating": 4}]})"), 404);
  error_of(f.post("/v1/predict", R"({"pairs": [{"user": ")" + user + R"(", "item": "nothing"}]})"), 404);
  error_of(f.post("/v1/predict", R"({"pairs": [[1]]})"), 400);
  error_of(f.post("/v1/predict", R"({"pairs": "12"})"), 400);
  error_of(f.post("/v1/predict", std::string(2 << 20, ' ')), 413);
}

TEST(ServeApi, ScoresComputedAtLoadGiveTheListsOfAForwardPassPerRequest) {
  symgnn::serve::ModelStore cached({{"main", served().lowrank}}, "cpu");
  symgnn::serve::ModelStore uncached({{"main", served().lowrank}}, "cpu", 0);
  ASSERT_TRUE(cached.get("")->cached);
  ASSERT_FALSE(uncached.get("")->cached);
  EXPECT_TRUE(cached.get("")->model->scores_cached());
  symgnn::serve::ServeMetrics metrics;
  const symgnn::serve::Api a(cached, metrics, {}, ""), b(uncached, metrics, {}, "");
  const auto& users = cached.get("")->model->dataset().users;
  for (int64_t u = 0; u < users.count; u += 3) {
    Request q;
    q.method = "GET";
    q.path = "/v1/recommend";
    q.params = {{"user", users.id_of(u)}, {"k", "6"}};
    const json x = body_of(a.handle(q)), y = body_of(b.handle(q));
    ASSERT_EQ(x["items"].size(), 6u);
    for (size_t k = 0; k < 6; ++k) {
      EXPECT_EQ(x["items"][k]["item"], y["items"][k]["item"]) << "user " << u;
      EXPECT_NEAR(x["items"][k]["prediction"].get<double>(), y["items"][k]["prediction"].get<double>(), 1e-5);
    }
  }
}

// docs/reliability.md, "Garbage refused": ?model= on a POST names the model as the body's
// "model" does (both: the same one), and /v1/similar says when it has fewer than k.
TEST(ServeApi, APostsQueryModelIsHonouredAndSimilarNeverShortensSilently) {
  const Fixture f;
  const symgnn::TrainedModel lowrank = symgnn::TrainedModel::load(served().lowrank);
  const std::string user = lowrank.dataset().users.id_of(0);
  const std::string item = lowrank.dataset().items.id_of(0);
  const std::string pairs = R"({"pairs": [{"user": ")" + user + R"(", "item": ")" + item + R"("}]})";
  Request q;
  q.method = "POST";
  q.path = "/v1/predict";
  q.body = pairs;
  q.params = {{"model", "ease"}};
  const Response by_query = f.api.handle(q);
  ASSERT_EQ(by_query.status, 200) << by_query.body;
  EXPECT_EQ(body_of(by_query)["model"], "ease");
  q.params = {{"model", "absent"}};
  error_of(f.api.handle(q), 404);
  q.params = {{"model", "ease"}};
  q.body = R"({"model": "main", "pairs": [{"user": ")" + user + R"(", "item": ")" + item + R"("}]})";
  EXPECT_NE(error_of(f.api.handle(q), 400).find("different models"), std::string::npos);
  // /v1/similar: a k past the other items is refused with the count; within it, a list
  // shorter than k (items that share no rater) carries a note.
  const std::string too_many = std::to_string(lowrank.items());
  EXPECT_NE(error_of(f.get("/v1/similar", {{"item", item}, {"k", too_many}}), 400).find("other items"),
            std::string::npos);
  const Response r = f.get("/v1/similar", {{"item", item}, {"k", std::to_string(lowrank.items() - 1)}});
  ASSERT_EQ(r.status, 200) << r.body;
  const json j = body_of(r);
  if (j["items"].size() < static_cast<size_t>(lowrank.items() - 1)) {
    EXPECT_NE(j.value("note", "").find("fewer than k"), std::string::npos) << r.body;
  } else {
    EXPECT_FALSE(j.contains("note")) << r.body;
  }
}

// docs/reliability.md, "Answers come from the model in memory": a new user's list is grown
// from the model the server loaded, so a folder moved away or replaced by another model
// without a reload changes nothing (it was reloaded from disk per request, answering with
// the other model under the old version, or failing).
TEST(ServeApi, ANewUsersListComesFromTheModelInMemoryWhateverTheFolderHoldsNow) {
  const std::string dir = st::scratch_dir("serve_api_in_memory") + "/model";
  fs::copy(served().lowrank, dir, fs::copy_options::recursive);
  symgnn::serve::ModelStore store({{"main", dir}}, "cpu");
  symgnn::serve::ServeMetrics metrics;
  const symgnn::serve::Api api(store, metrics, symgnn::serve::ApiLimits{}, "0123456789abcdef");
  const auto& items = store.get("")->model->dataset().items;
  Request q;
  q.method = "POST";
  q.path = "/v1/recommend";
  q.body = R"({"k": 4, "ratings": [{"item": ")" + items.id_of(2) + R"(", "rating": 5}, {"item": ")" +
           items.id_of(4) + R"(", "rating": 1}]})";
  const Response before = api.handle(q);
  ASSERT_EQ(before.status, 200) << before.body;
  fs::rename(dir, dir + ".moved");
  const Response moved = api.handle(q);
  ASSERT_EQ(moved.status, 200) << moved.body;
  EXPECT_EQ(body_of(moved)["items"], body_of(before)["items"]);
  fs::copy(served().ease, dir, fs::copy_options::recursive);  // another model in its place
  const Response replaced = api.handle(q);
  ASSERT_EQ(replaced.status, 200) << replaced.body;
  EXPECT_EQ(body_of(replaced)["items"], body_of(before)["items"]);
  EXPECT_EQ(body_of(replaced)["version"], body_of(before)["version"]);
}

// docs/reliability.md, "Answers come from the model in memory": a new user's errors name
// what the client sent ("ratings"[n], the new user), never serve's temporary file, its
// internal id or a command-line flag.
TEST(ServeApi, ANewUsersErrorsNameWhatTheClientSent) {
  const Fixture f;
  const auto& items = f.store.get("")->model->dataset().items;
  const int64_t n_items = f.store.get("")->model->items();
  const std::string two =
      R"({"item": ")" + items.id_of(2) + R"(", "rating": 5}, {"item": ")" + items.id_of(4) + "\"";
  const std::string only_rated = R"(, "items": [")" + items.id_of(2) + R"(", ")" + items.id_of(4) + R"("]})";
  for (const std::string& body : {R"({"k": 3, "ratings": [)" + two + R"(, "rating": 2.5}]})",
                                  R"({"k": 3, "ratings": [)" + two + R"(, "rating": 1}])" + only_rated}) {
    const std::string e = error_of(f.post("/v1/recommend", body), 400);
    EXPECT_EQ(e.find("/tmp"), std::string::npos) << e;
    EXPECT_EQ(e.find("symgnn-serve"), std::string::npos) << e;
    EXPECT_EQ(e.find("--"), std::string::npos) << e;
  }
  const std::string levels =
      error_of(f.post("/v1/recommend", R"({"k": 3, "ratings": [)" + two + R"(, "rating": 2.5}]})"), 400);
  EXPECT_NE(levels.find("\"ratings\"[1]"), std::string::npos) << levels;
  const std::string none_left = error_of(
      f.post("/v1/recommend", R"({"k": 3, "ratings": [)" + two + R"(, "rating": 1}])" + only_rated), 400);
  EXPECT_NE(none_left.find("the new user has no candidate item"), std::string::npos) << none_left;
  EXPECT_NE(none_left.find("\"include_seen\""), std::string::npos) << none_left;
  // Fewer candidates than k: the shorter list, its note naming the new user as sent.
  const Response shorter = f.post("/v1/recommend", R"({"k": )" + std::to_string(n_items) +
                                                       R"(, "ratings": [)" + two + R"(, "rating": 1}]})");
  ASSERT_EQ(shorter.status, 200) << shorter.body;
  EXPECT_EQ(body_of(shorter)["returned"], n_items - 2);
  const std::string note = body_of(shorter)["note"].get<std::string>();
  EXPECT_NE(note.find("the new user has " + std::to_string(n_items - 2) + " candidate items"),
            std::string::npos)
      << note;
  EXPECT_EQ(note.find("symgnn-serve"), std::string::npos) << note;
}

// Filters (symgnn/item_filter.h) through GET and POST give the library's lists; /v1/rank
// gives rank_items' order; bad filters are 400s with the library's sentence.
TEST(ServeApi, FiltersAndRankAnswerAsTheLibrary) {
  Fixture f;
  const std::string dir = symgnn::testing::scratch_dir("serve_filters");
  const symgnn::TrainedModel model = symgnn::TrainedModel::load(served().ease);
  const auto& items = model.dataset().items;
  std::string attributes;
  for (int64_t i = 0; i < model.items(); ++i)
    attributes += items.id_of(i) + ",shelf=" + (i % 2 == 0 ? "a" : "b") + "\n";
  symgnn::testing::write_file(dir, "attributes.txt", attributes);
  f.api.set_item_attributes(symgnn::read_item_attributes(dir + "/attributes.txt"));
  const std::string user = model.dataset().users.id_of(5);
  // The library's list under the same filter.
  symgnn::ItemFilterSpec spec;
  spec.exclude = {items.id_of(0), items.id_of(2)};
  symgnn::add_where("shelf=a", spec);
  const symgnn::ItemAttributes a = symgnn::read_item_attributes(dir + "/attributes.txt");
  symgnn::RecommendOptions o;
  o.k = 4;
  o.filter = symgnn::make_item_filter(model, spec, &a);
  const auto want = symgnn::recommend(model, {5}, o).front();
  const Response got = f.get("/v1/recommend", {{"model", "ease"},
                                               {"user", user},
                                               {"k", "4"},
                                               {"exclude", items.id_of(0) + "," + items.id_of(2)},
                                               {"where", "shelf=a"}});
  ASSERT_EQ(got.status, 200) << got.body;
  const Response posted = f.post(
      "/v1/recommend", R"({"model": "ease", "users": [")" + user + R"("], "k": 4, "exclude": [")" +
                           items.id_of(0) + R"(", ")" + items.id_of(2) + R"("], "where": {"shelf": "a"}})");
  ASSERT_EQ(posted.status, 200) << posted.body;
  for (size_t n = 0; n < want.items.size(); ++n) {
    EXPECT_EQ(body_of(got)["items"][n]["item"], items.id_of(want.items[n]));
    EXPECT_EQ(body_of(posted)["results"][0]["items"][n]["item"], items.id_of(want.items[n]));
  }
  // /v1/rank, GET and POST, against rank_items.
  const std::vector<int64_t> given{9, 3, 14, 1};
  const auto order = symgnn::rank_items(model, 5, given);
  std::string list, array;
  for (const int64_t i : given) {
    list += (list.empty() ? "" : ",") + items.id_of(i);
    array += std::string(array.empty() ? "" : ", ") + "\"" + items.id_of(i) + "\"";
  }
  const Response ranked = f.get("/v1/rank", {{"model", "ease"}, {"user", user}, {"items", list}});
  ASSERT_EQ(ranked.status, 200) << ranked.body;
  const Response ranked_post =
      f.post("/v1/rank", R"({"model": "ease", "user": ")" + user + R"(", "items": [)" + array + "]}");
  ASSERT_EQ(ranked_post.status, 200) << ranked_post.body;
  for (size_t n = 0; n < order.items.size(); ++n) {
    EXPECT_EQ(body_of(ranked)["items"][n]["item"], items.id_of(order.items[n]));
    EXPECT_EQ(body_of(ranked_post)["items"][n]["item"], items.id_of(order.items[n]));
  }
  // Bad filters: the library's sentence, as a 400.
  EXPECT_EQ(error_of(f.get("/v1/recommend", {{"model", "ease"}, {"user", user}, {"items", "nope"}}), 400),
            "items: 'nope' is no item of the model");
  EXPECT_NE(error_of(f.get("/v1/recommend", {{"model", "ease"}, {"user", user}, {"where", "size=big"}}), 400)
                .find("no attribute 'size'"),
            std::string::npos);
  // Fewer candidates than k: the shorter list with a note and how many; none: the one refusal.
  const std::vector<int64_t>& rated = model.seen_items()[5];
  ASSERT_FALSE(rated.empty());
  int64_t unrated = 0;
  while (std::binary_search(rated.begin(), rated.end(), unrated)) ++unrated;
  const Response shorter =
      f.get("/v1/recommend", {{"model", "ease"},
                              {"user", user},
                              {"k", "3"},
                              {"items", items.id_of(unrated) + "," + items.id_of(rated[0])}});
  ASSERT_EQ(shorter.status, 200) << shorter.body;
  EXPECT_EQ(body_of(shorter)["returned"], 1);
  ASSERT_EQ(body_of(shorter)["items"].size(), 1u);
  EXPECT_EQ(body_of(shorter)["items"][0]["item"], items.id_of(unrated));
  EXPECT_NE(body_of(shorter)["note"].get<std::string>().find(
                "has 1 candidate item after the filters (items), fewer than k = 3: the list holds 1"),
            std::string::npos)
      << shorter.body;
  EXPECT_NE(error_of(f.get("/v1/recommend",
                           {{"model", "ease"}, {"user", user}, {"k", "3"}, {"items", items.id_of(rated[0])}}),
                     400)
                .find("has no candidate item after the filters (items)"),
            std::string::npos);
  EXPECT_EQ(error_of(f.get("/v1/rank", {{"model", "ease"}, {"user", user}, {"items", "nope"}}), 400),
            "items: 'nope' is no item of the model");
}

// A trained user's fresh ratings ({"user": ID, "ratings": [...]}): the list of the model
// grown by them in the library, without the items just rated.
TEST(ServeApi, ATrainedUsersFreshRatingsRefreshTheirList) {
  const Fixture f;
  const symgnn::TrainedModel model = symgnn::TrainedModel::load(served().ease);
  const auto& ds = model.dataset();
  const int64_t u = 4;
  const std::string user = ds.users.id_of(u);
  symgnn::RecommendOptions o;
  o.k = 2;
  const auto before = symgnn::recommend(model, {u}, o).front();
  symgnn::NewNodes rows;
  std::string ratings;
  for (const int64_t i : before.items) {
    rows.rows.ratings.push_back({user, ds.items.id_of(i), 5});
    ratings +=
        std::string(ratings.empty() ? "" : ", ") + R"({"item": ")" + ds.items.id_of(i) + R"(", "rating": 5})";
  }
  const symgnn::TrainedModel grown = model.with_new_nodes(rows);
  o.k = 5;
  const auto want = symgnn::recommend(grown, {u}, o).front();
  const Response r = f.post("/v1/recommend", R"({"model": "ease", "user": ")" + user +
                                                 R"(", "k": 5, "ratings": [)" + ratings + "]}");
  ASSERT_EQ(r.status, 200) << r.body;
  const json j = body_of(r);
  EXPECT_EQ(j["user"], user);
  ASSERT_EQ(j["items"].size(), 5u);
  for (size_t n = 0; n < 5; ++n) {
    EXPECT_EQ(j["items"][n]["item"], ds.items.id_of(want.items[n]));
    for (const int64_t i : before.items) EXPECT_NE(j["items"][n]["item"], ds.items.id_of(i));
  }
  EXPECT_EQ(
      error_of(f.post("/v1/recommend", R"({"model": "ease", "user": ")" + user + R"(", "k": 5})"), 400),
      "give either \"users\": [ID, ...] or \"ratings\": [{\"item\": ID, \"rating\": R}, ...] (a new "
      "user, with \"edges\" for whom they follow; \"edges\" alone for a new user known by follows; with "
      "\"user\": ID, that user's fresh ratings)");
}

TEST(ServeApi, ANewUsersEdgesAreRowsInMemoryAndCheckedAsTheLibraryChecksThem) {
  const Fixture f;
  const symgnn::TrainedModel model = symgnn::TrainedModel::load(served().lowrank);
  const auto& ds = model.dataset();
  ASSERT_EQ(ds.users.graph_origin, symgnn::GraphOrigin::File);  // the synthetic set's user graph
  const std::string rating = R"("ratings": [{"item": ")" + ds.items.id_of(1) +
                             R"(", "rating": 5}, {"item": ")" + ds.items.id_of(4) + R"(", "rating": 1}])";
  // The list of a new user with two neighbours: the library's, given the same rows.
  symgnn::NewNodes nodes;
  for (const int64_t i : {1, 4})
    nodes.rows.ratings.push_back({"someone", ds.items.id_of(i), i == 1 ? 5.0 : 1.0});
  nodes.rows.edges.push_back({"someone", ds.users.id_of(2), 1.0});
  nodes.rows.edges.push_back({"someone", ds.users.id_of(3), 0.5});
  const symgnn::TrainedModel grown = model.with_new_nodes(nodes);
  EXPECT_EQ(grown.new_ratings().user_edges, 2);
  symgnn::RecommendOptions o;
  o.k = 5;
  const auto want = symgnn::recommend(grown, {grown.users() - 1}, o).front();
  const Response r =
      f.post("/v1/recommend", "{" + rating + R"(, "k": 5, "edges": [")" + ds.users.id_of(2) +
                                  R"(", {"user": ")" + ds.users.id_of(3) + R"(", "weight": 0.5}]})");
  ASSERT_EQ(r.status, 200) << r.body;
  const json j = body_of(r);
  ASSERT_EQ(j["items"].size(), 5u);
  for (size_t n = 0; n < 5; ++n) EXPECT_EQ(j["items"][n]["item"], ds.items.id_of(want.items[n]));
  // Bad edges: an unknown user is 404 as every unknown id, naming the entry; a neighbour
  // named twice is refused, not counted twice.
  EXPECT_EQ(error_of(f.post("/v1/recommend",
                            "{" + rating + R"(, "edges": [")" + ds.users.id_of(2) + R"(", "nobody"]})"),
                     404),
            "\"edges\"[1]: unknown user 'nobody' (not in the model's data)");
  EXPECT_EQ(error_of(f.post("/v1/recommend", "{" + rating + R"(, "edges": [")" + ds.users.id_of(2) +
                                                 R"(", ")" + ds.users.id_of(2) + R"("]})"),
                     400),
            "\"edges\"[1]: user '" + ds.users.id_of(2) + "' is given twice: name each neighbour once");
  EXPECT_EQ(error_of(f.post("/v1/recommend", "{" + rating + R"(, "user": ")" + ds.users.id_of(2) +
                                                 R"(", "edges": [")" + ds.users.id_of(3) + R"("]})"),
                     400),
            "\"edges\" and \"features\" describe a new user; a trained user keeps theirs");
  EXPECT_EQ(error_of(f.post("/v1/recommend", "{" + rating + R"(, "features": "tall"})"), 400),
            "\"features\": must be a non-empty array of numbers (the new user's side features)");
  EXPECT_EQ(error_of(f.post("/v1/recommend", "{" + rating + R"(, "edges": [{"weight": 2}]})"), 400),
            "\"edges\": each entry must be a user id or {\"user\": ID, \"weight\": W}");
}

// Issue 63: a new user known only by whom they follow ("edges" and no rating) gets the list
// of the people they follow, the library's (symgnn/update.h), with who of them rated each item.
TEST(ServeApi, ANewUserGivenByFollowsAloneIsListedByThePeopleTheyFollow) {
  // The default's shape (the recommended preset's network, whose prior encoder folds users,
  // small), EASE beside it, users without ratings listed by the people linked to them: such a
  // user is folded in.
  const std::string dir = st::serve_test_model(
      "lowrank", "recommended",
      [](symgnn::RunConfig& cfg) {
        cfg.lowrank.prior_width = 12;
        cfg.train.ranker = "ease";
        cfg.train.cold_lists = "neighbours";
      },
      "follows");
  symgnn::serve::ModelStore store({{"main", dir}, {"ease", served().ease}}, "cpu");
  symgnn::serve::ServeMetrics metrics;
  const symgnn::serve::Api api(store, metrics, symgnn::serve::ApiLimits{}, "");
  const auto post = [&](const std::string& path, const std::string& body) {
    Request q;
    q.method = "POST";
    q.path = path;
    q.body = body;
    return api.handle(q);
  };
  const symgnn::TrainedModel& model = *store.get("main")->model;
  const symgnn::Dataset& ds = model.dataset();
  const std::vector<int64_t> follows = {2, 11, 25};
  symgnn::Delta delta;
  std::string ids;
  for (const int64_t v : follows) {
    delta.edges.emplace_back(symgnn::NodeSide::users, symgnn::EdgeOp::add, "someone", ds.users.id_of(v));
    ids += std::string(ids.empty() ? "" : ", ") + "\"" + ds.users.id_of(v) + "\"";
  }
  const symgnn::Applied want_user = symgnn::apply(model, delta, symgnn::Keep::user);
  ASSERT_TRUE(want_user.user->folded());
  symgnn::RecommendOptions o;
  o.k = 5;
  const auto want = symgnn::recommend(*want_user.user, o);
  std::map<std::pair<int64_t, int64_t>, float> rating;
  for (const symgnn::RatingList* r : {&ds.train, &ds.validation})
    for (size_t e = 0; e < r->size(); ++e) rating[{r->user[e], r->item[e]}] = r->value[e];
  for (const std::string& body :
       {"{\"k\": 5, \"edges\": [" + ids + "]}", "{\"k\": 5, \"ratings\": [], \"edges\": [" + ids + "]}"}) {
    const Response r = post("/v1/recommend", body);
    ASSERT_EQ(r.status, 200) << r.body;
    const json j = body_of(r);
    EXPECT_EQ(j["ranked_by"], want_user.user->ranked_by);
    EXPECT_NE(j["ranked_by"].get<std::string>().find("people linked in the user graph who rated"),
              std::string::npos);
    EXPECT_EQ(j["new_user_ratings"], 0);
    EXPECT_TRUE(j["user"].is_null());
    ASSERT_EQ(j["items"].size(), 5u);
    int named = 0;
    for (size_t n = 0; n < 5; ++n) {
      EXPECT_EQ(j["items"][n]["item"], ds.items.id_of(want.items[n]));
      json raters = json::array();
      for (const int64_t v : follows)
        if (const auto it = rating.find({v, want.items[n]}); it != rating.end())
          raters.push_back({{"user", ds.users.id_of(v)}, {"rating", it->second}});
      EXPECT_EQ(j["items"][n]["linked_raters"], raters);
      named += static_cast<int>(raters.size());
    }
    EXPECT_GT(named, 0) << "no listed item was rated by a followed person: the check saw nothing";
  }
  // A candidate list, ranked for the same user.
  const Response ranked =
      post("/v1/rank", "{\"edges\": [" + ids + "], \"items\": [\"" + ds.items.id_of(want.items[1]) +
                           "\", \"" + ds.items.id_of(want.items[0]) + "\"]}");
  ASSERT_EQ(ranked.status, 200) << ranked.body;
  EXPECT_EQ(body_of(ranked)["items"][0]["item"], ds.items.id_of(want.items[0]));
  // A kind whose members fold no user is read as the user a graph edit would create: EASE,
  // which scores users from their rated items alone, lists them by the people they follow, as it
  // lists its users without ratings (infer/cold_lists.h: by them or by popularity, as validation
  // chose for this model).
  const Response by_ease = post("/v1/recommend", "{\"k\": 3, \"model\": \"ease\", \"edges\": [" + ids + "]}");
  ASSERT_EQ(by_ease.status, 200) << by_ease.body;
  EXPECT_EQ(body_of(by_ease)["items"].size(), 3u) << by_ease.body;
  const std::string ease_ranked_by = body_of(by_ease)["ranked_by"].get<std::string>();
  EXPECT_TRUE(ease_ranked_by.find("people linked in the user graph who rated") != std::string::npos ||
              ease_ranked_by.find("train.cold_lists") != std::string::npos)
      << by_ease.body;
  // Errors: one line each.
  EXPECT_EQ(
      error_of(post("/v1/recommend", R"({"edges": []})"), 400),
      "\"edges\": a new user without ratings is given by a non-empty array of the user ids they follow");
  EXPECT_EQ(error_of(post("/v1/recommend", R"({"edges": ["nobody"]})"), 404),
            "\"edges\"[0]: unknown user 'nobody' (not in the model's data)");
  EXPECT_NE(error_of(post("/v1/recommend",
                          "{\"edges\": [{\"user\": \"" + ds.users.id_of(2) + "\", \"weight\": 0}]}"),
                     400)
                .find("must be finite and above 0"),
            std::string::npos);
}

TEST(ServeApi, ExplainAnswersWhatTheLibraryExplains) {
  const Fixture f;
  const symgnn::TrainedModel ease = symgnn::TrainedModel::load(served().ease);
  const auto& ds = ease.dataset();
  int64_t item = 0;
  while (std::binary_search(ease.seen_items()[3].begin(), ease.seen_items()[3].end(), item)) ++item;
  symgnn::ExplainOptions opt;
  opt.top = 2;
  const json want = symgnn::explanation_json(symgnn::explain(ease, 3, item, opt));
  const Response r =
      f.get("/v1/explain",
            {{"user", ds.users.id_of(3)}, {"item", ds.items.id_of(item)}, {"top", "2"}, {"model", "ease"}});
  ASSERT_EQ(r.status, 200) << r.body;
  json got = body_of(r);
  EXPECT_EQ(got["model_name"], "ease");
  got.erase("model_name");
  got.erase("version");
  EXPECT_EQ(got, want);
  // The learned model answers by occlusion.
  const Response l = f.get(
      "/v1/explain", {{"user", ds.users.id_of(3)}, {"item", ds.items.id_of(item)}, {"candidates", "3"}});
  ASSERT_EQ(l.status, 200) << l.body;
  EXPECT_FALSE(body_of(l)["exact"].get<bool>());
  // Refusals, each one line.
  EXPECT_NE(error_of(f.get("/v1/explain", {{"user", "0"}}), 400).find("?user=ID&item=ID"), std::string::npos);
  EXPECT_NE(error_of(f.get("/v1/explain", {{"user", "nobody"}, {"item", "0"}}), 404).find("nobody"),
            std::string::npos);
  EXPECT_NE(
      error_of(f.get("/v1/explain", {{"user", "0"}, {"item", "0"}, {"target", "x"}}), 400).find("target"),
      std::string::npos);
  EXPECT_NE(error_of(f.get("/v1/explain", {{"user", "0"}, {"item", "0"}, {"top", "0"}}), 400).find("top"),
            std::string::npos);
}

TEST(ServeApi, GraphEditsAreServedJournalledAndReplayedOnReload) {
  // A copy of the low-rank model (its synthetic set has a user graph the CGE layers read).
  const std::string root = st::scratch_dir("serve_graph_edits");
  std::filesystem::copy(served().lowrank, root + "/model", std::filesystem::copy_options::recursive);
  const std::string dir = root + "/model";
  const symgnn::TrainedModel original = symgnn::TrainedModel::load(dir);
  const auto& ds = original.dataset();
  // Two users with no edge between them.
  auto linked = [&](int64_t a, int64_t b) {
    for (size_t e = 0; e < ds.users.graph.src.size(); ++e)
      if (ds.users.graph.src[e] == a && ds.users.graph.dst[e] == b) return true;
    return false;
  };
  int64_t b = 1;
  while (linked(0, b)) ++b;
  const std::string a_id = ds.users.id_of(0), b_id = ds.users.id_of(b);
  const std::vector<symgnn::Delta::Edge> edits = {symgnn::graph_edit("user", "add", a_id, b_id, 1.0)};
  const symgnn::TrainedModel want_model = symgnn::apply_graph_edits(original, edits);
  const auto want = want_model.score_all_items({0});

  symgnn::serve::ModelStore store({{"main", dir}}, "cpu");
  symgnn::serve::ServeMetrics metrics;
  const symgnn::serve::Api api(store, metrics, symgnn::serve::ApiLimits{}, "0123456789abcdef");
  auto post = [&](const json& body, const std::string& auth) {
    Request q;
    q.method = "POST";
    q.path = "/v1/graph/edges";
    q.body = body.dump();
    q.authorization = auth;
    return api.handle(q);
  };
  const std::string token = "Bearer 0123456789abcdef";
  const json add = {{"edits", {{{"side", "user"}, {"op", "add"}, {"a", a_id}, {"b", b_id}}}}};
  error_of(post(add, ""), 401);
  // Refused edits change nothing: each one line, the version kept.
  EXPECT_NE(error_of(post({{"edits", {{{"side", "user"}, {"a", a_id}, {"b", a_id}}}}}, token), 400)
                .find("self-loop"),
            std::string::npos);
  EXPECT_NE(error_of(post({{"edits", {{{"side", "user"}, {"a", a_id}, {"b", "nobody"}}}}}, token), 400)
                .find("'nobody' is no user of the model"),
            std::string::npos);
  EXPECT_NE(error_of(post({{"edits", json::array()}}, token), 400).find("\"edits\""), std::string::npos);
  EXPECT_NE(
      error_of(post({{"edits", {{{"side", "user"}, {"a", a_id}, {"b", b_id}, {"weight", "heavy"}}}}}, token),
               400)
          .find("weight: must be a number"),
      std::string::npos);
  EXPECT_EQ(store.get("")->version, 1);
  EXPECT_FALSE(std::filesystem::exists(dir + "/graph_journal.jsonl"));

  const Response r = post(add, token);
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(body_of(r)["version"], 2);
  EXPECT_EQ(body_of(r)["journal_records"], 1);
  EXPECT_TRUE(std::filesystem::exists(dir + "/graph_journal.jsonl"));
  // The next answer is the edited model's: the list and the scores of user 0.
  const auto served_now = store.get("")->model->score_all_items({0});
  ASSERT_EQ(served_now.size(), want.size());
  for (size_t k = 0; k < want.size(); ++k) EXPECT_NEAR(served_now[k], want[k], 1e-5);
  const Response list = st::get_request(api, "/v1/recommend", {{"user", a_id}, {"k", "5"}});
  ASSERT_EQ(list.status, 200) << list.body;
  const auto lib = symgnn::recommend(want_model, {0}, symgnn::RecommendOptions{5});
  for (size_t k = 0; k < 5; ++k)
    EXPECT_EQ(body_of(list)["items"][k]["item"], ds.items.id_of(lib[0].items[k]));
  // Another writer (symgnn graph edit) journals a record beside the server: the server's next
  // record is numbered after it, and a reload replays all three in order.
  EXPECT_EQ(symgnn::infer::append_graph_journal(dir, {symgnn::graph_edit("user", "add", a_id, b_id, 3.0)}, 1,
                                                nullptr),
            2);
  ASSERT_EQ(post({{"edits", {{{"side", "user"}, {"op", "remove"}, {"a", a_id}, {"b", b_id}}}}}, token).status,
            200);
  EXPECT_EQ(store.get("")->journal_records, 3);
  store.reload();
  EXPECT_EQ(store.get("")->journal_records, 3);
  const auto replayed = store.get("")->model->score_all_items({0});
  const auto before = original.score_all_items({0});
  for (size_t k = 0; k < before.size(); ++k)
    EXPECT_NEAR(replayed[k], before[k], 1e-5);  // added, then removed
}

TEST(ServeApi, AUserCreatedByFollowsAloneIsServedAList) {
  const std::string root = st::scratch_dir("serve_graph_create");
  std::filesystem::copy(served().lowrank, root + "/model", std::filesystem::copy_options::recursive);
  const std::string dir = root + "/model";
  symgnn::serve::ModelStore store({{"main", dir}}, "cpu");
  symgnn::serve::ServeMetrics metrics;
  const symgnn::serve::Api api(store, metrics, symgnn::serve::ApiLimits{}, "0123456789abcdef");
  const auto& ds = store.get("")->model->dataset();
  const int64_t users = store.get("")->model->users();
  auto post = [&](const json& body) {
    Request q;
    q.method = "POST";
    q.path = "/v1/graph/edges";
    q.body = body.dump();
    q.authorization = "Bearer 0123456789abcdef";
    return api.handle(q);
  };
  json edits = json::array();
  for (int64_t v : {0, 1, 2})
    edits.push_back({{"side", "user"}, {"a", "newcomer"}, {"b", ds.users.id_of(v)}, {"create", true}});
  // Without create, or with a create that is no boolean: one line, nothing changed.
  json plain = edits;
  plain[0].erase("create");
  EXPECT_NE(error_of(post({{"edits", plain}}), 400).find("set create to add it"), std::string::npos);
  plain[0]["create"] = "yes";
  EXPECT_NE(error_of(post({{"edits", plain}}), 400).find("edits[0].create: must be true or false"),
            std::string::npos);
  plain[0]["create"] = true;
  plain[0]["features"] = "tall";
  EXPECT_NE(error_of(post({{"edits", plain}}), 400).find("edits[0].features: must be a list of numbers"),
            std::string::npos);
  const Response r = post({{"edits", edits}});
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(store.get("")->model->users(), users + 1);
  // A list, from the model (the user has no ratings), and the user is known to every route.
  const Response list = st::get_request(api, "/v1/recommend", {{"user", "newcomer"}, {"k", "5"}});
  ASSERT_EQ(list.status, 200) << list.body;
  EXPECT_EQ(body_of(list)["items"].size(), 5u);
  const Response near = st::get_request(api, "/v1/similar", {{"user", "newcomer"}, {"k", "3"}});
  ASSERT_EQ(near.status, 200) << near.body;
  EXPECT_EQ(body_of(near)["users"].size(), 3u);
  // Journalled with its create: a reload creates the user again.
  store.reload();
  EXPECT_EQ(store.get("")->model->users(), users + 1);
  EXPECT_EQ(st::get_request(api, "/v1/recommend", {{"user", "newcomer"}, {"k", "5"}}).status, 200);
}

// The page's social parts (issue 66): GET /v1/users names the people linked to a user,
// GET /v1/recommend who among them rated each listed item, both against the data by brute
// force; GET /v1/models says whether the admin routes are on.
TEST(ServeApi, TheSocialFieldsNameLinkedPeopleAndWhoRatedEachListedItem) {
  const Fixture f;
  const symgnn::TrainedModel& model = *f.store.get("main")->model;
  const symgnn::Dataset& ds = model.dataset();
  ASSERT_GT(ds.users.graph.size(), 0u) << "the synthetic set has a user graph";
  std::map<std::pair<int64_t, int64_t>, float> rating;
  for (const symgnn::RatingList* r : {&ds.train, &ds.validation})
    for (size_t e = 0; e < r->size(); ++e) rating[{r->user[e], r->item[e]}] = r->value[e];
  int checked_raters = 0;
  for (int64_t u = 0; u < 6; ++u) {
    std::set<int64_t> linked;
    for (size_t e = 0; e < ds.users.graph.size(); ++e) {
      const int64_t a = ds.users.graph.src[e], b = ds.users.graph.dst[e];
      if (a != b && a == u) linked.insert(b);
      if (a != b && b == u) linked.insert(a);
    }
    const std::string id = ds.users.id_of(u);
    const json users = body_of(f.get("/v1/users", {{"user", id}}));
    json want = json::array();
    for (const int64_t v : linked) want.push_back(ds.users.id_of(v));
    EXPECT_EQ(users["linked"], want) << id;
    const json list = body_of(f.get("/v1/recommend", {{"user", id}, {"k", "8"}}));
    for (const json& e : list["items"]) {
      const int64_t item = [&] {
        for (int64_t i = 0; i < model.items(); ++i)
          if (ds.items.id_of(i) == e["item"].get<std::string>()) return i;
        return int64_t{-1};
      }();
      json raters = json::array();
      for (const int64_t v : linked)
        if (const auto it = rating.find({v, item}); it != rating.end())
          raters.push_back({{"user", ds.users.id_of(v)}, {"rating", it->second}});
      EXPECT_EQ(e["linked_raters"], raters) << id << " " << e["item"];
      checked_raters += static_cast<int>(raters.size());
    }
  }
  EXPECT_GT(checked_raters, 0) << "no listed item was rated by a linked user: the check saw nothing";
  const json models = body_of(f.get("/v1/models"));
  EXPECT_EQ(models["admin_routes"], true);
  EXPECT_EQ(models["item_attribute_keys"], json::array());
  const Fixture off("");
  EXPECT_EQ(body_of(off.get("/v1/models"))["admin_routes"], false);
}

TEST(ServeApi, AModelOfClicksTakesANewUsersItemsWithoutARating) {
  // A click log (user,item rows: data.feedback = implicit) with an EASE ranker beside the
  // popularity model that stands in for a rating model.
  const std::string dir = st::scratch_dir("serve_api_clicks");
  std::string log = "user,item\n";
  for (int u = 0; u < 40; ++u)
    for (int i = 0; i < 30; ++i)
      if ((u * 7 + i * 3) % 5 < 2 && u % 3 == i % 3)
        log += "u" + std::to_string(u) + ",i" + std::to_string(i) + "\n";
  symgnn::RunConfig cfg = symgnn::preset_config("recommended");
  cfg.data.source = st::write_file(dir, "clicks.csv", log);
  cfg.train.ranker = "ease";
  cfg.ease.lambdas = "20";
  cfg.train.threads = 1;
  symgnn::FitOptions fo;
  fo.out_dir = dir + "/model";
  symgnn::fit(cfg, fo);
  symgnn::serve::ModelStore store({{"clicks", fo.out_dir}}, "cpu");
  symgnn::serve::ServeMetrics metrics;
  const symgnn::serve::Api api(store, metrics, symgnn::serve::ApiLimits{}, "0123456789abcdef");
  Request q;
  q.method = "POST";
  q.path = "/v1/recommend";
  q.body = R"({"k": 3, "ratings": [{"item": "i0"}, {"item": "i3"}, {"item": "i6"}]})";
  const Response r = api.handle(q);
  ASSERT_EQ(r.status, 200) << r.body;
  // The library's answer for the same clicks given as a file of pairs.
  const std::string file = st::write_file(dir, "new.csv", "newcomer,i0\nnewcomer,i3\nnewcomer,i6\n");
  const symgnn::TrainedModel grown = symgnn::TrainedModel::load(fo.out_dir, "cpu", file);
  symgnn::RecommendOptions o;
  o.k = 3;
  const auto want = symgnn::recommend(grown, {grown.user_index("newcomer")}, o).front();
  const json j = body_of(r);
  ASSERT_EQ(j["items"].size(), 3u) << r.body;
  for (size_t k = 0; k < 3; ++k) {
    EXPECT_EQ(j["items"][k]["item"], grown.dataset().items.id_of(want.items[k]));
    // No rating is predicted from clicks, so the items carry none (symgnn recommend writes none).
    EXPECT_FALSE(j["items"][k].contains("prediction")) << r.body;
  }
  // A trained user's list likewise.
  const Response known = api.handle([] {
    Request g;
    g.method = "GET";
    g.path = "/v1/recommend";
    g.params = {{"user", "u0"}, {"k", "2"}};
    return g;
  }());
  ASSERT_EQ(known.status, 200) << known.body;
  for (const json& item : body_of(known)["items"]) EXPECT_FALSE(item.contains("prediction")) << known.body;
  // A count must be positive; a rating model still asks for a rating.
  q.body = R"({"ratings": [{"item": "i0", "rating": 0}]})";
  EXPECT_EQ(api.handle(q).status, 400);
  const Fixture f;
  EXPECT_EQ(f.post("/v1/recommend", R"({"ratings": [{"item": "x"}]})").status, 400);
}
