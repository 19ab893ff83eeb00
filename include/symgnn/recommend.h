// symgnn: top-k recommendations and ranking evaluation for any trained model.
//
// Scores are computed in blocks of users against all items (block_pairs pairs at a time),
// so memory is bounded by the block, never a dense users x items matrix; each block's
// users are ranked in parallel. Candidates are the items a user did not rate in the data
// the model trained on (TrainedModel::seen_items), unless include_seen. Ties rank the
// lower item index first. The rules of the ranking metrics are in symgnn/ranking.h.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "symgnn/beyond_accuracy.h"
#include "symgnn/item_filter.h"
#include "symgnn/ranking.h"
#include "symgnn/trained_model.h"
#include "symgnn/update.h"

namespace symgnn {

struct RecommendOptions {
  int64_t k = 10;
  bool include_seen = false;
  /// (user, item) pairs scored at once: users per block = max(1, block_pairs / items).
  int64_t block_pairs = int64_t{1} << 22;
  /// Items a list may not show beyond the seen ones (symgnn/item_filter.h); empty: none.
  ItemFilter filter = {};
};

struct UserRecommendations {
  int64_t user = 0;            // user index (Dataset::users.id_of gives the original id)
  std::vector<int64_t> items;  // item indices, best first
  std::vector<float> scores;   // predicted ratings (clipped to the rating range), same order; a model
                               // trained for ranking ranks by its own scores (ranks_by_rating)
  /// -1: the list holds k items; else it is shorter, holding every candidate the user had
  /// (their rated items and the filters left fewer than k): short_list_note() says so.
  int64_t candidates = -1;
};

/// "" for a full list; else "user 'ID' has 4 candidate items after the filters (...), fewer
/// than k = 10: the list holds 4" (recommend's stderr, serve's "note", Python's warning).
std::string short_list_note(const UserRecommendations& r, const std::string& user_id, int64_t k,
                            const std::string& filters);

/// The k best candidate items of each user of `users` (indices), passed to `sink` in the
/// order of `users`, one block at a time. A user with fewer than k candidate items (their
/// rated items and the filters counted) gets them all, a shorter list
/// (UserRecommendations::candidates). Throws ConfigError when k < 1, a user index is out of
/// range, or a user has no candidate item (the message names the user and the filters).
void recommend_each(const TrainedModel& model, const std::vector<int64_t>& users,
                    const RecommendOptions& opts,
                    const std::function<void(const UserRecommendations&)>& sink);

/// `items` (indices) of `user` in the model's ranking order, best first (ties: the lower
/// index), each with its predicted rating as recommend gives it: the second stage of a
/// two-stage recommender, which re-ranks what another system retrieved. Every item given is
/// ranked, rated ones included. Throws ConfigError for a user or item index out of range, an
/// item given twice or no item.
UserRecommendations rank_items(const TrainedModel& model, int64_t user, const std::vector<int64_t>& items);

/// The list of a user after a change (apply(..., Keep::user), symgnn/update.h) under `opts`:
/// what recommend() gives that user in the model grown by the change (the filter resolved
/// against user.model()). Throws ConfigError as recommend_each does.
UserRecommendations recommend(const UserUpdate& user, const RecommendOptions& opts);

/// rank_items() for a user after a change (apply(..., Keep::user)).
UserRecommendations rank_items(const UserUpdate& user, const std::vector<int64_t>& items);

/// recommend_each collected into a vector.
std::vector<UserRecommendations> recommend(const TrainedModel& model, const std::vector<int64_t>& users,
                                           const RecommendOptions& opts);

struct EvaluateOptions {
  std::vector<int64_t> ks{5, 10, 20};
  /// A test rating >= relevant_min is relevant; NaN: eval::default_relevant_min of the
  /// model's rating range (4 on 1..5 scales, the top fifth of the range otherwise).
  double relevant_min = std::numeric_limits<double>::quiet_NaN();
  int64_t block_pairs = int64_t{1} << 22;
  /// The fallback of test ratings naming an id that is no node (data.unknown_test's words);
  /// empty: the model's data.unknown_test.
  std::string unknown;
};

/// How the test ratings divide by what the model knew of their ids, with each part's figures
/// (computed by src/infer/unseen_test.h).
struct UnseenTestReport {
  int64_t test = 0;           // Dataset::test: ratings the model predicts
  int64_t cold = 0;           // of those, with a user or an item without training ratings
  int64_t unknown = 0;        // Dataset::test_unknown: an id that is no node
  int64_t unknown_users = 0;  // distinct user ids among them that are no node
  int64_t unknown_items = 0;  // distinct item ids among them that are no node
  std::string fallback;       // the policy that scored them (data.unknown_test)
  /// "<part>_<metric>" of every prediction row of symgnn/metrics.h ("cold_rmse") on each part
  /// with ratings: test (the model's), cold (the model's, from features and graphs), unknown
  /// (the fallback's) and all (test and unknown together).
  std::map<std::string, double> errors;
};

struct Evaluation {
  int64_t test_ratings = 0;
  /// Every prediction row of symgnn/metrics.h by name ("rmse", "mae") over the test ratings.
  std::map<std::string, double> errors;
  double relevant_min = 0;  // the threshold used
  int64_t test_users = 0;   // users with at least one test rating
  /// Means over the users with at least one relevant test rating; candidates = all items
  /// the user did not rate in the model's training data.
  eval::RankingReport ranking;
  /// What the same users' lists show (symgnn/beyond_accuracy.h), one per k, and what the
  /// diversity compared: "item graph" or "co-ratings".
  std::vector<eval::BeyondAccuracyAtK> beyond;
  std::string beyond_basis;
  /// The test ratings of ids without training ratings, and of ids that are no node (those
  /// are outside test_ratings, errors and the ranking: no model can score them).
  UnseenTestReport unseen;
};

/// The prediction errors (RMSE, MAE) and the ranking metrics of the model on its dataset's test ratings.
/// Throws DataError when the dataset has no test ratings.
Evaluation evaluate(const TrainedModel& model, const EvaluateOptions& opts);

/// The popularity baseline under the same rules, test users and candidates: every user
/// gets the items with the most training ratings (ties: lower index); its RMSE and MAE are
/// those of the item's mean training rating (the global mean for an unrated item).
Evaluation evaluate_popularity(const TrainedModel& model, const EvaluateOptions& opts);

}  // namespace symgnn
