#include "serve/api_request.h"

#include <iterator>

using nlohmann::json;

namespace symgnn::serve {

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

const std::string* param(const Request& q, const std::string& key) {
  const auto [first, last] = q.params.equal_range(key);
  if (first == last) return nullptr;
  if (std::next(first) != last) throw ApiError{400, key + " is given more than once: give it once"};
  return &first->second;
}

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

namespace {

/// The index of `id` among the model's users or items (`ids`, `what` naming which); 404 when unknown.
int64_t node_index(const ServedModel& m, const data::IdIndex& ids, const char* what, const std::string& id) {
  const int64_t n = ids.find(id);
  if (n < 0)
    throw ApiError{404, std::string("unknown ") + what + " " + quoted(id) + " (not in model " +
                            quoted(m.name) + "'s training data)"};
  return n;
}

}  // namespace

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

const std::string& item_name(const ServedModel& m, int64_t item) {
  static const std::string none;
  return static_cast<size_t>(item) < m.item_names.size() ? m.item_names[static_cast<size_t>(item)] : none;
}

json item_entry(const ServedModel& m, const TrainedModel& model, int64_t item, const char* key,
                double value) {
  json e = {{"item", model.dataset().items.id_of(item)}, {key, value}};
  const std::string& name = item_name(m, item);
  if (!name.empty()) e["name"] = name;
  return e;
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  for (size_t at = text.find(from); !from.empty() && at != std::string::npos;
       at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  return text;
}

std::string for_client(const std::string& message) {
  return replaced(message, "see --include-seen", "see \"include_seen\"");
}

}  // namespace symgnn::serve
