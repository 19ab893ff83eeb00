#include "serve/new_user.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <utility>

#include "serve/api_request.h"
#include "symgnn/error.h"
#include "symgnn/update.h"

using nlohmann::json;

namespace symgnn::serve {

NewUser new_user(const json& body, const ServedModel& m, const ApiLimits& limits) {
  // A new user given by follows alone ("edges" and no "ratings", or "ratings": []): listed by
  // the people they follow (symgnn/update.h).
  static const json none = json::array();
  const bool follows_alone = body.contains("edges") && !body.contains("user") &&
                             (!body.contains("ratings") || body["ratings"] == none);
  const json& ratings = body.contains("ratings") ? body["ratings"] : none;
  if (!follows_alone && (!ratings.is_array() || ratings.empty()))
    throw ApiError{400,
                   "\"ratings\": must be a non-empty array of {\"item\": ID, \"rating\": R} (or, for a "
                   "new user known by follows alone, give \"edges\": [ID, ...] without ratings)"};
  if (follows_alone && (!body["edges"].is_array() || body["edges"].empty()))
    throw ApiError{400,
                   "\"edges\": a new user without ratings is given by a non-empty array of the user ids "
                   "they follow"};
  if (static_cast<int64_t>(ratings.size()) > limits.max_new_ratings)
    throw ApiError{400, "\"ratings\": " + std::to_string(ratings.size()) + " ratings, more than the " +
                            std::to_string(limits.max_new_ratings) + " one call takes"};
  const std::string new_user = "symgnn-serve-new-user";
  if (m.users.find(new_user) >= 0) throw ApiError{500, "the model has a user named " + new_user};
  // "user" beside "ratings": a trained user's fresh ratings, folded into theirs (a refresh).
  const std::string known = body.contains("user") ? id_text(body["user"], "\"user\"") : "";
  if (!known.empty()) user_index(m, known);  // a trained user: 404 where unknown
  // The ratings reach the model as rows in memory (a Delta, symgnn/delta.h): no file.
  Delta rows;
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
  // side features ("features": [F1, ...]), as rows in memory (the Delta): the model's user
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
  // The model in memory, the one this request started with: not the folder as it is now. The
  // door (symgnn/update.h) folds the user in where the members can, else grows the model.
  try {
    return NewUser{std::move(*apply(*m.model, rows, Keep::user).user), as_sent, ratings.size(), known};
  } catch (const ConfigError& e) {
    throw ApiError{400, as_sent(e.what())};
  } catch (const DataError& e) {
    // Errors of the edges and features name them already; the ratings' get the user.
    const std::string what = e.what();
    const bool named = what.rfind("\"edges\"", 0) == 0 || what.rfind("\"features\"", 0) == 0;
    throw ApiError{400, as_sent(named ? what : "the new user's ratings: " + what)};
  }
}

}  // namespace symgnn::serve
