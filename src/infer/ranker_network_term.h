/// @file
/// The network trained for ranking on the lists of a ranker beside the model
/// (train.ranker_network = on). The rankers (EASE, ItemKNN, the item-based ranker,
/// popularity) score from rated items; the low-rank SyMGNN trained for ranking (the run's
/// graphs, objective ranking, fit/ranker_network_choice.h) learns users' and items'
/// representations through both graphs. Alone it lists worse than EASE; mixed into EASE's
/// lists it adds to them (docs/experiments.md, "The network trained for ranking on the
/// lists"). It joins after the ranker's other terms:
///
///   score(u, i) = lists so far (the ranker's row scaled to a largest entry of 1, with the
///                 user graph's and the items' ratings' terms where kept)
///               + w x (n(u, i) - mean_j n(u, j)) / (max_j n(u, j) - mean_j n(u, j))
///
/// n: the network's scores of every item for u (its logits); w = train.ranker_network_weight.
/// Centring and dividing by the distance from the mean to the top puts the network's top item
/// at 1 beside the ranker's scaled row, whatever the logits' scale. A user or item the network
/// was not fitted on (one a graph edit created, a new user folded in) gets no term.
///
/// One function for the lists (TrainedModel's ranker rows, a fold-in's list, explain) and the
/// choice on validation (fit/ranker_network_choice.h), so that they agree. Torch-free.
#pragma once

#include <cstdint>

namespace symgnn::infer {

/// The network's row as it joins the lists: (row - mean) / (max - mean) over its n entries,
/// written to `out`; all 0 where the row is flat.
void scaled_network_row(const float* row, int64_t n, float* out);

/// One row of the lists in place: row / ranker_row_scale(row) where `scaled` is false (no
/// other term scaled it), plus weight x scaled_network_row(network) over the network's first
/// `network_items` items (the others, items the network was not fitted on, get none).
void add_network_term(float* row, int64_t n2, const float* network, int64_t network_items, double weight,
                      bool scaled);

}  // namespace symgnn::infer
