// The one door for a change to a trained model (symgnn/update.h): check() reads a Delta
// against the model once; apply() lets the members choose how to take it: a user folded in
// (fold_in.cpp), graphs edited in place or the model rebuilt on them (graph_edit.cpp), or the
// model grown by the change (TrainedModel::with_new_nodes, new_ratings.cpp).
#include "symgnn/update.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "infer/model_parts.h"
#include "infer/new_ratings.h"
#include "infer/update_parts.h"
#include "symgnn/error.h"

namespace symgnn {

namespace {

/// Whether `delta` edits graphs: edges alone, no rating and no feature row.
bool edits_graphs(const Delta& delta) {
  return delta.ratings.empty() && delta.features.empty();
}

/// A user as the model grown by the change gives them (where the fold declined): their list and
/// ranks are the grown model's (recommend and rank_items read it), scored when asked.
UserUpdate grown_user(const TrainedModel& base, std::shared_ptr<const TrainedModel> grown,
                      const std::string& id) {
  UserUpdate out;
  out.base = &base;
  out.id = id;
  // A trained user keeps their index; the one new user is appended after the model's users
  // (read from the model given, whose id index is built once, not from each grown model).
  const int64_t known = base.user_index(id);
  out.user = known >= 0 ? known : base.users();
  out.seen = grown->seen_items()[static_cast<size_t>(out.user)];
  out.ranked_by = grown->ranked_by(out.user);
  out.ranks_by_rating = grown->ranks_by_rating();
  out.ratings = [model = grown.get(), user = out.user](const std::vector<int64_t>& items) {
    const std::vector<float> all = model->rating_all_items({user});
    std::vector<float> v;
    for (const int64_t i : items) v.push_back(all.at(static_cast<size_t>(i)));
    return v;
  };
  out.grown = std::move(grown);
  return out;
}

/// The checks of a change that brings nodes or fresh ratings: the kind, then each part (a file's
/// rows, the rows given in memory) by the growth's rules, against the model's own indexes and
/// rated items: nothing is copied, so a served new user costs their rows alone.
void check_nodes(const TrainedModel& model, const NewNodes& nodes) {
  infer::check_takes_new_nodes(model.config(), true);
  infer::KnownNodes known;
  known.users = model.users();
  known.items = model.items();
  known.user = [&model](const std::string& id) { return model.user_index(id); };
  known.item = [&model](const std::string& id) { return model.item_index(id); };
  known.learned = [&model](int64_t u, int64_t i) {
    const std::vector<int64_t>& seen = model.seen_items()[static_cast<size_t>(u)];
    return std::binary_search(seen.begin(), seen.end(), i);
  };
  for (const Delta* part : nodes.parts()) {
    infer::check_node_rows(*part);
    infer::check_rating_rows(model.dataset(), part->ratings, part->ratings_name, known);
  }
}

/// Whether `delta` gives a new user by follows alone (apply(), Keep::user): no rating, every
/// edge an added user-side link from one id the model does not hold, not a graph edit's
/// `create`, and at most that user's feature row.
bool follows_alone(const TrainedModel& model, const Delta& delta) {
  if (!delta.ratings.empty() || delta.edges.empty()) return false;
  const std::string& id = delta.edges.front().a;
  if (model.user_index(id) >= 0) return false;
  const auto from_user = [&id](const Delta::Edge& e) {
    return e.side == NodeSide::users && e.op == EdgeOp::add && !e.create && e.a == id;
  };
  const auto theirs = [&id](const Delta::Features& f) { return f.side == NodeSide::users && f.id == id; };
  return std::all_of(delta.edges.begin(), delta.edges.end(), from_user) && delta.features.size() <= 1 &&
         std::all_of(delta.features.begin(), delta.features.end(), theirs);
}

/// The user of follows_alone(delta): each follow checked (a trained user, once, a finite
/// weight above 0), then folded (infer::fold_user); where the fold declines, the user a graph
/// edit creating them with the same links makes (the same list by definition, slower).
UserUpdate follows_user(const TrainedModel& model, const Delta& delta) {
  std::vector<int64_t> named;
  for (size_t k = 0; k < delta.edges.size(); ++k) {
    const Delta::Edge& e = delta.edges[k];
    const std::string where = delta.edges_name + " row " + std::to_string(k + 1);
    const int64_t v = model.user_index(e.b);
    if (v < 0) throw DataError(where + ": '" + e.b + "' is no user of the model");
    if (!std::isfinite(e.weight) || e.weight <= 0)
      throw DataError(where + ": the weight of ('" + e.a + "', '" + e.b + "') must be finite and above 0");
    if (std::find(named.begin(), named.end(), v) != named.end())
      throw DataError(where + ": '" + e.b + "' is named twice: name each neighbour once");
    named.push_back(v);
  }
  UserUpdate user;
  if (infer::fold_user(model, delta, user)) return user;
  std::vector<Delta::Edge> edits = delta.edges;
  edits.front().create = true;
  if (!delta.features.empty()) edits.front().features = delta.features.front().values;
  try {
    infer::check_edits(model, edits);
  } catch (const ConfigError& e) {
    throw ConfigError(delta.edges_name +
                      ": a new user given by follows alone (no rating) is the user a graph " +
                      "edit creating them would make, and this model takes no such edit: " + e.what());
  }
  return grown_user(model, std::make_shared<const TrainedModel>(infer::edited_model(model, edits)),
                    delta.edges.front().a);
}

}  // namespace

void check(const TrainedModel& model, const Delta& delta) {
  if (!delta.empty() && edits_graphs(delta)) {
    infer::check_edits(model, delta.edges);
    return;
  }
  NewNodes nodes;
  nodes.rows = delta;
  check(model, nodes);
}

void check(const TrainedModel& model, const NewNodes& nodes) {
  if (nodes.empty()) throw ConfigError("the change is empty: no rating, edge or feature row");
  check_nodes(model, nodes);
}

Applied apply(const TrainedModel& model, const Delta& delta, Keep keep) {
  Applied out;
  if (keep == Keep::user && follows_alone(model, delta)) {
    out.user = follows_user(model, delta);
    return out;
  }
  if (!delta.empty() && edits_graphs(delta)) {
    infer::check_edits(model, delta.edges);
    if (keep == Keep::user) throw ConfigError("a graph edit changes the model: apply it with Keep::model");
    out.model.emplace(infer::edited_model(model, delta.edges));
    return out;
  }
  NewNodes nodes;
  nodes.rows = delta;
  return apply(model, nodes, keep);
}

Applied apply(const TrainedModel& model, const NewNodes& nodes, Keep keep) {
  check(model, nodes);
  Applied out;
  if (keep == Keep::model) {
    out.model.emplace(model.with_new_nodes(nodes));
    return out;
  }
  std::vector<const Delta::Rating*> ratings;
  for (const Delta* part : nodes.parts())
    for (const Delta::Rating& r : part->ratings) ratings.push_back(&r);
  const std::string id = ratings.empty() ? std::string() : ratings.front()->user;
  if (id.empty() ||
      !std::all_of(ratings.begin(), ratings.end(), [&id](const Delta::Rating* r) { return r->user == id; }))
    throw ConfigError(nodes.rows.ratings_name + ": one user's ratings answer a user (Keep::user); " +
                      "several users' ratings grow the model (Keep::model)");
  // The fold takes rows in memory (a served user's); files grow the model.
  UserUpdate user;
  if (nodes.files.empty() && infer::fold_user(model, nodes.rows, user)) {
    out.user = std::move(user);
    return out;
  }
  out.user = grown_user(model, std::make_shared<const TrainedModel>(model.with_new_nodes(nodes)), id);
  return out;
}

}  // namespace symgnn
