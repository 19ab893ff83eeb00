// `symgnn serve` over a real socket on 127.0.0.1 (src/serve/http_server.h): the routes
// answer through HTTP as the handler does, a reload under load fails no request, a body
// over the limit is refused.
#include <gtest/gtest.h>
#include <httplib.h>

#include <atomic>
#include <chrono>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "common/test_support.h"
#include "serve/http_server.h"
#include "serve/serve_test_model.h"
#include "symgnn/fit.h"

namespace st = symgnn::testing;
using nlohmann::json;

namespace {

std::string fitted_model() {
  static const std::string dir = st::serve_test_model("lowrank");
  return dir;
}

/// A server on a free port of 127.0.0.1, answering from a thread until the end of scope.
struct Running {
  symgnn::serve::ModelStore store;
  symgnn::serve::ServeMetrics metrics;
  symgnn::serve::Api api{store, metrics, symgnn::serve::ApiLimits{}, "0123456789abcdef"};
  symgnn::serve::HttpServer server;
  int port = 0;
  std::thread thread;
  /// `cache_pairs` 0: every list runs the model's forward pass, from `threads` workers at once.
  explicit Running(int threads = 4, int64_t cache_pairs = symgnn::serve::ModelStore::kDefaultCachePairs)
      : store({{"main", fitted_model()}}, "cpu", cache_pairs), server(api, options(threads)) {
    port = server.bind();
    thread = std::thread([this] { server.run(); });
  }
  ~Running() {
    server.stop();
    thread.join();
  }
  static symgnn::serve::HttpOptions options(int threads) {
    symgnn::serve::HttpOptions o;
    o.host = "127.0.0.1";
    o.port = 0;
    o.threads = threads;
    return o;
  }
  httplib::Client client() const {
    httplib::Client c("127.0.0.1", port);
    c.set_read_timeout(30, 0);
    return c;
  }
};

}  // namespace

TEST(ServeHttp, RoutesAnswerOverTheSocketAsTheHandlerDoes) {
  Running s;
  auto c = s.client();
  const auto health = c.Get("/healthz");
  ASSERT_TRUE(health) << "no answer from 127.0.0.1:" << s.port;
  EXPECT_EQ(health->status, 200);
  EXPECT_EQ(json::parse(health->body)["status"], "ok");
  const std::string user = s.store.get("")->model->dataset().users.id_of(3);
  const auto rec = c.Get(("/v1/recommend?user=" + user + "&k=4").c_str());
  ASSERT_TRUE(rec);
  EXPECT_EQ(rec->status, 200) << rec->body;
  symgnn::serve::Request q;
  q.method = "GET";
  q.path = "/v1/recommend";
  q.params = {{"user", user}, {"k", "4"}};
  EXPECT_EQ(json::parse(rec->body)["items"], json::parse(s.api.handle(q).body)["items"]);
  EXPECT_EQ(rec->get_header_value("Content-Type"), "application/json");
  // A query value holding '=' (where=key=value), plain or encoded, reaches the handler whole.
  for (const std::string where : {"shelf=a", "shelf%3Da"}) {
    const auto filtered = c.Get(("/v1/recommend?user=" + user + "&k=4&where=" + where).c_str());
    ASSERT_TRUE(filtered);
    q.params = {{"user", user}, {"k", "4"}, {"where", "shelf=a"}};
    const auto direct = s.api.handle(q);
    EXPECT_EQ(filtered->status, direct.status) << where;
    EXPECT_EQ(filtered->body, direct.body) << where;
    // This server reads no attributes: the error says how a server gets them.
    EXPECT_EQ(direct.status, 400);
    EXPECT_NE(direct.body.find("where needs item attributes (a server started with --item-attributes FILE)"),
              std::string::npos)
        << direct.body;
  }
  const auto missing = c.Get("/v1/recommend?user=nobody");
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->status, 404);
  EXPECT_TRUE(json::parse(missing->body).contains("error"));
  const auto put = c.Put("/v1/predict", "{}", "application/json");
  ASSERT_TRUE(put);
  EXPECT_EQ(put->status, 405);
  const auto options = c.Options("/v1/recommend");
  ASSERT_TRUE(options);
  EXPECT_EQ(options->status, 204);
  EXPECT_EQ(options->get_header_value("Allow"), "GET, HEAD, POST");
  // Over the body limit (1 MiB): refused with a JSON error, the server still answers.
  const auto big = c.Post("/v1/predict", std::string((1 << 20) + 10, ' '), "application/json");
  ASSERT_TRUE(big);
  EXPECT_EQ(big->status, 413);
  EXPECT_TRUE(json::parse(big->body, nullptr, false).contains("error")) << big->body;
  EXPECT_EQ(c.Get("/healthz")->status, 200);
}

