// The handlers of serve's routes, one per route and method, as the table in routes.h names
// them: each answers one request or throws ApiError (api_request.h). Api::handle has checked
// the method and, for an admin route, the token before a handler runs.
//   routes_status.cpp   the server and what it serves: /healthz, /v1/models, /metrics, the page
//   routes_lists.cpp    a model's lists and scores: /v1/recommend, /v1/rank, /v1/predict
//   routes_inspect.cpp  inside a model: /v1/similar, /v1/explain, /v1/users
//   routes_admin.cpp    what changes the served models: /v1/graph/edges, /v1/admin/reload
#pragma once

#include <string>

#include "serve/api.h"

namespace symgnn::serve {

/// What a handler may use beside the request: the Api's members.
struct RouteContext {
  ModelStore& store;
  ServeMetrics& metrics;
  const ApiLimits& limits;
  const std::string& admin_token;  // "" : admin routes off
  const ItemAttributes& attributes;
};

using RouteHandler = Response (*)(const Request& q, const RouteContext& c);

Response get_healthz(const Request& q, const RouteContext& c);
Response get_models(const Request& q, const RouteContext& c);
Response get_metrics(const Request& q, const RouteContext& c);
Response get_page(const Request& q, const RouteContext& c);

Response get_recommend(const Request& q, const RouteContext& c);
Response post_recommend(const Request& q, const RouteContext& c);
Response get_rank(const Request& q, const RouteContext& c);
Response post_rank(const Request& q, const RouteContext& c);
Response post_predict(const Request& q, const RouteContext& c);

Response get_similar(const Request& q, const RouteContext& c);
Response get_explain(const Request& q, const RouteContext& c);
Response get_users(const Request& q, const RouteContext& c);

Response post_graph_edges(const Request& q, const RouteContext& c);
Response post_reload(const Request& q, const RouteContext& c);

}  // namespace symgnn::serve
