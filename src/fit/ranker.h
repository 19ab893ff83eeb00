// The ranker fitted beside a model (config key train.ranker, docs/recommend.md, "What a
// user gets by default"). A model trained for ratings ranks by its predicted ratings, and
// those lists are poor: rating-optimised models put rarely rated items with a high
// predicted rating first (docs/experiments.md, "Ranking"). Where no learned ranking of
// ours matches EASE on every set, the default model directory holds two models: the rating
// model that `predict` answers from, and a closed-form ranker in DIR/ranker (a model
// directory of kind ease or itemknn, fitted on the same data) that `recommend` and
// `evaluate` rank by.
#pragma once

#include <cstdint>
#include <string>

#include "symgnn/config.h"

namespace symgnn::fitting {

/// train.ranker = auto fits EASE only where its n2 x n2 inverse and dense n1 x n2 scores
/// stay small (a few seconds and at most 256 MiB of scores); beyond, the model ranks alone.
inline constexpr int64_t kAutoRankerMaxItems = 10000;
inline constexpr int64_t kAutoRankerMaxPairs = int64_t{1} << 26;

struct RankerChoice {
  std::string kind;  // "ease" or "itemknn"; "" when the model ranks by its own scores
  std::string note;  // why auto chose none on data of this size ("" otherwise)
};

/// What train.ranker names for cfg's model on `users` x `items`: explicit kinds as given;
/// auto is ease for a model that ranks by predicted rating (a trained kind on objective
/// rating, or a closed-form kind fitted for ratings) within the limits above, else none.
RankerChoice choose_ranker(const RunConfig& cfg, int64_t users, int64_t items);

}  // namespace symgnn::fitting
