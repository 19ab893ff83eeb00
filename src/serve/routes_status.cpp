// The routes about the server and what it serves (route_handlers.h): GET /healthz,
// GET /v1/models, GET /metrics and the page at /.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "serve/api_request.h"
#include "serve/page_html.h"
#include "serve/route_handlers.h"

using nlohmann::json;

namespace symgnn::serve {

Response get_healthz(const Request&, const RouteContext& c) {
  json out = {{"status", "ok"}, {"models", json::array()}};
  for (const auto& m : c.store.all()) out["models"].push_back({{"name", m->name}, {"version", m->version}});
  return json_response(200, out);
}

/// GET /v1/models: each model's card, and what this server offers beside them: whether the
/// admin routes (graph edits) are on, the item attribute keys `where` can filter by.
Response get_models(const Request&, const RouteContext& c) {
  json out = {{"models", json::array()},
              {"admin_routes", !c.admin_token.empty()},
              {"item_attribute_keys", c.attributes.keys}};
  for (const auto& m : c.store.all()) {
    json e = m->info;
    e["version"] = m->version;
    e["loaded_at"] = m->loaded_at;
    out["models"].push_back(e);
  }
  return json_response(200, out);
}

/// GET /metrics: Prometheus text (serve_metrics.h), the served models' versions beside the counters.
Response get_metrics(const Request&, const RouteContext& c) {
  std::vector<std::pair<std::string, int64_t>> versions;
  for (const auto& m : c.store.all()) versions.emplace_back(m->name, m->version);
  Response out;
  out.body = c.metrics.prometheus_text(versions);
  out.content_type = "text/plain; version=0.0.4";
  return out;
}

/// GET /: the page (src/serve/page/index.html), compiled in.
Response get_page(const Request&, const RouteContext&) {
  Response out;
  out.body = kPageHtml;
  out.content_type = "text/html; charset=utf-8";
  return out;
}

}  // namespace symgnn::serve
