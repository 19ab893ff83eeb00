/// @file
/// The bias predictor (Koren, TKDD 2010, section 2.1; Surprise's BaselineOnly):
///
///   r(u, i) = mu + b_u + b_i
///
/// mu the mean training rating, the biases the solution of the ridge problem
///
///   min_b  sum_(u,i) (r_ui - mu - b_u - b_i)^2 + lambda_u sum_u b_u^2 + lambda_i sum_i b_i^2
///
/// found by alternating exact steps, each closed form given the other side:
///
///   b_i = sum_{u in R(i)} (r_ui - mu - b_u) / (lambda_i + |R(i)|)
///   b_u = sum_{i in R(u)} (r_ui - mu - b_i) / (lambda_u + |R(u)|)
///
/// until no bias moves by more than 1e-6 of the rating range, or `sweeps` sweeps. A user or
/// an item without training ratings keeps b = 0. The shrinkage pair (lambda_u, lambda_i)
/// comes from a grid, chosen by k-fold cross-validation on the training ratings or by the
/// RMSE of a validation list; predictions are clipped to the training ratings' range.
///
/// The `baseline` kind (baseline_model.h) and the offset of the learned models (offset_model.h,
/// lowrank.offset and base.offset) both fit with it. Of torch it uses the thread pool only
/// (ATen/Parallel.h): each side's step runs its nodes in parallel, each node's sum on one
/// thread in its ratings' order, so a fit is the same at any thread count.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "symgnn/config.h"
#include "symgnn/dataset.h"

namespace symgnn::models {

struct Shrinkage {
  double user = 0;
  double item = 0;
};

struct Biases {
  double mu = 0;
  std::vector<double> user;  // [n1]
  std::vector<double> item;  // [n2]
  int64_t sweeps = 0;        // sweeps the fit took

  double predict(int64_t u, int64_t i) const {
    return mu + user[static_cast<size_t>(u)] + item[static_cast<size_t>(i)];
  }
};

/// The biases of `ratings` over n1 users and n2 items (mu = their mean). `start`, when given
/// and of the right size, is where the alternating steps begin (a warm start; its mu is
/// ignored). At most `sweeps` sweeps.
Biases fit_biases(const RatingList& ratings, int64_t n1, int64_t n2, Shrinkage s, int64_t sweeps,
                  const Biases* start = nullptr);

/// `trained` grown to n1 users and n2 items (users and items added after the fit, at the
/// end): the trained biases and mu stay as they are, and each added node gets the ridge
/// solution of its own ratings in `ratings` with the trained biases fixed,
///
///   b_u = sum_{i in R(u)} (r_ui - mu - b_i) / (lambda_u + |R(u)|)   (and b_i alike),
///
/// alternating between the added items and users (a new user's rating of a new item couples
/// them) until no bias moves by more than 1e-6 of the rating range, or `sweeps` sweeps. An
/// added node without ratings gets 0. The offset of nodes added by --new-ratings
/// (offset_model.h).
Biases extend_biases(const RatingList& ratings, const Biases& trained, int64_t n1, int64_t n2, Shrinkage s,
                     int64_t sweeps);

/// The candidate pairs and how they are scored.
struct ShrinkageGrid {
  std::vector<double> users;  // candidate lambda_u, each >= 0
  std::vector<double> items;  // candidate lambda_i, each >= 0
  int64_t sweeps = 100;       // per fit
  int64_t max_held = 0;       // cross-validation: folds in turn until their held-out ratings reach it; 0: all
};

struct ShrinkageChoice {
  Shrinkage best;
  double figure = 0;  // the chosen pair's (cross-validated or validation) rating figure (rating_metric())
  std::vector<std::vector<double>> table;  // table[a][b]: that figure of (users[a], items[b])
  std::string how;                         // "10-fold cross-validation on 4800 training ratings"
};

/// A cross-validated choice made once and handed to each consumer of the same ratings; null
/// where none was made.
using ChosenShrinkage = std::shared_ptr<const ShrinkageChoice>;

/// What a cross-validation that takes long says as it goes: on the 5 M-rating set of
/// bench/bench_scale.cpp each fold is half a minute with nothing else printed. After each
/// fold, once the first took at least after_seconds, a line: "bias baseline: fold 2 of 3
/// fitted (58 s; 72 shrinkage pairs a fold)". Quick ones say nothing.
struct CvProgress {
  std::function<void(const std::string&)> say;
  double after_seconds = 5.0;
};

/// The pair of `grid` with the lowest rating figure (symgnn/metrics.h, rating_metric(): the
/// RMSE) over `folds` folds of `ratings` (each rating in
/// one fold, by a shuffle seeded with `seed`; each fold predicted by the biases of the
/// others). Where grid.max_held > 0 the folds are fitted in turn only until their held-out
/// ratings reach it (baseline.cv_max_held: on millions of ratings a few folds' figures choose
/// as well as ten, at a fraction of the time). Deterministic for a given seed: seconds on
/// Douban's 117k ratings, so a run makes it once per set of ratings and hands it to every
/// consumer (fit/prepared_data.h, ModelContext::bias_shrinkage). DataError when there are
/// fewer ratings than folds.
/// `progress`, where given, hears of a long cross-validation as it goes (CvProgress).
ShrinkageChoice choose_shrinkage_cv(const RatingList& ratings, int64_t n1, int64_t n2,
                                    const ShrinkageGrid& grid, int64_t folds, uint64_t seed,
                                    const CvProgress* progress = nullptr);

/// The same on ds.train under the baseline section's grid, folds and seed.
ShrinkageChoice choose_shrinkage_cv(const Dataset& ds, const BaselineConfig& cfg,
                                    const CvProgress* progress = nullptr);

/// The pair of `grid` whose biases of `train` predict `validation` best.
ShrinkageChoice choose_shrinkage_on(const RatingList& train, const RatingList& validation, int64_t n1,
                                    int64_t n2, const ShrinkageGrid& grid);

/// The grid of the baseline section (ConfigError for a malformed list).
ShrinkageGrid shrinkage_grid(const BaselineConfig& cfg);

/// The `baseline` kind's choice on `ds`: by cfg.folds-fold cross-validation on ds.train, or
/// (cfg.select = validation) on ds.validation, falling back to cross-validation where there
/// is no validation rating. `cv`, where given, is that cross-validation already made (the
/// run's, on the same ratings): not made again.
ShrinkageChoice choose_shrinkage(const Dataset& ds, const BaselineConfig& cfg,
                                 const ShrinkageChoice* cv = nullptr);

/// ds.train followed by ds.validation: the ratings of the final fits (data::with_validation_in_train's).
RatingList train_and_validation(const Dataset& ds);

/// The biases of ds.train and ds.validation together (the final state of the kind).
Biases fit_final_biases(const Dataset& ds, Shrinkage s, int64_t sweeps);

/// A comma-separated list of shrinkages (non-negative numbers), as baseline.user_shrinkages
/// holds it; ConfigError naming `key` when an entry is not one, or when there is none.
std::vector<double> parse_shrinkages(const std::string& text, const std::string& key);

}  // namespace symgnn::models
