/// @file time_split.h
/// The test split of the loaders that split the ratings themselves (ML-1M, ratings CSV without
/// a test file, synthetic, and MovieLens-100K's u.data under a time-aware split): the seeded
/// random split, or a time-aware one (data.split = temporal or leave_last_out) over the
/// ratings' times, which also carves the validation ratings by time, and counts the leakage
/// it leaves (TimeSplitReport; docs/your_data.md, "Time-aware splits").
#pragma once

#include <string>
#include <vector>

#include "symgnn/config.h"
#include "symgnn/dataset.h"

namespace symgnn::data {

/// Whether data.split names a time-aware split (temporal, leave_last_out).
bool is_time_split(const std::string& split);

/// ds.train and ds.test from `all` under cfg.split: a time-aware split needs `times` (one
/// per rating, unix seconds; DataError naming `where` when it is empty) and fills
/// ds.validation and ds.time_split too; any other split is the random test_fraction drawn
/// with split_seed (times unused).
void split_ratings(const RatingList& all, const std::vector<double>& times, const DataConfig& cfg,
                   const std::string& where, Dataset& ds);

/// The cut-off of data.split = temporal: cfg.split_time read as a time (ConfigError where it
/// is none), else the time of the rating that makes round(test_fraction x n) ratings (at
/// least one) the latest; NaN when `times` is empty.
double temporal_cutoff(const std::vector<double>& times, const DataConfig& cfg);

/// Whether each rating is test under leave_last_out: each user's last `n` ratings by time,
/// equal times ordered by their position in `user` (the later one is the later rating);
/// users with at most `n` ratings have none. `kept` counts those users.
std::vector<char> last_n_of_each_user(const std::vector<int64_t>& user, const std::vector<double>& times,
                                      int64_t n, int64_t& kept);

/// The counts of TimeSplitReport (split, cutoff, last_n and users_kept left as given) over
/// the ratings `is_test` marks test, the others training.
void count_leakage(const RatingList& all, const std::vector<double>& times, const std::vector<char>& is_test,
                   TimeSplitReport& report);

/// One line for the summaries ("" for a split that is not time-aware), e.g. "split
/// temporal at 1998-03-08 10:12:55 UTC: ...".
std::string describe(const TimeSplitReport& r);

}  // namespace symgnn::data
