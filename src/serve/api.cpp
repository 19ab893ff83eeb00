#include "serve/api.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <exception>
#include <functional>
#include <iterator>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "infer/cold_lists.h"
#include "serve/page_html.h"
#include "symgnn/error.h"
#include "symgnn/explain.h"
#include "symgnn/graph_edit.h"
#include "symgnn/recommend.h"

using nlohmann::json;

namespace symgnn::serve {

namespace {

/// A refusal with its HTTP status; handle() turns it into {"error": message}.
struct ApiError {
  int status;
  std::string message;
};

Response json_response(int status, const json& body) {
  Response r;
  r.status = status;
  // Ids and paths come from the client as bytes: text that is not UTF-8 (an id "%FF", a
  // message cut inside a character) is answered with U+FFFD in its place instead of making
  // the dump throw (found by fuzz/fuzz_serve_api.cpp).
  r.body = body.dump(-1, ' ', false, json::error_handler_t::replace);
  return r;
}

std::string quoted(const std::string& s) {
  return "'" + (s.size() > 60 ? s.substr(0, 60) + "..." : s) + "'";
}

/// The query's one value for `key` (nullptr: none). A key given twice (?k=5&k=10) is
/// refused rather than one of its values taken; the repeatable keys (exclude, items, where)
/// are read apart (query_filter).
const std::string* param(const Request& q, const std::string& key) {
  const auto [first, last] = q.params.equal_range(key);
  if (first == last) return nullptr;
  if (std::next(first) != last) throw ApiError{400, key + " is given more than once: give it once"};
  return &first->second;
}

/// The whole number the query gives for `key` (k, offset, limit), in [lo, hi]; `fallback`
/// when the query has none.
int64_t query_count(const Request& q, const std::string& key, int64_t fallback, int64_t lo, int64_t hi) {
  const std::string* text = param(q, key);
  if (!text) return fallback;
  const std::string range = std::to_string(lo) + " to " + std::to_string(hi);
  // At most 12 digits: stoll cannot overflow, and every bound here is far below.
  if (text->empty() || text->size() > 12 || text->find_first_not_of("0123456789") != std::string::npos)
    throw ApiError{400, key + " = " + quoted(*text) + ": must be a whole number from " + range};
  const int64_t v = std::stoll(*text);
  if (v < lo || v > hi) throw ApiError{400, key + " = " + *text + ": must be from " + range};
  return v;
}

/// ?k= of a list: 10 by default, at most --max-k.
int64_t query_k(const Request& q, const ApiLimits& limits) {
  return query_count(q, "k", 10, 1, limits.max_k);
}

int64_t json_k(const json& body, int64_t max_k) {
  if (!body.contains("k")) return 10;
  const json& k = body["k"];
  if (!k.is_number_integer())
    throw ApiError{400,
                   "\"k\": must be a whole number from 1 to " + std::to_string(max_k) + ", got " + k.dump()};
  const int64_t v = k.get<int64_t>();
  if (v < 1 || v > max_k)
    throw ApiError{400, "\"k\" = " + std::to_string(v) + ": must be from 1 to " + std::to_string(max_k)};
  return v;
}

bool parse_flag(const std::string* text, const std::string& key) {
  if (!text) return false;
  if (*text == "1" || *text == "true") return true;
  if (*text == "0" || *text == "false" || text->empty()) return false;
  throw ApiError{400, key + " = " + quoted(*text) + ": must be 1, 0, true or false"};
}

/// An id as JSON gives it: a string, or a whole number written as one.
std::string id_text(const json& v, const std::string& what) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_integer()) return std::to_string(v.get<int64_t>());
  throw ApiError{400, what + ": must be an id (a string or a whole number), got " + v.dump().substr(0, 60)};
}

std::shared_ptr<const ServedModel> model_named(const ModelStore& store, const std::string& name) {
  auto m = store.get(name);
  if (!m) throw ApiError{404, "no model named " + quoted(name)};
  return m;
}

