// The admin routes (route_handlers.h), which change what is served: POST /v1/graph/edges
// and POST /v1/admin/reload. Api::handle has checked the admin token (routes.h).
#include <algorithm>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "serve/api_request.h"
#include "serve/route_handlers.h"
#include "symgnn/error.h"
#include "symgnn/graph_edit.h"

using nlohmann::json;

namespace symgnn::serve {

/// POST /v1/graph/edges {"edits": [{"side": "user", "op": "add", "a": ID, "b": ID, "weight": 1,
/// "create": false, "features": [...]}, ...]}: one batch of graph edits (symgnn/graph_edit.h;
/// create: an unknown end joins as a new node, with features where given), journalled, then
/// served (ModelStore::edit_graph).
Response post_graph_edges(const Request& q, const RouteContext& c) {
  const json body = parse_body(q);
  const auto m = model_named(c.store, body_model(q, body));
  if (!body.contains("edits") || !body["edits"].is_array() || body["edits"].empty())
    throw ApiError{400,
                   "\"edits\": must be a non-empty list of {\"side\", \"op\", \"a\", \"b\"[, \"weight\"]}"};
  std::vector<Delta::Edge> edits;
  for (size_t k = 0; k < body["edits"].size(); ++k) {
    const json& e = body["edits"][k];
    const std::string at = "edits[" + std::to_string(k) + "]";
    if (!e.is_object()) throw ApiError{400, at + ": must be an object"};
    std::string side, op = "add", a, b;  // add by default
    for (const auto& [key, field] :
         {std::pair<const char*, std::string*>{"side", &side}, {"op", &op}, {"a", &a}, {"b", &b}}) {
      if (!e.contains(key)) {
        if (std::string(key) == "op") continue;
        throw ApiError{400, at + ": no \"" + key + "\""};
      }
      if (!e[key].is_string()) throw ApiError{400, at + "." + key + ": must be a string"};
      *field = e[key].get<std::string>();
    }
    Delta::Edge g = [&] {
      try {
        return graph_edit(side, op, a, b);
      } catch (const ConfigError& error) {
        throw ApiError{400, at + ": " + error.what()};
      }
    }();
    if (e.contains("weight")) {
      if (!e["weight"].is_number()) throw ApiError{400, at + ".weight: must be a number"};
      g.weight = e["weight"].get<double>();
    }
    if (e.contains("create")) {
      if (!e["create"].is_boolean()) throw ApiError{400, at + ".create: must be true or false"};
      g.create = e["create"].get<bool>();
    }
    if (e.contains("features")) {
      const json& f = e["features"];
      if (!f.is_array() || !std::all_of(f.begin(), f.end(), [](const json& v) { return v.is_number(); }))
        throw ApiError{400, at + ".features: must be a list of numbers"};
      g.features = f.get<std::vector<double>>();
    }
    edits.push_back(std::move(g));
  }
  std::shared_ptr<const ServedModel> now;
  try {
    now = c.store.edit_graph(m->name, edits);
  } catch (const ConfigError& e) {
    throw ApiError{400, e.what()};
  } catch (const DataError& e) {
    // The directory's journal refuses any edit as it is (cut short by a crash, replaced):
    // the request was fine, the folder's state conflicts with it; nothing was written.
    throw ApiError{409, e.what()};
  }
  return json_response(200, {{"model", now->name},
                             {"version", now->version},
                             {"edits", edits.size()},
                             {"journal_records", now->journal_records}});
}

/// POST /v1/admin/reload[?model=NAME]: the model, or every model, read again from its directory.
Response post_reload(const Request& q, const RouteContext& c) {
  const std::string* name = param(q, "model");
  if (name) model_named(c.store, *name);
  const auto outcomes = c.store.reload(name ? *name : "");
  json out = {{"reloaded", json::array()}};
  bool all_ok = true;
  for (const auto& r : outcomes) {
    out["reloaded"].push_back({{"model", r.name}, {"ok", r.ok}, {"version", r.version}, {"error", r.error}});
    all_ok = all_ok && r.ok;
  }
  // A failed reload keeps the old model serving; the status says the reload failed.
  return json_response(all_ok ? 200 : 500, out);
}

}  // namespace symgnn::serve
