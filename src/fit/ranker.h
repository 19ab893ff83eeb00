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
#include <vector>

#include "symgnn/config.h"

namespace symgnn::fitting {

/// train.ranker = auto weighs EASE where its n2 x n2 inverse and dense n1 x n2 scores stay
/// small (a few seconds and at most 256 MiB of scores), the item-based ranker (memory n2 x d
/// plus the ratings, models/elsa/elsa_model.h) where they do not, and ItemKNN (sparse:
/// memory linear in the ratings, models/closed_form/itemknn_model.h) and popularity at any
/// width:
/// each is fitted, and the one with the best validation NDCG@10 ranks, so the lists are
/// never worse than popularity's on validation.
inline constexpr int64_t kAutoRankerMaxItems = 10000;
inline constexpr int64_t kAutoRankerMaxPairs = int64_t{1} << 26;
/// The item-based ranker's training no longer scores users against items (its loss is
/// factored, models/elsa/elsa_model.h), but each validation measurement does, through d
/// columns: auto weighs it while users x items x d (its first width) stays below this many
/// multiply-adds, about 15 s a measurement on 2 cores (a 17.6 k x 16 k set at d = 128 is
/// 2^35.2; 20 k x 260 k, bench/bench_elsa_scale.sh, 2^39.3; a 200 k x 200 k one 2^42.2).
inline constexpr double kAutoElsaMaxWork = 1099511627776.0;  // 2^40

struct RankerChoice {
  /// The kinds to fit (train.ranker's, or under auto those of the kind table's ranker column
  /// admitted on the data's size); more than one: the best on validation NDCG@10 is kept.
  /// Empty when the model ranks by its own scores.
  std::vector<std::string> candidates;
  std::string note;  // what auto left out on data of this size ("" otherwise)
};

/// train.ranker_budget = 0: 240 s and 100 s more per million training ratings: EASE at 9,742
/// items (about 200 s on one thread) stays, elsa at 20,000 x 262,000 items (about 670 s) does not.
double ranker_budget_seconds(const RunConfig& cfg, int64_t ratings);

/// What fitting `kind` as a ranker candidate is expected to take on `threads` threads, in
/// seconds, from its work: EASE an n2 x n2 Cholesky inverse per penalty and one more for
/// the refit (about 3e-11 s a multiply-add on one thread of this machine: 28 s a penalty at
/// 9,742 items), or with fewer users than items the n1 x n1 inverses and products of its
/// Woodbury form (models/closed_form/ease_model.h); elsa users x items x its first d per validation
/// measurement, about 1e-9 s each (42 s for 19,533 x 16,121 x 128 on one thread); 0 for itemknn and
/// popularity, sparse and linear in the ratings.
double estimated_seconds(const std::string& kind, const RunConfig& cfg, int64_t users, int64_t items,
                         int threads);

/// What train.ranker names for cfg's model on `users` x `items`: an explicit kind as given;
/// auto, for a model that ranks by predicted rating (a trained kind on objective rating, or
/// a closed-form kind fitted for ratings), the candidates within the limits above; else none.
RankerChoice choose_ranker(const RunConfig& cfg, int64_t users, int64_t items);

}  // namespace symgnn::fitting
