/// @file
/// A kind's score split exactly into the parts its inputs contribute: what `symgnn explain`
/// (symgnn/explain.h) shows for the kinds that are linear in their inputs. Such a kind
/// derives from ExplainsScores beside RatingModel; infer/explain.cpp asks for the split
/// where a model has it and falls back to occlusion (infer/explain_occlusion.cpp) where it
/// has not.
///
///   EASE, ItemKNN (interaction_model.h, itemknn_model.h)   s(u, j) = sum_{i rated by u} W_ij
///   the item-based ranker (elsa/elsa_model.h)              s(u, j) = sum_i a_i . a_j + deep(u) . d_j
///   Eq. 1, binary (sylvester_binary_model.h)               s(u, j) = sum_{(v,i) rated} G_vi,
///   Eq. 1 for ratings (sylvester/completion_model.h)       r(u, j) = mu + sum G_vi (r_vi - mu) / (sum G_vi +
///   lambda (1-a))
///   train.auto's members (baseline/combined_model.h)      r(u, j) = baseline + network's correction +
///                                                          the neighbour members' residuals
///
/// with G_vi = (1-a) sum_k a^k (At1^k)_uv (At2^k)_ji, the weight Eq. 1's fixed point gives
/// the rating (v, i) at (u, j) (sylvester/path_weights.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "symgnn/dataset.h"

namespace symgnn::models {

/// One part of a score: from the rating (user, item) of the data where both are set (its
/// value in `rating`), else a part no single rating owns, named by `what` ("the mean
/// rating", "the deep path"). A rating part's `what` may say why it counts:
/// kSimilarItemTerm, an item among the explained one's most similar.
inline constexpr const char* kSimilarItemTerm = "similar";

struct ScoreTerm {
  int64_t user = -1;
  int64_t item = -1;
  double value = 0;
  std::string what;
};

/// A score and its parts, which sum to it (up to rounding).
struct ScoreTerms {
  double score = 0;
  /// One line: the formula the parts come from.
  std::string method;
  std::vector<ScoreTerm> terms;
};

/// A kind whose score of one (user, item) splits into its inputs' parts.
class ExplainsScores {
 public:
  virtual ~ExplainsScores() = default;
  /// The score of (`user`, `item`) split into parts: score_items()'s score (the kinds that
  /// rank), or forward()'s unclipped rating (the Sylv. rating kind). `ds` is the data the
  /// model's state came from (training and validation ratings, graphs resolved, with the
  /// ratings added after the fit in its training list). Throws ConfigError where the saved
  /// state lacks what the split needs (a directory written before it was kept).
  virtual ScoreTerms score_terms(int64_t user, int64_t item, const Dataset& ds) = 0;
  /// Whether this model's score splits so (the combination with the bias baseline splits
  /// only where a neighbour member is kept; elsewhere occlusion explains its network).
  virtual bool splits_scores() const { return true; }
};

/// The distinct items `user` rated in ds.train and ds.validation, ascending, with the value
/// of each (the first where a pair repeats).
std::vector<std::pair<int64_t, float>> rated_by(const Dataset& ds, int64_t user);

/// Every distinct (user, item) pair of ds.train and ds.validation with its value (the
/// first where a pair repeats), ordered by user, then item.
RatingList distinct_ratings(const Dataset& ds);

}  // namespace symgnn::models
