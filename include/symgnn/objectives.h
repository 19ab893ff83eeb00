// symgnn: the tables of training objectives.
//
// What a trained kind minimises is two choices, each one row of a table here:
//
// SYMGNN_OBJECTIVES (the config key train.objective): which heads a model trains. A row is
// its name, whether the kind's own rating decoder trains (rates), whether the ranking loss
// trains (ranks; its weight is train.ranking_weight where both do), and a doc line. The
// kinds' objectives column (symgnn/model_kinds.h) lists these names.
//
// SYMGNN_RANKING_LOSSES (train.ranking_loss): the loss over the ranking scores a kind exposes
// (models/objectives/score_view.h) when the objective ranks. A row is its name and a doc
// line; src/models/objectives/registry.cpp expands the rows into the table of functions, so
// a row's `name` must have `at::Tensor <name>_loss(const ScoreView&, const Positives&, const
// Objective&)` in its own file, src/models/objectives/<name>.cpp (docs/architecture.md,
// "Adding an objective").
//
// Both tables drive the config's choices and docs (config.h, so `symgnn config`, the CLI's
// checks, docs/config.md and the Python parameters).
// Torch-free: the config reader and the fuzzers include it.
#pragma once

#include <string>

#include "symgnn/table_rows.h"

#define SYMGNN_OBJECTIVES(X)                                                                        \
  X(rating, true, false,                                                                            \
    "the kind's rating decoder on the training ratings (masked MSE, or the rating classes' "        \
    "cross-entropy), the paper's")                                                                  \
  X(ranking, false, true,                                                                           \
    "train.ranking_loss over the training interactions alone; ratings come from a head of biases "  \
    "beside the scores (mean + std (b1_u + b2_i))")                                                 \
  X(joint, true, true,                                                                              \
    "the rating loss + train.ranking_weight x train.ranking_loss on the same representations (the " \
    "ranking scores scaled by a learned exp(t))")

#define SYMGNN_RANKING_LOSSES(X)                                                               \
  X(softmax,                                                                                   \
    "each positive against every item (-log softmax over the user's whole row), in blocks of " \
    "users (models/objectives/softmax.cpp)")                                                   \
  X(sampled_softmax,                                                                           \
    "each positive against `negatives` items drawn uniformly per step, shared by all "         \
    "positives (models/objectives/sampled_softmax.cpp)")                                       \
  X(bpr,                                                                                       \
    "-log sigmoid(s_ui - s_uj) for `negatives` items j drawn per positive, pairwise "          \
    "(models/objectives/bpr.cpp)")                                                             \
  X(normalised_mse,                                                                            \
    "|| S_u / |S_u| - X_u / |X_u| ||^2 per user over every item, X_u the user's binary "       \
    "row of positives (ELSA's loss), in blocks of users (models/objectives/normalised_mse.cpp)")

namespace symgnn {

struct ObjectiveRow {
  const char* name;
  bool rates;  // the kind's own rating decoder trains
  bool ranks;  // the ranking loss trains
  const char* doc;
};

struct RankingLossRow {
  const char* name;
  const char* doc;
};

inline constexpr ObjectiveRow kObjectives[] = {
#define SYMGNN_OBJECTIVE_ROW(name, rates, ranks, doc) ObjectiveRow{#name, rates, ranks, doc},
    SYMGNN_OBJECTIVES(SYMGNN_OBJECTIVE_ROW)
#undef SYMGNN_OBJECTIVE_ROW
};

inline constexpr RankingLossRow kRankingLosses[] = {
#define SYMGNN_RANKING_LOSS_ROW(name, doc) RankingLossRow{#name, doc},
    SYMGNN_RANKING_LOSSES(SYMGNN_RANKING_LOSS_ROW)
#undef SYMGNN_RANKING_LOSS_ROW
};

/// The objectives' row named `name`, or nullptr.
inline const ObjectiveRow* find_objective(const std::string& name) {
  return find_row(kObjectives, name);
}

/// Whether train.objective = `name` trains the kind's rating decoder (false for an unknown name).
inline bool objective_rates(const std::string& name) {
  const ObjectiveRow* o = find_objective(name);
  return o && o->rates;
}

/// Whether train.objective = `name` trains a ranking loss (false for an unknown name).
inline bool objective_ranks(const std::string& name) {
  const ObjectiveRow* o = find_objective(name);
  return o && o->ranks;
}

/// "rating|ranking|joint": the names in table order, the config's choices.
inline const char* objective_choices() {
  static const std::string s = row_names(kObjectives);
  return s.c_str();
}

/// "softmax|sampled_softmax|bpr|...": the ranking losses' names in table order.
inline const char* ranking_loss_choices() {
  static const std::string s = row_names(kRankingLosses);
  return s.c_str();
}

/// Every objective with its doc line, for the config's doc of train.objective.
inline const char* objective_docs() {
  static const std::string s =
      "what training minimises: " + row_docs(kObjectives) +
      ". The kinds' objectives column in symgnn/model_kinds.h lists what each trains "
      "for (docs/recommend.md)";
  return s.c_str();
}

/// Every ranking loss with its doc line, for the config's doc of train.ranking_loss.
inline const char* ranking_loss_docs() {
  static const std::string s = "objective ranking|joint: " + row_docs(kRankingLosses);
  return s.c_str();
}

}  // namespace symgnn