/// The index of `id` among the model's users or items (`ids`, `what` naming which); 404 when unknown.
int64_t node_index(const ServedModel& m, const data::IdIndex& ids, const char* what, const std::string& id) {
  const int64_t n = ids.find(id);
  if (n < 0)
    throw ApiError{404, std::string("unknown ") + what + " " + quoted(id) + " (not in model " +
                            quoted(m.name) + "'s training data)"};
  return n;
}
int64_t user_index(const ServedModel& m, const std::string& id) {
  return node_index(m, m.users, "user", id);
}
int64_t item_index(const ServedModel& m, const std::string& id) {
  return node_index(m, m.items, "item", id);
}

json parse_body(const Request& q) {
  if (q.body.empty()) throw ApiError{400, "the request has no body: send a JSON object"};
  json body = json::parse(q.body, nullptr, /*allow_exceptions=*/false);
  if (body.is_discarded()) throw ApiError{400, "the body is not valid JSON"};
  if (!body.is_object()) throw ApiError{400, "the body must be a JSON object"};
  return body;
}

/// The model a POST names: "model" in its body or ?model= in its query (both: the same one).
std::string body_model(const Request& q, const json& body) {
  const std::string* in_query = param(q, "model");
  if (!body.contains("model")) return in_query ? *in_query : "";
  if (!body["model"].is_string()) throw ApiError{400, "\"model\": must be a model name (a string)"};
  const std::string in_body = body["model"].get<std::string>();
  if (in_query && *in_query != in_body)
    throw ApiError{400, "?model=" + quoted(*in_query) + " and the body's \"model\": " + quoted(in_body) +
                            " name different models: name one"};
  return in_body;
}

/// The item's display name where the served model has names (served_model.h), else "".
const std::string& item_name(const ServedModel& m, int64_t item) {
  static const std::string none;
  return static_cast<size_t>(item) < m.item_names.size() ? m.item_names[static_cast<size_t>(item)] : none;
}

/// {"item": ID, <key>: value[, "name": NAME]}
json item_entry(const ServedModel& m, const TrainedModel& model, int64_t item, const char* key,
                double value) {
  json e = {{"item", model.dataset().items.id_of(item)}, {key, value}};
  const std::string& name = item_name(m, item);
  if (!name.empty()) e["name"] = name;
  return e;
}

