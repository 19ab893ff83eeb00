/// @file
/// Lists for users the model was not trained on (`symgnn evaluate --protocol new-users`,
/// docs/recommend.md "New users"): the strong-generalisation protocol of Mult-VAE (Liang et
/// al., WWW 2018), run through the model's own new-node path.
///
///   1. A seeded fraction (hold_out) of the users with at least two ratings is held out:
///      their ratings leave every split, they stay nodes (their graph edges and features stay).
///   2. The model's config is fitted again on the rest (fit(), so every choice it makes on
///      validation is made again without them).
///   3. Each held-out user's ratings are shuffled (seeded): the first fold_in fraction (at
///      least one, never all) is given to the fitted model as new ratings
///      (TrainedModel::with_new_nodes: the rating model and its ranker place them from
///      those ratings, without retraining); the rest is scored: their lists of k among the
///      items they did not give, relevant = a scored rating >= relevant_min, and the RMSE of
///      the scored ratings.
///   4. EASE, fitted on the same rest and given the same rows (x B), is scored alike: the
///      reference the figures are read against.
///   5. The same figures by slices of the held-out users' degree in the user graph the model
///      reads (new_users_by_degree.h): where the graph helps.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fit/new_users_by_degree.h"
#include "symgnn/config.h"
#include "symgnn/progress.h"
#include "symgnn/recommend.h"

namespace symgnn::fitting {

struct NewUsersProtocol {
  double hold_out = 0.1;  // fraction of the users with >= 2 ratings held out
  double fold_in = 0.8;   // fraction of each held-out user's ratings given to the model
  uint64_t seed = 1;
  EvaluateOptions eval;
  bool with_ease = true;  // also fit EASE on the same rows (where the data fit its limits)
};

struct NewUsersReport {
  int64_t users = 0;                    // users with >= 2 ratings
  int64_t held_out = 0;                 // of those, held out
  std::vector<int64_t> held_out_users;  // their indices, ascending
  int64_t fold_in_ratings = 0;          // given to the models after the fit
  int64_t scored_ratings = 0;           // scored
  Evaluation model;                     // the config's kind, given the fold-in rows
  Evaluation cold;                      // the same fit before the fold-in (the users with no rating)
  bool has_ease = false;
  Evaluation ease;        // EASE given the same rows
  std::string ease_note;  // why EASE is absent, where it is
  /// The held-out users by their degree in the model's user graph, one per kDegreeSlices:
  /// their users and scored ratings add up to the whole's, and so do the sums behind RMSE,
  /// MAE and the ranking's means over users (not coverage, a count over every list). Where
  /// the model has no user graph, everyone is in "0" (the whole's figures) and
  /// by_degree_note says why.
  std::vector<DegreeSlice> by_degree;
  std::string by_degree_note;
};

/// Runs the protocol for `cfg` (a model directory's config: its data must be readable where
/// the config names it). Lines for people go to `log` (null: none).
NewUsersReport evaluate_new_users(const RunConfig& cfg, const NewUsersProtocol& p, const LogCallback& log);

}  // namespace symgnn::fitting
