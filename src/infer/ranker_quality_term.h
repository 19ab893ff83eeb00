/// @file
/// The items' ratings on the lists of a ranker beside the model (train.ranker_quality =
/// item). The rankers (EASE, ItemKNN, the item-based ranker, popularity) learn which items a
/// user will rate; a list is judged on the items rated well (evaluate's relevance, a rating
/// of at least eval::default_relevant_min), and how well an item is rated reaches the lists
/// here, after the ranker and the user graph's term (infer/ranker_graph_term.h):
///
///   score(u, i) = s(u, i) / max_j |s(u, j)| [+ beta x linked(u, i)] + gamma x q(i)
///   q(i) = sum_{v rated i} (r_vi - rbar_v) / (|R(i)| + lambda) / (r_max - r_min)
///
/// rbar_v: v's mean rating, so that a lenient rater's 5 counts as much as a strict rater's 4;
/// |R(i)|: i's raters; lambda = train.ranker_quality_shrinkage keeps an item few rated near 0;
/// dividing by the rating scale's width puts q beside the scaled row (at most 1);
/// gamma = train.ranker_quality_weight. q reads every user's ratings as the model holds them,
/// so it is the same for every user, and a new user's list gets it as a trained user's does.
///
/// One function for the lists (TrainedModel's ranker rows, a fold-in's list) and the choice on
/// validation (fit/ranker_quality_choice.h), so that they agree. Torch-free.
#pragma once

#include <cstdint>
#include <vector>

#include "symgnn/dataset.h"

namespace symgnn::infer {

/// q(i) of every item (ds.items.count entries) from ds.train, and ds.validation where
/// `validation` (the final lists: their ranker was refit on both): 0 for an item nobody rated.
std::vector<float> item_quality(const Dataset& ds, double shrinkage, bool validation);

/// One row in place: row / ranker_row_scale(row) + weight x quality where `scaled` is false,
/// row + weight x quality where it is already scaled (the user graph's term mixed in).
void add_item_quality_term(float* row, const float* quality, int64_t n2, double weight, bool scaled);

}  // namespace symgnn::infer