/// GET /v1/similar?item=ID|user=ID&k=10[&model=NAME]: the nearest nodes of the same side
/// by the model's representations (TrainedModel::similar).
Response get_similar(const Request& q, const ModelStore& store, const ApiLimits& limits) {
  const std::string* item = param(q, "item");
  const std::string* user = param(q, "user");
  if ((item != nullptr) == (user != nullptr))
    throw ApiError{400, "GET /v1/similar needs either ?item=ID or ?user=ID"};
  const int64_t k = query_k(q, limits);
  const std::string* name = param(q, "model");
  const auto m = model_named(store, name ? *name : "");
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
Response get_explain(const Request& q, const ModelStore& store) {
  const std::string* user = param(q, "user");
  const std::string* item = param(q, "item");
  if (!user || !item) throw ApiError{400, "GET /v1/explain needs ?user=ID&item=ID"};
  const std::string* name = param(q, "model");
  const auto m = model_named(store, name ? *name : "");
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
Response get_users(const Request& q, const ModelStore& store) {
  const std::string* name = param(q, "model");
  const auto m = model_named(store, name ? *name : "");
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

/// A list as JSON: the items best first, each with its predicted rating (the order is the
/// ranking's, "ranked_by" in the answer, which for a ranker or a ranking model is not the
/// order of the predicted ratings).
json list_json(const ServedModel& m, const TrainedModel& model, const UserRecommendations& r) {
  json items = json::array();
  for (size_t k = 0; k < r.items.size(); ++k)
    items.push_back(item_entry(m, model, r.items[k], "prediction", r.scores[k]));
  return items;
}

/// Beside each listed item, who among the people linked to `user` in the user graph rated
/// it ("linked_raters": [{"user": ID, "rating": R}, ...]): the page's "2 people you follow
/// rated it". Nothing where the model has no user graph.
void add_linked_raters(json& items, const TrainedModel& model, int64_t user,
                       const std::vector<int64_t>& listed) {
  const Dataset& ds = model.dataset();
  if (ds.users.graph.size() == 0) return;
  const infer::ColdLists& index = model.cold_lists();
  for (size_t k = 0; k < listed.size() && k < items.size(); ++k) {
    json raters = json::array();
    for (const infer::ColdPart& p : index.linked_parts(user, listed[k], 0.0))
      raters.push_back({{"user", ds.users.id_of(p.user)}, {"rating", p.rating}});
    items[k]["linked_raters"] = std::move(raters);
  }
}

/// `text` with every `from` replaced by `to`.
std::string replaced(std::string text, const std::string& from, const std::string& to) {
  for (size_t at = text.find(from); !from.empty() && at != std::string::npos;
       at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  return text;
}

/// A library message as a client of this API reads it: its fields, not the CLI's flags.
std::string for_client(const std::string& message) {
  return replaced(message, "see --include-seen", "see \"include_seen\"");
}

/// The filter a request asks for (symgnn/item_filter.h): the query's exclude=ID,ID,
/// items=ID,ID and where=key=value (each repeatable; ids with commas need the POST form).
ItemFilterSpec query_filter(const Request& q) {
  ItemFilterSpec spec;
  spec.exclude_name = "exclude";
  spec.items_name = "items";
  spec.where_name = "where";
  spec.attributes_name = "a server started with --item-attributes FILE";
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
  ItemFilterSpec spec;
  spec.exclude_name = "\"exclude\"";
  spec.items_name = "\"items\"";
  spec.where_name = "\"where\"";
  spec.attributes_name = "a server started with --item-attributes FILE";
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

Response get_recommend(const Request& q, const ModelStore& store, const ApiLimits& limits,
                       const ItemAttributes& attributes) {
  const std::string* user = param(q, "user");
  if (!user) throw ApiError{400, "GET /v1/recommend needs ?user=ID"};
  const int64_t k = query_k(q, limits);
  const std::string* name = param(q, "model");
  const auto m = model_named(store, name ? *name : "");
  const bool seen = parse_flag(param(q, "include_seen"), "include_seen");
  const int64_t u = user_index(*m, *user);
  const ItemFilter filter = resolved(*m->model, query_filter(q), attributes);
  const auto r = lists(*m->model, {u}, k, seen, filter);
  json out = header(*m);
  out["ranked_by"] = m->model->ranked_by(u);  // a user without ratings: infer/cold_lists.h
  out["user"] = *user;
  out["items"] = list_json(*m, *m->model, r.front());
  add_linked_raters(out["items"], *m->model, u, r.front().items);
  add_short_note(out, r.front(), *user, k, filter);
  return json_response(200, out);
}

/// A new user given by their ratings: the --new-ratings path of TrainedModel::load (no
/// retraining; the model computes the new user's representation from the ratings).
/// The model grown by a new user given by the body's "ratings" (the --new-ratings path of
/// TrainedModel::load: no retraining), with `as_sent` rewording the library's messages as
/// the client sent them.
struct NewUser {
  /// The user folded into the served model (TrainedModel::fold_in_user: their rows alone), or,
  /// where the model cannot fold them in, the model grown by them.
  std::optional<FoldedUser> folded;
  std::optional<TrainedModel> grown;
  std::function<std::string(const std::string&)> as_sent;
  size_t ratings = 0;
  int64_t index = 0;  // the user's index in `grown`
  std::string known;  // the trained user refreshed ("user" beside "ratings"); "" for a new user
};

NewUser new_user(const json& body, const ServedModel& m, const ApiLimits& limits) {
  const json& ratings = body["ratings"];
  if (!ratings.is_array() || ratings.empty())
    throw ApiError{400, "\"ratings\": must be a non-empty array of {\"item\": ID, \"rating\": R}"};
  if (static_cast<int64_t>(ratings.size()) > limits.max_new_ratings)
    throw ApiError{400, "\"ratings\": " + std::to_string(ratings.size()) + " ratings, more than the " +
                            std::to_string(limits.max_new_ratings) + " one call takes"};
  const std::string new_user = "symgnn-serve-new-user";
  if (m.users.find(new_user) >= 0) throw ApiError{500, "the model has a user named " + new_user};
  // "user" beside "ratings": a trained user's fresh ratings, folded into theirs (a refresh).
  const std::string known = body.contains("user") ? id_text(body["user"], "\"user\"") : "";
  const int64_t known_index = known.empty() ? -1 : user_index(m, known);
  // The ratings reach the model as rows in memory (a Delta, symgnn/delta.h): no file.
  NewNodes nodes;
  Delta& rows = nodes.rows;
  rows.ratings_name = "\"ratings\"";
  // A model of interactions (data/feedback.h) takes {"item": ID} alone: an interaction
  // (with "rating", the count a model of counts weighs).
  const bool interactions = m.model->dataset().implicit();
  for (const json& r : ratings) {
    if (!r.is_object() || !r.contains("item") || (!interactions && !r.contains("rating")))
      throw ApiError{400, "\"ratings\": each entry must be {\"item\": ID, \"rating\": R}"};
    const std::string item = id_text(r["item"], "\"ratings\"[].item");
    item_index(m, item);  // known items only: a new item has no ratings of other users to learn from
    if (interactions && !r.contains("rating")) {
      rows.ratings.push_back({known.empty() ? new_user : known, item, 1.0});
      continue;
    }
    if (!r["rating"].is_number() || !std::isfinite(r["rating"].get<double>()))
      throw ApiError{400, "\"ratings\"[].rating: must be a number, got " + r["rating"].dump().substr(0, 40)};
    const double v = r["rating"].get<double>();
    if (interactions && !(v > 0))
      throw ApiError{400, "count " + r["rating"].dump() + " of item " + quoted(item) + " is not positive"};
    if (!interactions && (v < m.model->rating_min() || v > m.model->rating_max()))
      throw ApiError{400, "rating " + r["rating"].dump() + " of item " + quoted(item) +
                              " is outside the model's range [" + json(m.model->rating_min()).dump() + ", " +
                              json(m.model->rating_max()).dump() + "]"};
    rows.ratings.push_back({known.empty() ? new_user : known, item, v});
  }
  // A new user's graph neighbours ("edges": [ID, ...] or [{"user": ID, "weight": W}, ...]) and
  // side features ("features": [F1, ...]), as rows in memory (NewNodes): the model's user
  // graph must come from a file and its users have features, as for --new-user-graph and
  // --new-user-features; the library's reader checks them.
  rows.edges_name = "\"edges\"";
  rows.features_name = "\"features\"";
  if (body.contains("edges") || body.contains("features")) {
    if (!known.empty())
      throw ApiError{400, "\"edges\" and \"features\" describe a new user; a trained user keeps theirs"};
    if (body.contains("edges")) {
      const json& edges = body["edges"];
      if (!edges.is_array() || static_cast<int64_t>(edges.size()) > limits.max_new_ratings)
        throw ApiError{400, "\"edges\": must be an array of at most " +
                                std::to_string(limits.max_new_ratings) +
                                " user ids or {\"user\": ID, \"weight\": W}"};
      std::set<std::string> linked;
      size_t at = 0;
      for (const json& e : edges) {
        const std::string where = "\"edges\"[" + std::to_string(at++) + "]";
        const bool object = e.is_object();
        if (object && (!e.contains("user") || (e.contains("weight") && !e["weight"].is_number())))
          throw ApiError{400, "\"edges\": each entry must be a user id or {\"user\": ID, \"weight\": W}"};
        const std::string to = id_text(object ? e["user"] : e, "\"edges\"[]");
        // An unknown id is 404 as everywhere else; a neighbour named twice is no weight doubled.
        if (m.model->user_index(to) < 0)
          throw ApiError{404, where + ": unknown user " + quoted(to) + " (not in the model's data)"};
        if (!linked.insert(to).second)
          throw ApiError{400, where + ": user " + quoted(to) + " is given twice: name each neighbour once"};
        rows.edges.emplace_back(new_user, to,
                                object && e.contains("weight") ? e["weight"].get<double>() : 1.0);
      }
    }
    if (body.contains("features")) {
      const json& f = body["features"];
      if (!f.is_array() || f.empty() ||
          !std::all_of(f.begin(), f.end(), [](const json& v) { return v.is_number(); }))
        throw ApiError{400,
                       "\"features\": must be a non-empty array of numbers (the new user's side features)"};
      Delta::Features row{new_user, {}};
      for (const json& v : f) row.values.push_back(v.get<double>());
      rows.features.push_back(std::move(row));
    }
  }
  // What the client sent, in the library's messages: "the new user" for the id it was given.
  const auto as_sent = [new_user](const std::string& message) {
    return replaced(for_client(message), "'" + new_user + "'", "the new user");
  };
  // The model in memory, the one this request started with: not the folder as it is now.
  if (std::optional<FoldedUser> folded = m.model->fold_in_user(nodes)) {
    const int64_t index = folded->user;
    return NewUser{std::move(folded), std::nullopt, as_sent, ratings.size(), index, known};
  }
  TrainedModel grown = [&] {
    try {
      return m.model->with_new_nodes(nodes);
    } catch (const ConfigError& e) {
      throw ApiError{400, as_sent(e.what())};
    } catch (const DataError& e) {
      // Errors of the edges and features name them already; the ratings' get the user.
      const std::string what = e.what();
      const bool named = what.rfind("\"edges\"", 0) == 0 || what.rfind("\"features\"", 0) == 0;
      throw ApiError{400, as_sent(named ? what : "the new user's ratings: " + what)};
    }
  }();
  const int64_t index = known.empty() ? grown.users() - 1 : known_index;
  return NewUser{std::nullopt, std::move(grown), as_sent, ratings.size(), index, known};
}

/// A new user's list: new_user's model, the body's filter.
Response new_user_recommend(const json& body, const ServedModel& m, int64_t k, bool include_seen,
                            const ApiLimits& limits, const ItemAttributes& attributes) {
  const NewUser n = new_user(body, m, limits);
  const int64_t u = n.index;
  const TrainedModel& model = n.grown ? *n.grown : *m.model;
  ItemFilter filter;
  const auto r = [&] {
    try {
      filter = resolved(model, body_filter(body), attributes);
      if (!n.folded) return lists(model, {u}, k, include_seen, filter).front();
      RecommendOptions o;
      o.k = k;
      o.include_seen = include_seen;
      o.filter = filter;
      try {
        return recommend_folded(model, *n.folded, o);
      } catch (const ConfigError& e) {
        throw ApiError{400, for_client(e.what())};
      }
    } catch (const ApiError& e) {
      throw ApiError{e.status, n.as_sent(e.message)};
    }
  }();
  json out = header(m);
  out["ranked_by"] = n.folded ? n.folded->ranked_by : model.ranked_by(u);
  out["user"] = n.known.empty() ? json(nullptr) : json(n.known);
  out["new_user_ratings"] = n.ratings;
  out["items"] = list_json(m, model, r);
  // Named as the client sent them: "the new user", or the trained user refreshed.
  add_short_note(out, r, n.folded ? n.folded->id : model.dataset().users.id_of(u), k, filter);
  if (out.contains("note")) out["note"] = n.as_sent(out["note"].get<std::string>());
  return json_response(200, out);
}

Response post_recommend(const Request& q, const ModelStore& store, const ApiLimits& limits,
                        const ItemAttributes& attributes) {
  const json body = parse_body(q);
  const auto m = model_named(store, body_model(q, body));
  const int64_t k = json_k(body, limits.max_k);
  bool include_seen = false;
  if (body.contains("include_seen")) {
    if (!body["include_seen"].is_boolean()) throw ApiError{400, "\"include_seen\": must be true or false"};
    include_seen = body["include_seen"].get<bool>();
  }
  if (body.contains("ratings") == body.contains("users"))
    throw ApiError{
        400,
        "give either \"users\": [ID, ...] or \"ratings\": [{\"item\": ID, \"rating\": R}, ...] (a new "
        "user; with \"user\": ID, that user's fresh ratings)"};
  if (body.contains("user") && !body.contains("ratings"))
    throw ApiError{400,
                   "\"user\" goes with \"ratings\" (that user's fresh ratings); for lists give \"users\""};
  if (body.contains("ratings")) return new_user_recommend(body, *m, k, include_seen, limits, attributes);
  const json& users = body["users"];
  if (!users.is_array() || users.empty()) throw ApiError{400, "\"users\": must be a non-empty array of ids"};
  if (static_cast<int64_t>(users.size()) > limits.max_users)
    throw ApiError{400, "\"users\": " + std::to_string(users.size()) + " users, more than the " +
                            std::to_string(limits.max_users) + " one call takes"};
  std::vector<int64_t> index;
  std::vector<std::string> ids;
  for (const json& u : users) {
    ids.push_back(id_text(u, "\"users\"[]"));
    index.push_back(user_index(*m, ids.back()));
  }
  const ItemFilter filter = resolved(*m->model, body_filter(body), attributes);
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

Response post_predict(const Request& q, const ModelStore& store, const ApiLimits& limits) {
  const json body = parse_body(q);
  const auto m = model_named(store, body_model(q, body));
  if (m->model->dataset().implicit())
    throw ApiError{409, "model " + m->name +
                            " was trained on interactions (data.feedback = " + m->model->dataset().feedback +
                            "): it ranks items and predicts no rating; use " + "/v1/recommend or /v1/rank"};
  if (!body.contains("pairs") || !body["pairs"].is_array() || body["pairs"].empty())
    throw ApiError{400, "\"pairs\": must be a non-empty array of {\"user\": ID, \"item\": ID}"};
  const json& pairs = body["pairs"];
  if (static_cast<int64_t>(pairs.size()) > limits.max_pairs)
    throw ApiError{400, "\"pairs\": " + std::to_string(pairs.size()) + " pairs, more than the " +
                            std::to_string(limits.max_pairs) + " one call takes"};
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

/// The candidates of one user in the model's order (rank_items, symgnn/recommend.h), as JSON.
json ranked(const ServedModel& m, const TrainedModel& model, int64_t user,
            const std::vector<std::string>& ids, const std::string& what, const ApiLimits& limits,
            const FoldedUser* folded = nullptr) {
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
    r = folded ? rank_folded(model, *folded, items) : rank_items(model, user, items);
  } catch (const ConfigError& e) {
    throw ApiError{400, what + ": " + std::string(e.what()).substr(6)};  // "rank: item 'x' is given twice"
  }
  json out = header(m);
  out["ranked_by"] = folded ? folded->ranked_by : model.ranked_by(user);
  out["items"] = list_json(m, model, r);
  return out;
}

Response get_rank(const Request& q, const ModelStore& store, const ApiLimits& limits) {
  const std::string* user = param(q, "user");
  if (!user) throw ApiError{400, "GET /v1/rank needs ?user=ID&items=ID,ID,..."};
  const std::string* name = param(q, "model");
  const auto m = model_named(store, name ? *name : "");
  const ItemFilterSpec spec = query_filter(q);
  if (!spec.exclude.empty() || !spec.where.empty())
    throw ApiError{400, "GET /v1/rank takes items=ID,ID,...: the candidates are given, not filtered"};
  json out = ranked(*m, *m->model, user_index(*m, *user), spec.items, "items", limits);
  out["user"] = *user;
  return json_response(200, out);
}

Response post_rank(const Request& q, const ModelStore& store, const ApiLimits& limits) {
  const json body = parse_body(q);
  const auto m = model_named(store, body_model(q, body));
  if (!body.contains("ratings") && !body.contains("user"))
    throw ApiError{400,
                   "give \"user\": ID, \"ratings\": [{\"item\": ID, \"rating\": R}, ...] (a new user) or "
                   "both (a user's fresh ratings), and \"items\""};
  if (!body.contains("items") || !body["items"].is_array())
    throw ApiError{400, "\"items\": must be an array of the candidate item ids"};
  std::vector<std::string> ids;
  for (const json& id : body["items"]) ids.push_back(id_text(id, "\"items\"[]"));
  if (!body.contains("ratings")) {
    const std::string user = id_text(body["user"], "\"user\"");
    json out = ranked(*m, *m->model, user_index(*m, user), ids, "\"items\"", limits);
    out["user"] = user;
    return json_response(200, out);
  }
  const NewUser n = new_user(body, *m, limits);
  json out = ranked(*m, n.grown ? *n.grown : *m->model, n.index, ids, "\"items\"", limits,
                    n.folded ? &*n.folded : nullptr);
  out["user"] = n.known.empty() ? json(nullptr) : json(n.known);
  out["new_user_ratings"] = n.ratings;
  return json_response(200, out);
}

/// GET /v1/models: each model's card, and what this server offers beside them: whether the
/// admin routes (graph edits) are on, the item attribute keys `where` can filter by.
Response get_models(const ModelStore& store, bool admin_routes, const ItemAttributes& attributes) {
  json out = {
      {"models", json::array()}, {"admin_routes", admin_routes}, {"item_attribute_keys", attributes.keys}};
  for (const auto& m : store.all()) {
    json e = m->info;
    e["version"] = m->version;
    e["loaded_at"] = m->loaded_at;
    out["models"].push_back(e);
  }
  return json_response(200, out);
}

Response healthz(const ModelStore& store) {
  json out = {{"status", "ok"}, {"models", json::array()}};
  for (const auto& m : store.all()) out["models"].push_back({{"name", m->name}, {"version", m->version}});
  return json_response(200, out);
}

/// Admin routes need the token the operator gave (docs/serve.md); a client is not told how
/// to turn them on.
void check_admin(const Request& q, const std::string& token) {
  if (token.empty()) throw ApiError{403, "admin routes are off on this server"};
  if (q.authorization != "Bearer " + token)
    throw ApiError{401, "admin route: send the admin token as \"Authorization: Bearer TOKEN\""};
}

/// POST /v1/graph/edges {"edits": [{"side": "user", "op": "add", "a": ID, "b": ID, "weight": 1,
/// "create": false, "features": [...]}, ...]}: one batch of graph edits (symgnn/graph_edit.h;
/// create: an unknown end joins as a new node, with features where given), journalled, then
/// served (ModelStore::edit_graph).
Response post_graph_edges(const Request& q, ModelStore& store, const std::string& token) {
  check_admin(q, token);
  const json body = parse_body(q);
  const auto m = model_named(store, body_model(q, body));
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
    now = store.edit_graph(m->name, edits);
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

Response reload(const Request& q, ModelStore& store, const std::string& token) {
  check_admin(q, token);
  const std::string* name = param(q, "model");
  if (name) model_named(store, *name);
  const auto outcomes = store.reload(name ? *name : "");
  json out = {{"reloaded", json::array()}};
  bool all_ok = true;
  for (const auto& r : outcomes) {
    out["reloaded"].push_back({{"model", r.name}, {"ok", r.ok}, {"version", r.version}, {"error", r.error}});
    all_ok = all_ok && r.ok;
  }
  // A failed reload keeps the old model serving; the status says the reload failed.
  return json_response(all_ok ? 200 : 500, out);
}

}  // namespace

Api::Api(ModelStore& store, ServeMetrics& metrics, ApiLimits limits, std::string admin_token)
    : store_(store), metrics_(metrics), limits_(limits), admin_token_(std::move(admin_token)) {}

Route Api::route_of(const std::string& path) {
  if (path == "/healthz") return Route::healthz;
  if (path == "/v1/models") return Route::models;
  if (path == "/v1/recommend") return Route::recommend;
  if (path == "/v1/rank") return Route::rank;
  if (path == "/v1/predict") return Route::predict;
  if (path == "/v1/similar") return Route::similar;
  if (path == "/v1/explain") return Route::explain;
  if (path == "/v1/graph/edges") return Route::graph_edges;
  if (path == "/v1/users") return Route::users;
  if (path == "/metrics") return Route::metrics;
  if (path == "/v1/admin/reload") return Route::reload;
  if (path == "/") return Route::page;
  return Route::other;
}

Response Api::handle(const Request& q) const {
  const auto t0 = std::chrono::steady_clock::now();
  const Route route = route_of(q.path);
  Response out;
  try {
    auto method = [&](const char* m) {
      if (q.method != m) throw ApiError{405, q.method + " " + q.path + ": use " + m};
    };
    if (static_cast<int64_t>(q.body.size()) > limits_.max_body_bytes)
      throw ApiError{413, "the body is " + std::to_string(q.body.size()) + " bytes, over the limit of " +
                              std::to_string(limits_.max_body_bytes)};
    switch (route) {
      case Route::healthz:
        method("GET");
        out = healthz(store_);
        break;
      case Route::models:
        method("GET");
        out = get_models(store_, !admin_token_.empty(), attributes_);
        break;
      case Route::recommend:
        if (q.method == "GET") {
          out = get_recommend(q, store_, limits_, attributes_);
        } else {
          method("POST");
          out = post_recommend(q, store_, limits_, attributes_);
        }
        break;
      case Route::rank:
        if (q.method == "GET") {
          out = get_rank(q, store_, limits_);
        } else {
          method("POST");
          out = post_rank(q, store_, limits_);
        }
        break;
      case Route::predict:
        method("POST");
        out = post_predict(q, store_, limits_);
        break;
      case Route::similar:
        method("GET");
        out = get_similar(q, store_, limits_);
        break;
      case Route::explain:
        method("GET");
        out = get_explain(q, store_);
        break;
      case Route::graph_edges:
        method("POST");
        out = post_graph_edges(q, store_, admin_token_);
        break;
      case Route::users:
        method("GET");
        out = get_users(q, store_);
        break;
      case Route::page:
        method("GET");
        out.body = kPageHtml;
        out.content_type = "text/html; charset=utf-8";
        break;
      case Route::metrics: {
        method("GET");
        std::vector<std::pair<std::string, int64_t>> versions;
        for (const auto& m : store_.all()) versions.emplace_back(m->name, m->version);
        out.body = metrics_.prometheus_text(versions);
        out.content_type = "text/plain; version=0.0.4";
        break;
      }
      case Route::reload:
        method("POST");
        out = reload(q, store_, admin_token_);
        break;
      default:
        throw ApiError{404, "no route " + quoted(q.path) +
                                " (routes: /, /healthz, /v1/models, /v1/recommend, /v1/rank, /v1/predict, "
                                "/v1/similar, /v1/explain, /v1/graph/edges, /v1/users, "
                                "/metrics, /v1/admin/reload)"};
    }
  } catch (const ApiError& e) {
    out = json_response(e.status, {{"error", e.message}});
  } catch (const std::exception& e) {
    out = json_response(500, {{"error", std::string("internal error: ") + e.what()}});
  }
  metrics_.record(route, out.status,
                  std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  return out;
}

}  // namespace symgnn::serve
