// What every handler of serve's routes (route_handlers.h) reads from a request and writes
// into its answer: the query's values, the JSON body's fields, the model and the ids named,
// items as JSON, and the refusal (ApiError) that Api::handle turns into {"error": ...}.
#pragma once

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "serve/api.h"

namespace symgnn::serve {

/// A refusal with its HTTP status; Api::handle turns it into {"error": message}.
struct ApiError {
  int status;
  std::string message;
};

Response json_response(int status, const nlohmann::json& body);

/// `s` in single quotes, cut after 60 characters.
std::string quoted(const std::string& s);

/// The query's one value for `key` (nullptr: none). A key given twice (?k=5&k=10) is
/// refused rather than one of its values taken; the repeatable keys (exclude, items, where)
/// are read apart (query_filter, routes_lists.cpp).
const std::string* param(const Request& q, const std::string& key);

/// The whole number the query gives for `key` (k, offset, limit), in [lo, hi]; `fallback`
/// when the query has none.
int64_t query_count(const Request& q, const std::string& key, int64_t fallback, int64_t lo, int64_t hi);

/// ?k= of a list: 10 by default, at most --max-k.
int64_t query_k(const Request& q, const ApiLimits& limits);

/// "k" of a JSON body: 10 by default, at most `max_k`.
int64_t json_k(const nlohmann::json& body, int64_t max_k);

/// A query flag (include_seen): 1, 0, true, false or empty; false when absent.
bool parse_flag(const std::string* text, const std::string& key);

/// An id as JSON gives it: a string, or a whole number written as one.
std::string id_text(const nlohmann::json& v, const std::string& what);

/// The served model named `name` ("": the default one); 404 when there is none.
std::shared_ptr<const ServedModel> model_named(const ModelStore& store, const std::string& name);

/// The index of a user or item id in the model; 404 when unknown.
int64_t user_index(const ServedModel& m, const std::string& id);
int64_t item_index(const ServedModel& m, const std::string& id);

/// The body as a JSON object; 400 when absent, malformed or not an object.
nlohmann::json parse_body(const Request& q);

/// The model a POST names: "model" in its body or ?model= in its query (both: the same one).
std::string body_model(const Request& q, const nlohmann::json& body);

/// The item's display name where the served model has names (served_model.h), else "".
const std::string& item_name(const ServedModel& m, int64_t item);

/// {"item": ID, <key>: value[, "name": NAME]}
nlohmann::json item_entry(const ServedModel& m, const TrainedModel& model, int64_t item, const char* key,
                          double value);

/// `text` with every `from` replaced by `to`.
std::string replaced(std::string text, const std::string& from, const std::string& to);

/// A library message as a client of this API reads it: its fields, not the CLI's flags.
std::string for_client(const std::string& message);

}  // namespace symgnn::serve
