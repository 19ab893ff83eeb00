// A new user in a request's body, for POST /v1/recommend and POST /v1/rank with "ratings"
// (routes_lists.cpp): the ratings, edges and features read and checked, then the user
// folded into the served model or the model grown by them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "serve/api.h"
#include "symgnn/trained_model.h"

namespace symgnn::serve {

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

NewUser new_user(const nlohmann::json& body, const ServedModel& m, const ApiLimits& limits);

}  // namespace symgnn::serve
