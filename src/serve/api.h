// The routes of `symgnn serve` as plain functions of a request (docs/serve.md), apart from
// the HTTP library: the server (http_server.h) and the fuzz target call the same handler,
// and the tests call it without a socket. JSON in and out, original ids everywhere. The
// routes are one table (routes.h), their handlers route_handlers.h; the lines below list
// the same routes and methods (tests/serve/test_serve_routes.cpp).
//
//   GET  /healthz                      {"status": "ok", "models": [...]}
//   GET  /v1/models                    each model's config, metrics, training curve, version
//   GET  /v1/recommend?user=ID&k=10[&model=NAME][&include_seen=1]
//   POST /v1/recommend                 {"users": [ID, ...], "k": 10, "model": ..., "include_seen": false}
//                                      or {"ratings": [{"item": ID, "rating": 4}, ...], "k": 10}: a new user
//                                      or {"user": ID, "ratings": [...]}: a trained user's fresh ratings
//   Both take filters (symgnn/item_filter.h): GET &exclude=ID,ID&items=ID,ID&where=key=value
//   (repeatable), POST "exclude": [ID, ...], "items": [ID, ...], "where": {"key": "value"};
//   where needs `serve --item-attributes FILE`.
//   GET  /v1/rank?user=ID&items=ID,ID,...[&model=NAME]   the candidates in the model's order
//   POST /v1/rank                      {"user": ID, "items": [ID, ...]} or {"ratings": [...], "items": [...]}
//   POST /v1/predict                   {"pairs": [{"user": ID, "item": ID}, ...], "model": ...}
//   GET  /v1/similar?item=ID&k=10[&model=NAME]   nearest items by the model's representations
//                                      (TrainedModel::similar); ?user=ID: nearest users
//   GET  /v1/explain?user=ID&item=ID[&target=list|rating][&top=5][&candidates=24][&model=NAME]
//                                      why the model scores the item for the user (symgnn/explain.h)
//   POST /v1/graph/edges               {"edits": [{"side": "user", "op": "add", "a": ID, "b": ID}, ...]}:
//                                      graph edits, journalled and served at once (symgnn/graph_edit.h);
//                                      needs "Authorization: Bearer TOKEN"
//   GET  /v1/users?user=ID[&model=NAME]          the ratings the model learned from for ID
//   GET  /v1/users[?offset=0&limit=100]          a page of user ids (limit at most 1000)
//   GET  /                             the page (src/serve/page/index.html) over these routes
//   Items carry "name" where the model has names (--item-names, MovieLens titles).
//   GET  /metrics                      Prometheus text (serve_metrics.h)
//   POST /v1/admin/reload[?model=NAME] reloads from disk; needs "Authorization: Bearer TOKEN"
//
// Errors are {"error": "one line"} with 400 (malformed), 401 (admin token), 404 (unknown
// route, model, user or item), 405 (method), 413 (body over the limit) or 500.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>

#include "serve/model_store.h"
#include "serve/serve_metrics.h"
#include "symgnn/item_filter.h"

namespace symgnn::serve {

struct Request {
  std::string method;                              // "GET", "POST", ...
  std::string path;                                // without the query
  std::multimap<std::string, std::string> params;  // the query's, decoded
  std::string body;
  std::string authorization;  // the Authorization header, "" when absent
};

struct Response {
  int status = 200;
  std::string body;
  std::string content_type = "application/json";
};

struct ApiLimits {
  int64_t max_k = 1000;             // k of one list
  int64_t max_users = 1000;         // users of one POST /v1/recommend
  int64_t max_pairs = 100000;       // pairs of one POST /v1/predict
  int64_t max_new_ratings = 10000;  // ratings of one new user
  int64_t max_body_bytes = 1 << 20;
};

class Api {
 public:
  /// `admin_token`: what "Authorization: Bearer" must carry for admin routes ("" : admin
  /// routes refused with 403).
  Api(ModelStore& store, ServeMetrics& metrics, ApiLimits limits, std::string admin_token);
  /// The item attributes `where` filters read (serve --item-attributes); none by default.
  void set_item_attributes(ItemAttributes attributes) { attributes_ = std::move(attributes); }

  /// The answer to `request`; never throws (an unexpected failure is a 500 naming it).
  Response handle(const Request& request) const;
  /// The route a path is counted under in /metrics (Route::other: no route of the table).
  static Route route_of(const std::string& path);

 private:
  ModelStore& store_;
  ServeMetrics& metrics_;
  ApiLimits limits_;
  std::string admin_token_;
  ItemAttributes attributes_;
};

}  // namespace symgnn::serve
