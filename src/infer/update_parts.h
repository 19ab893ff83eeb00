/// @file
/// The ways a change reaches a model behind the door (symgnn/update.h, update.cpp): a user
/// folded in (fold_in.cpp), graph edits checked and applied (graph_edit.cpp). Growth is
/// TrainedModel::with_new_nodes (trained_model.cpp, new_ratings.h).
#pragma once

#include <vector>

#include "symgnn/delta.h"
#include "symgnn/trained_model.h"
#include "symgnn/update.h"

namespace symgnn::infer {

/// `rows` (one user's ratings, a new user's edges and features; checked by check()) folded into
/// `model` without growing it, into `out`: each member's RatingModel::fold_user and the ranker's
/// row from the user's rated items. False where the fold cannot place them (new items, values
/// off the priors' levels, a k-NN graph, edges or features it does not take, a member or ranker
/// without a fold): the door grows the model instead. A new user given by follows alone (no
/// rating; symgnn/update.h) is listed by infer/cold_lists.h from the people they follow.
bool fold_user(const TrainedModel& model, const Delta& rows, UserUpdate& out);

/// Each of `edits` read against `model`'s graphs as the edits before it leave them (ids, a
/// created node's features, weights, an edge to remove that is there, a graph the model uses):
/// ConfigError naming edits[k] at the first that fails.
void check_edits(const TrainedModel& model, const std::vector<Delta::Edge>& edits);

/// `model` with `edits` (checked by check_edits) applied in order: the graphs changed
/// symmetrically (a directed graph's links one way), created nodes appended, the members rebuilt
/// on the edited data (regraphed where the nodes are the same: the rows the edits reach alone).
TrainedModel edited_model(const TrainedModel& model, const std::vector<Delta::Edge>& edits);

}  // namespace symgnn::infer
