/// @file
/// Inductive prediction: users or items absent from training, described at prediction
/// time (symgnn/trained_model.h NewNodes: the rows of the --new-* files, read at the edge by
/// infer/new_node_files.h, and rows given in memory).
/// Their ratings join the model's data as training ratings of new nodes, so that the model
/// computes the new nodes' representations from them (the prior module aggregates the
/// items a new user rated), with the trained weights. Graphs: a new node's row gathers from
/// its neighbours (its k nearest by the k-NN graph's vectors, or the edge rows given); no
/// trained node's row changes. Side features: the feature rows given,
/// zeros without. The weights of the rows a model keeps per node (free embeddings, per-node
/// gates) start at zero for new nodes (`fill_grown` in trained_model.cpp); the bias offset's rows
/// (lowrank.offset = baseline) are fitted to the new nodes' ratings
/// (models/baseline/offset_model.h).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "data/text_reader.h"
#include "symgnn/config.h"
#include "symgnn/dataset.h"
#include "symgnn/trained_model.h"

namespace symgnn::infer {

/// Appends the ratings of `nodes` (its files' rows, read at the edge by
/// infer/new_node_files.h, then its rows in memory) to ds.train; ids not in ds become new users
/// or items at the end. Then the new nodes' side features (feature rows, whose columns must
/// match the model's) and graph rows (a k-NN graph: graph::link_new_nodes; a file graph: the
/// edge rows, each touching a new node). Ratings of trained users (and items) join theirs: a
/// refresh, recomputing their representations from all their ratings with the trained weights.
/// An edge between two trained nodes is a graph edit (symgnn/graph_edit.h): set in both
/// directions, so that every node's representation is computed on the edited graph. A pair the
/// model learned from (training or validation), or rows the model has no use for (features for a
/// side without features, edges for a side whose graph is not from a file) is an error naming
/// the rows. The graphs must already be resolved with `graph`.
NewRatingsSummary add_new_nodes(Dataset& ds, const NewNodes& nodes, const GraphConfig& graph);

/// ConfigError naming `name` unless `side`'s graph takes edges given with new nodes: a graph
/// from a file.
void check_file_graph(const NodeSet& side, const std::string& name, const char* noun);

/// ConfigError naming `name` unless feature rows of `side` can join: the side has features and
/// the change brings `new_nodes` > 0 of it.
void check_features_given(const NodeSet& side, int64_t new_nodes, const std::string& name, const char* noun);

/// ConfigError where `any` new nodes (or fresh ratings) are given to a kind that cannot place
/// them (ModelKind::new_nodes, symgnn/model_kinds.h), naming the kinds that can.
void check_takes_new_nodes(const RunConfig& cfg, bool any);

/// The rules of a change's edge and feature rows that need no graph: edges that add (new
/// nodes come with added edges; a removal or a created node is a graph edit) and ids by the id
/// rule, every row before any is read. The rules of the files of the same kinds (unknown ids,
/// repeats, columns) are the readers' (data/parsers.h), applied as the rows join.
void check_node_rows(const Delta& rows);

/// How check_rating_rows reads the nodes and pairs a model has: through a loaded model's
/// indexes (the door's check, symgnn/update.h: nothing copied) or a dataset's (growth).
struct KnownNodes {
  int64_t users = 0, items = 0;                             // the model's nodes
  std::function<int64_t(const std::string&)> user, item;    // an id's index, -1 where none
  std::function<bool(int64_t user, int64_t item)> learned;  // a pair of training or validation
};

/// The rules of rating rows given in memory, every row before any joins: ids present and by
/// the id rule (data/id_rule.h), a count positive, the value on the model's scale, the pair new
/// to the model's data and to the rows before it. Errors are DataError naming `name`[k]. Returns
/// the rows by index, a new id numbered after the model's nodes in order of first appearance,
/// values as the data hold them (log(1 + count) for counts, 1 for interactions).
RatingList check_rating_rows(const Dataset& ds, const std::vector<Delta::Rating>& rows,
                             const std::string& name, const KnownNodes& nodes);

/// Grows `side` to the ids of `index` (its own first, then the new ones): explicit ids, graph
/// rows without edges, zero feature rows. Returns the nodes added. What new ratings, a graph
/// edit's created nodes and a ranker growing with its model add nodes by.
int64_t grow_side(NodeSet& side, const data::IdIndex& index);

}  // namespace symgnn::infer