TEST(ServeHttp, ReloadUnderLoadFailsNoRequest) {
  // Lists scored per request: concurrent forward passes read the representations the load kept.
  Running s(8, 0);
  ASSERT_FALSE(s.store.get("")->cached);
  const std::string user = s.store.get("")->model->dataset().users.id_of(1);
  std::atomic<bool> done{false};
  std::atomic<int64_t> ok{0}, failed{0};
  std::vector<std::thread> clients;
  for (int t = 0; t < 6; ++t)
    clients.emplace_back([&] {
      auto c = s.client();
      // Bounded: stops after the reloads, or after 2,000 requests or 60 s at most.
      const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(60);
      for (int n = 0; n < 2000 && !done && std::chrono::steady_clock::now() < until; ++n) {
        const auto r = c.Get(("/v1/recommend?user=" + user + "&k=3").c_str());
        (r && r->status == 200 ? ok : failed)++;
      }
    });
  auto admin = s.client();
  httplib::Headers auth = {{"Authorization", "Bearer 0123456789abcdef"}};
  for (int n = 0; n < 3; ++n) {
    const auto r = admin.Post("/v1/admin/reload", auth, "", "application/json");
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 200) << r->body;
  }
  done = true;
  for (auto& t : clients) t.join();
  EXPECT_EQ(failed.load(), 0);
  EXPECT_GT(ok.load(), 0);
  EXPECT_EQ(s.store.get("main")->version, 4);
}

// docs/reliability.md, "Request bodies": a JSON body sent as form-encoded (what `curl -d` and
// Python's urllib send by default) is read as the body it is up to --max-body-bytes; the
// library's own 8 KiB limit for form-encoded bodies no longer answers 413.
TEST(ServeHttp, AFormEncodedBodyOver8KiBIsReadUpToTheLimit) {
  Running s;
  auto c = s.client();
  const auto& ds = s.store.get("")->model->dataset();
  json pairs = json::array();
  for (int k = 0; k < 900; ++k)
    pairs.push_back(
        {{"user", ds.users.id_of(k % ds.users.count)}, {"item", ds.items.id_of(k % ds.items.count)}});
  const std::string body = json{{"pairs", pairs}}.dump();
  ASSERT_GT(body.size(), 16384u);
  for (const char* type : {"application/x-www-form-urlencoded", "application/json", "text/plain"}) {
    const auto r = c.Post("/v1/predict", body, type);
    ASSERT_TRUE(r) << type;
    EXPECT_EQ(r->status, 200) << type << ": " << r->body;
    EXPECT_EQ(json::parse(r->body)["predictions"].size(), 900u) << type << ": " << r->body;
  }
  // Over --max-body-bytes, in any type: 413 with the JSON error.
  const auto big =
      c.Post("/v1/predict", std::string((1 << 20) + 10, 'x'), "application/x-www-form-urlencoded");
  ASSERT_TRUE(big);
  EXPECT_EQ(big->status, 413);
  EXPECT_TRUE(json::parse(big->body, nullptr, false).contains("error")) << big->body;
}
