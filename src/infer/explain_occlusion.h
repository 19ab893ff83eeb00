/// @file
/// Occlusion (symgnn/explain.h) for the kinds whose score is no sum of their inputs' parts
/// (the learned lowrank and base kinds): each candidate input is taken out of the model's
/// data (one training rating of the user, one user-graph edge of the user, one item-graph
/// edge of the item), the members are rebuilt on that data from their trained weights (the
/// rating scale kept, as for new nodes) and the score recomputed; the input's part is the
/// score with it minus the score without it. One forward pass of every member per input.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "infer/model_parts.h"

namespace symgnn::infer {

/// One input taken out of the data.
struct OccludedInput {
  enum class Kind { rating, user_edge, item_edge } kind = Kind::rating;
  int64_t a = -1, b = -1;  // rating: (user, item); user_edge: (user, neighbour); item_edge: (item, other)
};

/// The score of (user, item) ("list": the members' mean score_items; "rating": their mean
/// forward) with all inputs, then with each of `inputs` taken out: [0] all, [k + 1] without
/// inputs[k].
std::vector<double> occluded_scores(const ModelParts& parts, int64_t user, int64_t item,
                                    const std::string& target, const std::vector<OccludedInput>& inputs);

}  // namespace symgnn::infer
