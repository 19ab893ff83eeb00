/// @file
/// NDCG@k of a model's ranking on held-out ratings, under the protocol of `evaluate`
/// (symgnn/recommend.h): relevant = held-out ratings >= relevant_min; candidates = every
/// item the user did not rate in `seen` (the training ratings); the mean over users with a
/// relevant held-out item. Built once, then scored each epoch (train.select = val_ndcg@10)
/// or for each candidate setting of a closed-form kind (EASE's lambda): users go in blocks
/// of block_pairs / n2 rows, so memory never holds the users x items matrix.
#pragma once

#include <ATen/core/Tensor.h>

#include <functional>
#include <vector>

#include "eval/measure.h"
#include "symgnn/dataset.h"
#include "symgnn/ranking.h"

namespace symgnn::models {

class RankingProbe {
 public:
  /// Scores [B, n2] of every item for a block of users (int64 indices on the device).
  using Scorer = std::function<at::Tensor(const at::Tensor&)>;

  RankingProbe() = default;
  RankingProbe(const RatingList& held_out, const std::vector<const RatingList*>& seen, int64_t n1, int64_t n2,
               double relevant_min, int64_t k, int64_t block_pairs, const at::Device& device);

  /// No user has a relevant held-out item (the probe's metrics would be NaN).
  bool empty() const { return users_.empty(); }
  int64_t users() const { return static_cast<int64_t>(users_.size()); }
  /// The users it scores (those with a relevant held-out item), ascending.
  const std::vector<int64_t>& user_ids() const { return users_; }

  /// The ranking rows at the cut-offs `ks` (ascending) of the scores `score` gives.
  eval::RankingReport rank(const Scorer& score, const std::vector<int64_t>& ks) const;
  /// The scores `score` gives as eval::measure ranks them (the probe outlives the result).
  eval::Measurable::Ranker ranker(Scorer score) const;
  /// The ranking figure `name` ("ndcg@10") of the scores, through eval::measure: what a
  /// closed-form kind chooses its setting by. NaN where no user has a relevant item.
  double figure(const Scorer& score, const std::string& name) const;
  /// The probe's k (10).
  int64_t k() const { return k_; }

 private:
  struct Block {
    size_t first = 0;               // the block's first user, an index into users_
    at::Tensor users;               // [B] on the device
    at::Tensor seen_row, seen_col;  // off the CPU: positions of the block's seen items, to mask with -inf
  };
  /// A block's lists by eval::top_k_items, into `acc`.
  void rank_on_cpu(const Block& b, const at::Tensor& scores, eval::RankingAccumulator& acc, int64_t k) const;

  std::vector<int64_t> users_;                  // users with a relevant item, ascending
  std::vector<std::vector<int64_t>> relevant_;  // their relevant items
  std::vector<std::vector<int64_t>> seen_;      // on the CPU: their seen items
  std::vector<Block> blocks_;
  int64_t n2_ = 0, k_ = 10;
};

/// The probes every fit uses, at k = 10 with evaluate's default threshold of the dataset's
/// rating range: validation (candidates exclude the training ratings) and test (they also
/// exclude the validation ratings, which the final model saw).
RankingProbe validation_probe(const Dataset& ds, int64_t block_pairs, const at::Device& device);
RankingProbe test_probe(const Dataset& ds, int64_t block_pairs, const at::Device& device);

}  // namespace symgnn::models
