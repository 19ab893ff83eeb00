// A new user in a request's body, for POST /v1/recommend and POST /v1/rank with "ratings"
// (routes_lists.cpp): the ratings, edges and features read and checked, then the user
// folded into the served model or the model grown by them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "serve/api.h"
#include "symgnn/trained_model.h"
#include "symgnn/update.h"

namespace symgnn::serve {

/// A user given by the body's "ratings" (the --new-ratings path of TrainedModel::load: no
/// retraining), a new one or a trained user's fresh ratings, applied to the served model by the
/// door (apply(..., Keep::user), symgnn/update.h), with `as_sent` rewording the library's
/// messages as the client sent them.
struct NewUser {
  UserUpdate user;  // folded into the served model, or read from the model grown by them
  std::function<std::string(const std::string&)> as_sent;
  size_t ratings = 0;
  std::string known;  // the trained user refreshed ("user" beside "ratings"); "" for a new user
};

NewUser new_user(const nlohmann::json& body, const ServedModel& m, const ApiLimits& limits);

}  // namespace symgnn::serve
