/// @file
/// `evaluate --protocol new-users` by slices of graph degree (new_users_protocol.h): the
/// held-out users with 0, 1-5 and more than 5 neighbours in the user graph the model reads,
/// each slice scored as the whole is, so that a user sees where the graph helps (a user
/// without neighbours is placed from their ratings alone).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "symgnn/dataset.h"
#include "symgnn/recommend.h"
#include "symgnn/trained_model.h"

namespace symgnn::fitting {

/// The slices' labels, in order (the keys of `evaluate --json`'s "by_degree").
inline constexpr std::array<const char*, 3> kDegreeSlices = {"0", "1-5", ">5"};

/// The slice (index into kDegreeSlices) of a node with `degree` neighbours.
size_t degree_slice(int64_t degree);

/// Per node of `g`, its neighbours: the distinct other nodes its row holds an entry for.
/// Rows, not columns: a node added after the fit gathers from its neighbours without being
/// gathered from (infer/new_ratings.h), and what places it is its own row. Self-loops and
/// repeated entries do not count.
std::vector<int64_t> neighbour_counts(const EdgeList& g);

/// Why `model` has no user graph to slice by ("" where it reads one): its kind reads none
/// (symgnn/model_kinds.h, column graphs), or its user graph is the identity.
std::string no_user_graph(const TrainedModel& model);

/// One slice of the held-out users.
struct DegreeSlice {
  std::string label;           // "0", "1-5", ">5"
  int64_t users = 0;           // held-out users in it
  int64_t scored_ratings = 0;  // their scored ratings
  Evaluation model;            // as NewUsersReport::model, on this slice (unset where users == 0)
  Evaluation ease;             // as NewUsersReport::ease, where that is set
};

/// `fitted` (a fit without the held-out users) with its test ratings cut to those of the users
/// `in_slice` marks (per user index), then grown by `fold_in` as the whole protocol grows it
/// (every held-out user's rows: a neighbour's rows move a user's representation), evaluated.
Evaluation evaluate_slice(const TrainedModel& fitted, const NewNodes& fold_in,
                          const std::vector<char>& in_slice, const EvaluateOptions& eval);

}  // namespace symgnn::fitting
