/// @file
/// train.cold_lists = auto: how users without ratings are listed (infer/cold_lists.h), chosen
/// on validation. No validation user is without ratings, so each is listed as if they had
/// none: their list from the people linked to them (their training ratings unused, the
/// validation ratings of everyone left out), against their relevant validation items, the
/// items they rated in training excluded, NDCG@10 over the validation users with at least one
/// linked rater. Candidates: popularity alone, and the linked people's list at each popularity
/// weight of kColdWeights; the best is written into the config (train.cold_lists =
/// neighbours with train.cold_popularity_weight, or popularity), ties going to popularity.
/// Fewer than kMinColdChoiceUsers such users (no user graph, a graph nobody rated through):
/// popularity, which is what those lists are then anyway.
///
/// Measured: ML-100K's time-aware split (76 test users without training ratings, a k-NN
/// graph of age, gender and occupation) and `real/ciaodvd` (a trust graph);
/// docs/experiments.md, "Lists for users without ratings".
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "symgnn/config.h"
#include "symgnn/dataset.h"

namespace symgnn::fitting {

inline constexpr double kColdWeights[] = {1, 3, 10, 30, 100};
inline constexpr int64_t kMinColdChoiceUsers = 20;
/// The most validation users judged (the first by index): the choice stays a second's work.
inline constexpr int64_t kMaxColdChoiceUsers = 5000;
/// ...and at most this many scores over all candidates (users x items x candidates), so that
/// a wide catalogue judges fewer users (at least kMinColdChoiceUsers) rather than taking
/// minutes: 2^28 is about 150 users at 260,000 items, the cap at 7,000 items.
inline constexpr double kColdChoiceScores = double(int64_t{1} << 28);
/// Users scored at once: a block holds at most this many scores (64 MB of floats).
inline constexpr int64_t kColdChoiceBlockScores = int64_t{1} << 24;

struct ColdListChoice {
  bool tried = false;
  int64_t users = 0;                                 // validation users judged
  double popularity = -1;                            // their NDCG@10 with popularity's list
  std::vector<std::pair<double, double>> by_weight;  // (weight, NDCG@10) of the linked people's lists
  std::string chosen;                                // "neighbours" or "popularity"
  double weight = 0;                                 // the weight chosen (neighbours)
};

/// Resolves cfg.train.cold_lists = auto on ds's validation ratings (any other value is left
/// as it is). Without enough users judged: popularity.
ColdListChoice choose_cold_lists(RunConfig& cfg, const Dataset& ds);

/// "train.auto: users without ratings are listed by the people linked to them (popularity weight 10):
/// validation NDCG@10 0.0412 against popularity's 0.0390, 812 validation users listed as if new"
std::string describe(const ColdListChoice& c);
nlohmann::json cold_list_choice_json(const ColdListChoice& c);

}  // namespace symgnn::fitting
