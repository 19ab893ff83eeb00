/// @file
/// train.ranker_quality = auto: whether the items' ratings (infer/ranker_quality_term.h) join
/// the lists of the ranker beside the model, with which weight and shrinkage, chosen on
/// validation after the user graph's term (fit/ranker_graph_choice.h). The ranker is taken as
/// fitted on the training ratings alone (fit/ranker_on_training.h) and q(i) from the training
/// ratings alone; each judged validation user's unrated items are ranked as the lists are so
/// far (the ranker's row, with the user graph's term where it was kept) and with q at each
/// point of kRankerQualityWeights x kRankerQualityShrinkages. Judged: validation users with a
/// relevant validation item. The best point is kept where its mean gain in NDCG@10 over those
/// users exceeds the gain's standard error (the rule of fit/ranker_graph_choice.h); otherwise
/// train.ranker_quality = none. Interactions (data.feedback = implicit or counts) have no
/// ratings to weigh: none. The choice is written into the config (train.ranker_quality,
/// _weight, _shrinkage).
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "symgnn/config.h"
#include "symgnn/dataset.h"

namespace symgnn::fitting {

inline constexpr double kRankerQualityWeights[] = {0.05, 0.1, 0.2, 0.5, 1, 2};
inline constexpr double kRankerQualityShrinkages[] = {3, 10, 30};
inline constexpr int64_t kMinRankerQualityUsers = 20;
inline constexpr int64_t kMaxRankerQualityUsers = 10000;
/// At most this many scores (users x items) judged: each point ranks the whole row, so that
/// 18 points stay seconds on a wide catalogue (2^24 is 5,592 users at 3,000 items, 64 at 260,000).
inline constexpr double kRankerQualityScores = double(int64_t{1} << 24);

struct RankerQualityChoice {
  bool tried = false;
  std::string why;      // why nothing was tried, or ""
  int64_t users = 0;    // validation users judged
  double without = -1;  // their NDCG@10 by the lists without the term
  struct Point {
    double weight = 0, shrinkage = 0, ndcg = 0;
  };
  std::vector<Point> points;
  double gain = 0,
         gain_se = 0;  // the best point's mean gain over `without` (may be <= 0), its standard error
  /// On test, reported and never chosen on: the test users with ratings of their own and a
  /// relevant test item, by the ranker fitted on training + validation (with the user graph's
  /// term where kept), without and with the term at the best point (kept or not); 0: not measured.
  int64_t test_users = 0;
  double test_without = -1, test_with = -1;
  std::string chosen;                // "item" or "none"
  double weight = 0, shrinkage = 0;  // the best point's (written into the config where kept)
  double seconds = 0;
};

/// Resolves cfg.train.ranker_quality = auto (another value is left as it is), after
/// cfg.train.ranker_graph was resolved. `training_rows`: the ranker on the training ratings
/// alone, its scores of a block of users (row-major, ds.items.count a row); `test_rows`: the
/// final ranker's (empty: no test figures).
RankerQualityChoice choose_ranker_quality(
    RunConfig& cfg, const Dataset& ds,
    const std::function<std::vector<float>(const std::vector<int64_t>&)>& training_rows,
    const std::function<std::vector<float>(const std::vector<int64_t>&)>& test_rows);

/// "train.auto: the ranker's lists take the items' ratings: validation NDCG@10 0.1104 at its
/// best point (weight 0.2, shrinkage 10) against 0.1067 without (gain 0.0037 +- 0.0009), ..."
std::string describe(const RankerQualityChoice& c);
nlohmann::json ranker_quality_choice_json(const RankerQualityChoice& c);

}  // namespace symgnn::fitting
