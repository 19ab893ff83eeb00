/// @file
/// The files of a change read into Deltas (symgnn/delta.h) at the edges that name them: the
/// CLI's --new-* flags, a model directory's refresh folders (infer/refresh.h) and Python's
/// new_* arguments. One reader per format (data/parsers.h), against the model's data: its
/// errors name the file and line, and the growth (infer/new_ratings.h) and the door
/// (symgnn/update.h) never open a path.
#pragma once

#include "symgnn/dataset.h"
#include "symgnn/trained_model.h"

namespace symgnn::infer {

/// `files` as Deltas against `ds` (the model's data, graphs resolved), each named by its path:
/// - ratings as the training data were read (data.feedback: a model of clicks or counts merges
///   a pair's repeated rows, a model of ratings refuses them naming both lines), each row
///   keeping its line for the door's checks;
/// - graph files over the trained ids and the ratings' new ids, after the side's graph is
///   found to come from a file; the rows as the file gives them (a directed file's direction
///   kept);
/// - features files over the side's new ids (a row for each), after the side is found to have
///   features and the ratings to bring new nodes of it.
/// Files that are not given are skipped; `files.ratings` is read first.
///
/// `users_linked_alone`: where given, the user graph file may name users that are neither
/// trained nor in the ratings: new users known by their links alone (a person who follows
/// people and has rated nothing). Their rows are returned there as edges that create them (a
/// graph edit's `create`, symgnn/graph_edit.h), the rest as before; where not given such an id
/// is an unknown user, an error naming the line.
NewNodes read_new_node_files(const NewNodeFiles& files, const Dataset& ds,
                             std::vector<Delta::Edge>* users_linked_alone = nullptr);

}  // namespace symgnn::infer
