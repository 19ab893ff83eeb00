// The routes that look inside a model (route_handlers.h): GET /v1/similar (the nearest
// items or users), GET /v1/explain (why an item is scored so) and GET /v1/users (what the
// model learned from, and the page's user picker).
#include <algorithm>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "infer/cold_lists.h"
#include "serve/api_request.h"
#include "serve/route_handlers.h"
#include "symgnn/error.h"
#include "symgnn/explain.h"

using nlohmann::json;

namespace symgnn::serve {

/// GET /v1/similar?item=ID|user=ID&k=10[&model=NAME]: the nearest nodes of the same side
/// by the model's representations (TrainedModel::similar).
Response get_similar(const Request& q, const RouteContext& c) {
  const std::string* item = param(q, "item");
  const std::string* user = param(q, "user");
  if ((item != nullptr) == (user != nullptr))
    throw ApiError{400, "GET /v1/similar needs either ?item=ID or ?user=ID"};
  const int64_t k = query_k(q, c.limits);
  const std::string* name = param(q, "model");
  const auto m = model_named(c.store, name ? *name : "");
  const TrainedModel& model = *m->model;
  json out = {{"model", m->name}, {"version", m->version}};
  // The nearest k of the other nodes of that side: a k past them is said, not shortened.
  const int64_t others = (item ? model.items() : model.users()) - 1;
  if (k > others)
    throw ApiError{400, "k = " + std::to_string(k) + ": the model has " + std::to_string(others) + " other " +
                            (item ? "items" : "users") + " to compare with"};
  if (item) {
    const int64_t i = item_index(*m, *item);
    const auto near = model.similar(NodeSide::items, i, k);
    out["item"] = *item;
    const std::string& own = item_name(*m, i);
    if (!own.empty()) out["name"] = own;
    out["by"] = model.similarity_basis(NodeSide::items);
    out["items"] = json::array();
    for (const auto& s : near)
      out["items"].push_back(item_entry(*m, model, s.index, "similarity", s.similarity));
    if (static_cast<int64_t>(near.size()) < k)
      out["note"] = "fewer than k = " + std::to_string(k) + ": " + std::to_string(near.size()) +
                    " items share a rater with this one";
  } else {
    const int64_t u = user_index(*m, *user);
    const auto near = model.similar(NodeSide::users, u, k);
    out["user"] = *user;
    out["by"] = model.similarity_basis(NodeSide::users);
    out["users"] = json::array();
    for (const auto& s : near)
      out["users"].push_back({{"user", model.dataset().users.id_of(s.index)}, {"similarity", s.similarity}});
    if (static_cast<int64_t>(near.size()) < k)
      out["note"] = "fewer than k = " + std::to_string(k) + ": " + std::to_string(near.size()) +
                    " users share a rated item with this one";
  }
  return json_response(200, out);
}

/// GET /v1/explain?user=ID&item=ID[&target=list|rating][&top=5][&candidates=24][&model=NAME]:
/// the parts of the score (symgnn/explain.h), items named where the model has names.
Response get_explain(const Request& q, const RouteContext& c) {
  const std::string* user = param(q, "user");
  const std::string* item = param(q, "item");
  if (!user || !item) throw ApiError{400, "GET /v1/explain needs ?user=ID&item=ID"};
  const std::string* name = param(q, "model");
  const auto m = model_named(c.store, name ? *name : "");
  const TrainedModel& model = *m->model;
  ExplainOptions opt;
  if (const std::string* t = param(q, "target")) {
    if (*t != "list" && *t != "rating")
      throw ApiError{400, "target = " + quoted(*t) + ": must be list or rating"};
    opt.target = *t;
  }
  opt.top = query_count(q, "top", opt.top, 1, 100);
  opt.candidates = query_count(q, "candidates", opt.candidates, 1, 200);
  opt.item_name = [&](int64_t i) {
    const std::string& n = item_name(*m, i);
    return n.empty() ? n : "'" + n + "'";
  };
  const int64_t u = user_index(*m, *user), i = item_index(*m, *item);
  json out;
  try {
    out = explanation_json(explain(model, u, i, opt));
  } catch (const ConfigError& e) {
    throw ApiError{400, e.what()};
  }
  out["model_name"] = m->name;
  out["version"] = m->version;
  const std::string& own = item_name(*m, i);
  if (!own.empty()) out["name"] = own;
  return json_response(200, out);
}

/// GET /v1/users?user=ID[&model=NAME]: the ratings the model learned from for that user,
/// highest first; GET /v1/users[?offset=N&limit=M]: a page of user ids, in index order (the
/// page's user picker).
Response get_users(const Request& q, const RouteContext& c) {
  const std::string* name = param(q, "model");
  const auto m = model_named(c.store, name ? *name : "");
  const TrainedModel& model = *m->model;
  json out = {{"model", m->name}, {"version", m->version}};
  if (const std::string* user = param(q, "user")) {
    const int64_t u = user_index(*m, *user);
    const Dataset& ds = model.dataset();
    std::vector<std::pair<float, int64_t>> rated;
    for (const RatingList* r : {&ds.train, &ds.validation})
      for (size_t e = 0; e < r->size(); ++e)
        if (r->user[e] == u) rated.emplace_back(r->value[e], r->item[e]);
    std::sort(rated.begin(), rated.end(), [](const auto& a, const auto& b) {
      return a.first != b.first ? a.first > b.first : a.second < b.second;
    });
    out["user"] = *user;
    out["ratings"] = json::array();
    for (const auto& [v, i] : rated) out["ratings"].push_back(item_entry(*m, model, i, "rating", v));
    // The people linked to the user in the user graph (the model keeps it undirected: a
    // follow either way), for the page's follows; absent where the model has no user graph.
    if (ds.users.graph.size() > 0) {
      out["linked"] = json::array();
      for (const int64_t v : model.cold_lists().neighbours(u)) out["linked"].push_back(ds.users.id_of(v));
    }
    return json_response(200, out);
  }
  const int64_t total = model.users();
  const int64_t offset = query_count(q, "offset", 0, 0, total);
  const int64_t limit = query_count(q, "limit", 100, 0, 1000);
  out["total"] = total;
  out["offset"] = offset;
  out["users"] = json::array();
  for (int64_t u = offset; u < std::min(total, offset + limit); ++u)
    out["users"].push_back(model.dataset().users.id_of(u));
  return json_response(200, out);
}

}  // namespace symgnn::serve
