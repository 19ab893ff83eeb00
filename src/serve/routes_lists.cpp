// The routes of a model's lists and scores (route_handlers.h): GET and POST /v1/recommend
// (trained users, a new user, a trained user's fresh ratings; filters), GET and POST
// /v1/rank (the candidates in the model's order) and POST /v1/predict.
#include <algorithm>
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "infer/cold_lists.h"
#include "serve/api_request.h"
#include "serve/new_user.h"
#include "serve/route_handlers.h"
#include "symgnn/error.h"
#include "symgnn/item_filter.h"
#include "symgnn/recommend.h"

using nlohmann::json;

namespace symgnn::serve {

namespace {

/// A list as JSON: the items best first, each with its predicted rating (the order is the
/// ranking's, "ranked_by" in the answer, which for a ranker or a ranking model is not the
/// order of the predicted ratings). A model of interactions predicts no rating, so its items
/// carry none, as `symgnn recommend` writes none (src/cli/cmd_recommend.cpp).
json list_json(const ServedModel& m, const TrainedModel& model, const UserRecommendations& r) {
  json items = json::array();
  const bool rated = !model.dataset().implicit();
  for (size_t k = 0; k < r.items.size(); ++k) {
    items.push_back(item_entry(m, model, r.items[k], "prediction", r.scores[k]));
    if (!rated) items.back().erase("prediction");
  }
  return items;
}

/// Beside each listed item, who among the people linked to the user rated it
/// ("linked_raters": [{"user": ID, "rating": R}, ...], from `parts_of(item)`): the page's "2
/// people you follow rated it". Nothing where the model has no user graph.
void add_linked_raters(json& items, const TrainedModel& model, const std::vector<int64_t>& listed,
                       const std::function<std::vector<infer::ColdPart>(int64_t)>& parts_of) {
  const Dataset& ds = model.dataset();
  if (ds.users.graph.size() == 0) return;
  for (size_t k = 0; k < listed.size() && k < items.size(); ++k) {
    json raters = json::array();
    for (const infer::ColdPart& p : parts_of(listed[k]))
      raters.push_back({{"user", ds.users.id_of(p.user)}, {"rating", p.rating}});
    items[k]["linked_raters"] = std::move(raters);
  }
}

/// add_linked_raters of `user`, by their links in the model's user graph.
void add_linked_raters(json& items, const TrainedModel& model, int64_t user,
                       const std::vector<int64_t>& listed) {
  const infer::ColdLists& index = model.cold_lists();
  add_linked_raters(items, model, listed, [&](int64_t item) { return index.linked_parts(user, item, 0.0); });
}

/// add_linked_raters of a new user who is no user of `model` (a folded one), by their follows.
void add_linked_raters(json& items, const TrainedModel& model, const std::vector<int64_t>& follows,
                       const std::vector<int64_t>& listed) {
  const infer::ColdLists& index = model.cold_lists();
  add_linked_raters(items, model, listed,
                    [&](int64_t item) { return index.linked_parts_among(follows, item); });
}

/// An empty filter whose messages name its keys as the request spells them: within `quote`
/// ("" for the query's keys, "\"" for a JSON body's).
ItemFilterSpec spec_named(const std::string& quote) {
  ItemFilterSpec spec;
  spec.exclude_name = quote + "exclude" + quote;
  spec.items_name = quote + "items" + quote;
  spec.where_name = quote + "where" + quote;
  spec.attributes_name = "a server started with --item-attributes FILE";
  return spec;
}

/// The filter a request asks for (symgnn/item_filter.h): the query's exclude=ID,ID,
/// items=ID,ID and where=key=value (each repeatable; ids with commas need the POST form).
ItemFilterSpec query_filter(const Request& q) {
  ItemFilterSpec spec = spec_named("");
  const auto each = [&](const char* key, const std::function<void(const std::string&)>& f) {
    const auto [a, b] = q.params.equal_range(key);
    for (auto it = a; it != b; ++it) f(it->second);
  };
  const auto ids = [](const std::string& list, std::vector<std::string>& out) {
    for (size_t s = 0, e; s <= list.size(); s = e + 1) {
      e = std::min(list.find(',', s), list.size());
      if (e > s) out.push_back(list.substr(s, e - s));
    }
  };
  each("exclude", [&](const std::string& v) { ids(v, spec.exclude); });
  each("items", [&](const std::string& v) {
    spec.has_items = true;
    ids(v, spec.items);
  });
  each("where", [&](const std::string& v) {
    try {
      add_where(v, spec);
    } catch (const ConfigError&) {
      throw ApiError{400, "where = " + quoted(v) + ": expected key=value (e.g. where=category=books)"};
    }
  });
  return spec;
}

/// The filter of a JSON body: "exclude": [ID, ...], "items": [ID, ...], "where": {"key": "value"}.
ItemFilterSpec body_filter(const json& body) {
  ItemFilterSpec spec = spec_named("\"");
  for (const auto& [key, list] : {std::pair<const char*, std::vector<std::string>*>{"exclude", &spec.exclude},
                                  std::pair<const char*, std::vector<std::string>*>{"items", &spec.items}}) {
    if (!body.contains(key)) continue;
    if (!body[key].is_array())
      throw ApiError{400, "\"" + std::string(key) + "\": must be an array of item ids"};
    for (const json& id : body[key]) list->push_back(id_text(id, "\"" + std::string(key) + "\"[]"));
  }
  spec.has_items = body.contains("items");
  if (body.contains("where")) {
    if (!body["where"].is_object())
      throw ApiError{400, "\"where\": must be an object {\"key\": \"value\", ...}"};
    for (const auto& [key, value] : body["where"].items()) {
      if (!value.is_string() && !value.is_number())
        throw ApiError{400, "\"where\"." + key + ": must be a string or a number"};
      spec.where.emplace_back(key, value.is_string() ? value.get<std::string>() : value.dump());
    }
  }
  return spec;
}

/// `spec` against `model`; the library's sentence as a 400.
ItemFilter resolved(const TrainedModel& model, const ItemFilterSpec& spec, const ItemAttributes& attributes) {
  try {
    return make_item_filter(model, spec, &attributes);
  } catch (const ConfigError& e) {
    throw ApiError{
        400, replaced(e.what(), "(--item-attributes FILE)", "(start serve with --item-attributes FILE)")};
  } catch (const DataError& e) {
    throw ApiError{400, e.what()};
  }
}

std::vector<UserRecommendations> lists(const TrainedModel& model, const std::vector<int64_t>& users,
                                       int64_t k, bool include_seen, const ItemFilter& filter = {}) {
  RecommendOptions o;
  o.k = k;
  o.include_seen = include_seen;
  o.filter = filter;
  try {
    return recommend(model, users, o);
  } catch (const ConfigError& e) {
    throw ApiError{400, for_client(e.what())};  // a user without any candidate
  }
}

/// A list shorter than k (the user's candidates ran out): "note" says so, "returned" how many.
void add_short_note(json& out, const UserRecommendations& r, const std::string& user_id, int64_t k,
                    const ItemFilter& filter) {
  if (r.candidates < 0) return;
  out["note"] = short_list_note(r, user_id, k, filter.what);
  out["returned"] = r.items.size();
}

json header(const ServedModel& m) {
  return {{"model", m.name}, {"version", m.version}, {"ranked_by", m.info["ranked_by"]}};
}

/// A new user's list: new_user's model, the body's filter.
Response new_user_recommend(const json& body, const ServedModel& m, int64_t k, bool include_seen,
                            const ApiLimits& limits, const ItemAttributes& attributes) {
  const NewUser n = new_user(body, m, limits);
  const TrainedModel& model = n.user.model();
  ItemFilter filter;
  const auto r = [&] {
    try {
      filter = resolved(model, body_filter(body), attributes);
      RecommendOptions o;
      o.k = k;
      o.include_seen = include_seen;
      o.filter = filter;
      try {
        return recommend(n.user, o);
      } catch (const ConfigError& e) {
        throw ApiError{400, for_client(e.what())};  // a user without any candidate
      }
    } catch (const ApiError& e) {
      throw ApiError{e.status, n.as_sent(e.message)};
    }
  }();
  json out = header(m);
  out["ranked_by"] = n.user.ranked_by;
  out["user"] = n.known.empty() ? json(nullptr) : json(n.known);
  out["new_user_ratings"] = n.ratings;
  out["items"] = list_json(m, model, r);
  // Where a new user gave whom they follow: who of those people rated each item (the follows
  // of a folded user; the grown model's links of a grown one).
  if (n.user.folded() && !n.user.linked.empty())
    add_linked_raters(out["items"], model, n.user.linked, r.items);
  else if (!n.user.folded() && n.known.empty() && body.contains("edges"))
    add_linked_raters(out["items"], model, n.user.user, r.items);
  // Named as the client sent them: "the new user", or the trained user refreshed.
  add_short_note(out, r, n.user.id, k, filter);
  if (out.contains("note")) out["note"] = n.as_sent(out["note"].get<std::string>());
  return json_response(200, out);
}

/// The candidates of one user in the model's order (rank_items, symgnn/recommend.h), as JSON:
/// `rank` orders the item indices.
json ranked(const ServedModel& m, const TrainedModel& model, const std::vector<std::string>& ids,
            const std::string& what, const ApiLimits& limits,
            const std::function<UserRecommendations(const std::vector<int64_t>&)>& rank,
            const std::string& ranked_by) {
  if (ids.empty()) throw ApiError{400, what + ": give the candidates, at least one item id"};
  if (static_cast<int64_t>(ids.size()) > limits.max_pairs)
    throw ApiError{400, what + ": " + std::to_string(ids.size()) + " items, more than the " +
                            std::to_string(limits.max_pairs) + " one call takes"};
  std::vector<int64_t> items;
  for (const std::string& id : ids) {
    const int64_t i = m.items.find(id);  // the sentence of the CLI's --items (symgnn/item_filter.h)
    if (i < 0) throw ApiError{400, what + ": " + quoted(id) + " is no item of the model"};
    items.push_back(i);
  }
  UserRecommendations r;
  try {
    r = rank(items);
  } catch (const ConfigError& e) {
    throw ApiError{400, what + ": " + std::string(e.what()).substr(6)};  // "rank: item 'x' is given twice"
  }
  json out = header(m);
  out["ranked_by"] = ranked_by;
  out["items"] = list_json(m, model, r);
  return out;
}

/// ranked() for trained user `user` of the served model.
json ranked(const ServedModel& m, int64_t user, const std::vector<std::string>& ids, const std::string& what,
            const ApiLimits& limits) {
  const TrainedModel& model = *m.model;
  return ranked(
      m, model, ids, what, limits,
      [&](const std::vector<int64_t>& items) { return rank_items(model, user, items); },
      model.ranked_by(user));
}

}  // namespace

Response get_recommend(const Request& q, const RouteContext& c) {
  const std::string* user = param(q, "user");
  if (!user) throw ApiError{400, "GET /v1/recommend needs ?user=ID"};
  const int64_t k = query_k(q, c.limits);
  const std::string* name = param(q, "model");
  const auto m = model_named(c.store, name ? *name : "");
  const bool seen = parse_flag(param(q, "include_seen"), "include_seen");
  const int64_t u = user_index(*m, *user);
  const ItemFilter filter = resolved(*m->model, query_filter(q), c.attributes);
  const auto r = lists(*m->model, {u}, k, seen, filter);
  json out = header(*m);
  out["ranked_by"] = m->model->ranked_by(u);  // a user without ratings: infer/cold_lists.h
  out["user"] = *user;
  out["items"] = list_json(*m, *m->model, r.front());
  add_linked_raters(out["items"], *m->model, u, r.front().items);
  add_short_note(out, r.front(), *user, k, filter);
  return json_response(200, out);
}

Response post_recommend(const Request& q, const RouteContext& c) {
  const json body = parse_body(q);
  const auto m = model_named(c.store, body_model(q, body));
  const int64_t k = json_k(body, c.limits.max_k);
  bool include_seen = false;
  if (body.contains("include_seen")) {
    if (!body["include_seen"].is_boolean()) throw ApiError{400, "\"include_seen\": must be true or false"};
    include_seen = body["include_seen"].get<bool>();
  }
  // A new user: their ratings, or follows alone ("edges" without ratings).
  const bool new_user_body = body.contains("ratings") || (body.contains("edges") && !body.contains("users"));
  if (new_user_body == body.contains("users"))
    throw ApiError{
        400,
        "give either \"users\": [ID, ...] or \"ratings\": [{\"item\": ID, \"rating\": R}, ...] (a new "
        "user, with \"edges\" for whom they follow; \"edges\" alone for a new user known by follows; with "
        "\"user\": ID, that user's fresh ratings)"};
  if (body.contains("user") && !body.contains("ratings"))
    throw ApiError{400,
                   "\"user\" goes with \"ratings\" (that user's fresh ratings); for lists give \"users\""};
  if (new_user_body) return new_user_recommend(body, *m, k, include_seen, c.limits, c.attributes);
  const json& users = body["users"];
  if (!users.is_array() || users.empty()) throw ApiError{400, "\"users\": must be a non-empty array of ids"};
  if (static_cast<int64_t>(users.size()) > c.limits.max_users)
    throw ApiError{400, "\"users\": " + std::to_string(users.size()) + " users, more than the " +
                            std::to_string(c.limits.max_users) + " one call takes"};
  std::vector<int64_t> index;
  std::vector<std::string> ids;
  for (const json& u : users) {
    ids.push_back(id_text(u, "\"users\"[]"));
    index.push_back(user_index(*m, ids.back()));
  }
  const ItemFilter filter = resolved(*m->model, body_filter(body), c.attributes);
  const auto r = lists(*m->model, index, k, include_seen, filter);
  json out = header(*m);
  out["results"] = json::array();
  for (size_t n = 0; n < r.size(); ++n) {
    json one = {{"user", ids[n]},
                {"ranked_by", m->model->ranked_by(index[n])},
                {"items", list_json(*m, *m->model, r[n])}};
    add_short_note(one, r[n], ids[n], k, filter);
    out["results"].push_back(std::move(one));
  }
  return json_response(200, out);
}

Response post_predict(const Request& q, const RouteContext& c) {
  const json body = parse_body(q);
  const auto m = model_named(c.store, body_model(q, body));
  if (m->model->dataset().implicit())
    throw ApiError{409, "model " + m->name +
                            " was trained on interactions (data.feedback = " + m->model->dataset().feedback +
                            "): it ranks items and predicts no rating; use " + "/v1/recommend or /v1/rank"};
  if (!body.contains("pairs") || !body["pairs"].is_array() || body["pairs"].empty())
    throw ApiError{400, "\"pairs\": must be a non-empty array of {\"user\": ID, \"item\": ID}"};
  const json& pairs = body["pairs"];
  if (static_cast<int64_t>(pairs.size()) > c.limits.max_pairs)
    throw ApiError{400, "\"pairs\": " + std::to_string(pairs.size()) + " pairs, more than the " +
                            std::to_string(c.limits.max_pairs) + " one call takes"};
  std::vector<int64_t> users, items;
  std::vector<std::pair<std::string, std::string>> ids;
  for (const json& p : pairs) {
    std::string u, i;
    if (p.is_object() && p.contains("user") && p.contains("item")) {
      u = id_text(p["user"], "\"pairs\"[].user");
      i = id_text(p["item"], "\"pairs\"[].item");
    } else if (p.is_array() && p.size() == 2) {
      u = id_text(p[0], "\"pairs\"[][0]");
      i = id_text(p[1], "\"pairs\"[][1]");
    } else {
      throw ApiError{400, "\"pairs\": each entry must be {\"user\": ID, \"item\": ID} or [USER, ITEM]"};
    }
    users.push_back(user_index(*m, u));
    items.push_back(item_index(*m, i));
    ids.emplace_back(u, i);
  }
  const std::vector<float> predicted = m->model->predict(users, items);
  json out = {{"model", m->name}, {"version", m->version}, {"predictions", json::array()}};
  for (size_t n = 0; n < ids.size(); ++n)
    out["predictions"].push_back(
        {{"user", ids[n].first}, {"item", ids[n].second}, {"prediction", predicted[n]}});
  return json_response(200, out);
}

Response get_rank(const Request& q, const RouteContext& c) {
  const std::string* user = param(q, "user");
  if (!user) throw ApiError{400, "GET /v1/rank needs ?user=ID&items=ID,ID,..."};
  const std::string* name = param(q, "model");
  const auto m = model_named(c.store, name ? *name : "");
  const ItemFilterSpec spec = query_filter(q);
  if (!spec.exclude.empty() || !spec.where.empty())
    throw ApiError{400, "GET /v1/rank takes items=ID,ID,...: the candidates are given, not filtered"};
  json out = ranked(*m, user_index(*m, *user), spec.items, "items", c.limits);
  out["user"] = *user;
  return json_response(200, out);
}

Response post_rank(const Request& q, const RouteContext& c) {
  const json body = parse_body(q);
  const auto m = model_named(c.store, body_model(q, body));
  const bool new_user_body = body.contains("ratings") || (body.contains("edges") && !body.contains("user"));
  if (!new_user_body && !body.contains("user"))
    throw ApiError{
        400,
        "give \"user\": ID, \"ratings\": [{\"item\": ID, \"rating\": R}, ...] (a new user; "
        "\"edges\" alone for one known by follows) or both (a user's fresh ratings), and \"items\""};
  if (!body.contains("items") || !body["items"].is_array())
    throw ApiError{400, "\"items\": must be an array of the candidate item ids"};
  std::vector<std::string> ids;
  for (const json& id : body["items"]) ids.push_back(id_text(id, "\"items\"[]"));
  if (!new_user_body) {
    const std::string user = id_text(body["user"], "\"user\"");
    json out = ranked(*m, user_index(*m, user), ids, "\"items\"", c.limits);
    out["user"] = user;
    return json_response(200, out);
  }
  const NewUser n = new_user(body, *m, c.limits);
  json out = ranked(
      *m, n.user.model(), ids, "\"items\"", c.limits,
      [&](const std::vector<int64_t>& items) { return rank_items(n.user, items); }, n.user.ranked_by);
  out["user"] = n.known.empty() ? json(nullptr) : json(n.known);
  out["new_user_ratings"] = n.ratings;
  return json_response(200, out);
}

}  // namespace symgnn::serve
