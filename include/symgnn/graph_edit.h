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
#include <utility>
#include <vector>

namespace symgnn {

class TrainedModel;

/// One edge change, by original ids.
struct GraphEdit {
  GraphEdit() = default;
  GraphEdit(std::string side_, std::string op_, std::string a_, std::string b_, double weight_ = 1.0)
      : side(std::move(side_)), op(std::move(op_)), a(std::move(a_)), b(std::move(b_)), weight(weight_) {}
  std::string side;        // "user" or "item"
  std::string op = "add";  // "add" (or set the weight of an edge there) or "remove"
  std::string a, b;        // the edge's ends
  double weight = 1.0;     // add: the edge's weight (finite, > 0)
  /// add: an end that is no node of that side becomes one (appended after the others, in the
  /// order the batch names them): a new user or item that joins by its edges alone, with no
  /// ratings, zero side features and zero weight rows (the rows new nodes get,
  /// symgnn/trained_model.h), its representation gathered through the graph.
  bool create = false;
  /// With create: the side features of the node this edit creates, its end `a` (one value per
  /// feature column of the side); empty: zeros, as for any node added without them.
  std::vector<double> features;
};

/// `model` with `edits` applied in order, all or none: every node's representation as the
/// trained weights compute it on the edited graphs (the ranker beside it kept: the closed-form
/// rankers read no graph at scoring). Where the kind carries its representations over
/// (RatingModel::take_graph_edit: the low-rank model with the prior encoder), only the rows the
/// edits reach are computed; else all, on the first score. Nodes an edit creates join the model and its
/// ranker alike (the ranker's rows and columns for them zero: the exact fit of a node without ratings for
/// EASE and ItemKNN). Throws ConfigError, naming the edit (edits[k]), for a side that is not user or item, an
/// op that is not add or remove, an id that is no node of that side (without create, or in a remove), an
/// empty id, a self-loop, a weight that is not finite and positive, the removal of an edge that is not there,
/// or a graph the model does not use (a kind that reads no graph of that side, a side whose graph is the
/// identity, a closed-form kind whose saved scores were solved on the graphs: fit it again).
TrainedModel apply_graph_edits(const TrainedModel& model, const std::vector<GraphEdit>& edits);

}  // namespace symgnn
