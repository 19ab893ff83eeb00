// symgnn: the one door for a change to a trained model (docs/architecture.md, "Changes to a
// trained model").
//
// Every front end that changes a model gives the change as a Delta (symgnn/delta.h) to
// apply(): serve's new users and graph edits, Python's new users, with_new_ratings and
// edit_graph, `symgnn graph edit`, the journal a served directory replays, and (as Deltas read
// from their files) the CLI's new users and a directory's refreshes, which TrainedModel::load
// applies. check() reads the
// Delta against the model once (the rules of its rows and what the model's kind takes), then
// apply() lets the members choose how to take it: a user folded into the model (their rows
// alone, in milliseconds: RatingModel::fold_user and the ranker's row from their rated items),
// a graph patched in place (RatingModel::take_graph_edit), or the model grown by the change
// (TrainedModel::with_new_nodes).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "symgnn/delta.h"
#include "symgnn/trained_model.h"

namespace symgnn {

/// What apply() keeps of a change.
enum class Keep {
  /// One user's rows after the change: what a served new user, or a trained user's fresh
  /// ratings, is answered with. Transient: the model is unchanged.
  user,
  /// A new model holding the change: a refresh, graph edits, several new users.
  model,
};

/// One user after a change (apply(..., Keep::user)): what their list and ranks read. Folded
/// into the model apply() was given where every member folds users; else read from the model
/// grown by the change, which it holds.
struct UserUpdate {
  int64_t user = 0;  // the user's index in model(): users() of the model given for a new user
  std::string id;    // the user's id
  /// score_all_items() of a folded user, items() entries; empty for a grown one, whose scores
  /// are model().score_all_items({user}) (recommend and rank_items read them there, once).
  std::vector<float> scores;
  std::vector<int64_t> seen;     // the items the user rated, the new ratings included, ascending
  std::string ranked_by;         // what orders the user's list, for people (TrainedModel::ranked_by)
  bool ranks_by_rating = false;  // whether `scores` are the predicted ratings
  /// rating_all_items() of the user at `items` (indices, in their order, unclipped): computed
  /// when asked, for those items alone where a ranker's scores order the lists.
  std::function<std::vector<float>(const std::vector<int64_t>& items)> ratings;
  /// A new user's follows given with the change: the trained users they link to (indices in
  /// model(), ascending), whom the explanations of their list name (serve's "linked_raters");
  /// empty for a trained user and a new user without follows.
  std::vector<int64_t> linked;
  /// The model grown by the change; null where the user was folded into `base`.
  std::shared_ptr<const TrainedModel> grown;
  const TrainedModel* base = nullptr;  // the model apply() was given: valid while it lives

  /// The model the user's and items' indices refer to.
  const TrainedModel& model() const { return grown ? *grown : *base; }
  bool folded() const { return !grown; }
};

/// What apply() gives back: `model` for Keep::model, `user` for Keep::user.
struct Applied {
  std::optional<TrainedModel> model;
  std::optional<UserUpdate> user;
};

/// Whether `model` takes `delta`, and how: throws ConfigError or DataError naming the row
/// (Delta's names) where it does not. A Delta with ratings brings new nodes or fresh ratings
/// of trained users (refused by kinds that cannot place them, symgnn/model_kinds.h); its edges
/// are added edges of the new nodes (or between trained nodes: a graph edit) and its feature
/// rows the new nodes' features. A Delta of edges alone is a graph edit (symgnn/graph_edit.h):
/// each edit checked in order against the graphs as the edits before it leave them.
void check(const TrainedModel& model, const Delta& delta);
/// check() of a change given in parts (NewNodes: a file's rows each, then the rows in memory):
/// always new nodes or fresh ratings, never a graph edit (edges between trained nodes set both
/// ways, as a graph file's rows do).
void check(const TrainedModel& model, const NewNodes& nodes);

/// `model` with `delta` applied, checked first (check()); all or nothing. Keep::user: `delta`
/// holds the ratings of one user (and a new user's edges and features), or a new user given
/// by follows alone: no rating, every edge an added user-side link from one id the model does
/// not hold (not a graph edit's `create`) to a trained user, at most their feature row. Such
/// a user is the one a graph edit creating them with the same links would make: folded in
/// milliseconds where the model lists users without ratings by the people linked to them
/// (infer/cold_lists.h) and its members fold users, else read from the edited model;
/// ConfigError where the model takes no such edit. Keep::model: any Delta check() takes.
/// `model` must outlive a folded UserUpdate.
Applied apply(const TrainedModel& model, const Delta& delta, Keep keep);
/// apply() of a change given in parts: what TrainedModel::load grows a saved model by (the CLI's
/// --new-* files, a directory's refresh folders, Python's new_* arguments, read at those edges by
/// infer/new_node_files.h). Keep::user folds rows in memory alone; files grow the model.
Applied apply(const TrainedModel& model, const NewNodes& nodes, Keep keep);

}  // namespace symgnn
