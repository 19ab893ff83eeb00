// train.auto's choice of the members of the final combination (baseline.combination =
// members, fit/baseline_guard.h): which predictors of the bias baseline's validation
// residuals t = y - baseline to keep, and their weights, such that the choice cannot follow
// the noise of a small validation carve.
//
// Each member is a column m_k (the network's prediction less the baseline's, a graph's
// neighbour member, ...); the combination predicts t by sum_k w_k m_k with w_k >= 0 and no
// intercept, so that with no member kept it is the baseline exactly. The validation ratings
// are dealt into `folds` folds (position modulo folds: the carve is already a random draw);
// a set's error on fold f comes from weights fitted (non-negative least squares,
// blend/nnls.h) on the other folds. Members join greedily, the one of largest mean gain
// first, and a member joins only where its mean gain in RMSE over the folds exceeds the
// spread of that mean (its standard error, sd / sqrt(folds)). Cross-fitted, a member that
// only fits noise gains less than nothing on average; the stricter mean > sd left out a
// network that gains 0.0021 on Douban's validation and 0.0021 on its test (docs/experiments.md,
// "The combination's members"). The kept members' final weights are fitted to all
// validation ratings.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace symgnn::fitting {

struct MemberColumn {
  std::string name;
  std::vector<double> values;  // one per validation rating
};

struct MemberChoice {
  std::string name;
  bool kept = false;
  double weight = 0;       // in the final fit (0 where not kept)
  double gain_alone = 0;   // cross-fitted RMSE gain over the baseline, the member alone
  double gain = 0;         // the same when it was tried for the set (mean over the folds)
  double gain_spread = 0;  // the standard deviation of that gain over the folds (not of its mean)
};

struct MemberSelection {
  std::vector<MemberChoice> members;  // in the order given
  double error_baseline = 0;          // RMSE of t = 0 on the validation ratings (the baseline's)
  double error_crossfit = 0;          // RMSE of the kept set's cross-fitted predictions
};

/// The per-fold RMSE of the cross-fitted predictions of t by `columns` (all of them;
/// none: t = 0), and the fold of each rating is its position modulo `folds`.
std::vector<double> fold_errors(const std::vector<const std::vector<double>*>& columns,
                                const std::vector<double>& t, int64_t folds);

MemberSelection select_members(const std::vector<MemberColumn>& columns, const std::vector<double>& t,
                               int64_t folds);

}  // namespace symgnn::fitting
