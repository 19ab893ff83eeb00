/// @file
/// The user graph's term on the lists of a ranker beside the model (train.ranker_graph =
/// user). The rankers that score from rated items (EASE, ItemKNN, the item-based ranker,
/// popularity) read no user graph, so what the people a user follows rated reaches the
/// lists here, after the ranker:
///
///   score(u, i) = s(u, i) / max_j |s(u, j)| + beta x linked(u, i)
///   linked(u, i) = sum_{v in V_u, v rated i} r~_vi / (|V_u| + lambda)
///
/// s: the ranker's row; V_u: the people linked to u in the model's user graph who rated
/// (infer/cold_lists.h, both directions of an edge, or on a directed graph file those
/// train.ranker_graph_direction reaches: the people u follows, or who follow u); r~_vi: v's rating as a share
/// of the top rating; beta = train.ranker_graph_weight, lambda = train.ranker_graph_shrinkage. Scaling the
/// ranker's row to a largest entry of 1 puts the rankers' scales (EASE's regressions, popularity's counts)
/// beside linked's shares. A user nobody linked rated with keeps the ranker's order. The ratings and the
/// graph are the model's as they stand, so a graph edit changes the lists at once.
///
/// One function for the lists (TrainedModel's ranker rows) and the choice on validation
/// (fit/ranker_graph_choice.h), so that they agree. Torch-free.
#pragma once

#include <cstdint>
#include <vector>

#include "infer/cold_lists.h"

namespace symgnn::infer {

/// max_j |row_j| over the n2 entries, or 1 where that is 0: what the ranker's row is divided by.
double ranker_row_scale(const float* row, int64_t n2);

/// One row: row / ranker_row_scale(row) + weight x linked (both n2 long; row in place).
void mix_user_graph_term(float* row, const float* linked, int64_t n2, double weight);

/// Mixes the linked raters' term into `rows` (one row of n2 ranker scores per user, in
/// place): row / ranker_row_scale(row) + weight x linked.
void add_user_graph_term(std::vector<float>& rows, const std::vector<int64_t>& users, int64_t n2,
                         const ColdLists& linked, double weight, double shrinkage,
                         LinkDirection direction = LinkDirection::both);

}  // namespace symgnn::infer
