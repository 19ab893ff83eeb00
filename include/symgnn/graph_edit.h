// symgnn: edges added to or taken out of a trained model's graphs, without retraining
// (docs/graph_edits.md).
//
// A follow, an unfollow, a new "same artist" link between items: the edit changes the
// user-user or item-item graph the model reads, and every node's representation is
// recomputed from the trained weights on the edited graph (the CGE layers and the other
// graph modules see the new edges at once). Graphs stay symmetric: an edge (a, b) is both
// (a, b) and (b, a). `symgnn serve`'s POST /v1/graph/edges, `symgnn graph edit` and Python's
// edit_graph() call apply_graph_edits(); a served model's directory journals each accepted
// batch (graph_journal.h) and replays the journal on load.
#pragma once

#include <string>
#include <vector>

#include "symgnn/delta.h"

namespace symgnn {

class TrainedModel;

/// One edge change (symgnn/delta.h Delta::Edge) given by words, as serve's JSON, Python's
/// tuples, the journal and `symgnn graph edit` give it: `side` "user" or "item", `op` "add" or
/// "remove". ConfigError "side 'x': must be user or item" or "op 'x': must be add or remove".
Delta::Edge graph_edit(const std::string& side, const std::string& op, std::string a, std::string b,
                       double weight = 1.0);

/// `model` with `edits` applied in order, all or none: the door (symgnn/update.h) given a Delta
/// of these edges, apply(model, delta, Keep::model), named for the callers that edit graphs.
/// Every node's representation as the
/// trained weights compute it on the edited graphs (the ranker beside it kept: the closed-form
/// rankers read no graph at scoring). Where the kind carries its representations over
/// (RatingModel::take_graph_edit: the low-rank model with the prior encoder), only the rows the
/// edits reach are computed; else all, on the first score. Nodes an edit creates join the model and its
/// ranker alike (the ranker's rows and columns for them zero: the exact fit of a node without ratings for
/// EASE and ItemKNN). Throws ConfigError, naming the edit (edits[k]), for an id that is no node of that side
/// (without create, or in a remove), an empty id, a self-loop, a weight that is not finite and positive, the
/// removal of an edge that is not there, or a graph the model does not use (a kind that reads no graph of
/// that side, a side whose graph is the identity, a closed-form kind whose saved scores were solved on the
/// graphs: fit it again). An edge's `create` adds its unknown ends as nodes; its `features` are those of the
/// node it creates, end `a` (Delta::Edge).
TrainedModel apply_graph_edits(const TrainedModel& model, const std::vector<Delta::Edge>& edits);

}  // namespace symgnn
