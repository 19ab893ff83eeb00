/// @file random_split.h
/// Seeded random test splits and rating levels shared by the loaders without a given test split
/// (ML-1M, ratings CSV, synthetic). The shuffle is written out (Fisher-Yates over
/// std::mt19937_64 with an unbiased bounded draw) rather than std::shuffle, whose sequence the
/// standard leaves to each library: the same seed gives the same split everywhere.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "data/time_split.h"
#include "symgnn/config.h"
#include "symgnn/dataset.h"

namespace symgnn::data {

/// Uniform integer in [0, n) (n > 0), identical across standard libraries.
uint64_t uniform_below(std::mt19937_64& rng, uint64_t n);

/// In-place Fisher-Yates shuffle of v.
template <class T>
void portable_shuffle(std::vector<T>& v, std::mt19937_64& rng) {
  for (size_t k = v.size(); k > 1; --k) std::swap(v[k - 1], v[uniform_below(rng, k)]);
}

/// Whether cfg asks for no test split: data.test_fraction = 0 where the test is drawn at
/// random (the time-aware splits and given splits keep theirs), so every rating trains.
inline bool holds_out_no_test(const DataConfig& cfg) {
  return cfg.test_fraction <= 0.0 && !is_time_split(cfg.split);
}

/// Moves round(fraction * n) ratings, drawn with `seed`, to `test` (at least one rating stays
/// in train when n >= 1); both keep the input order.
void random_test_split(const RatingList& all, double fraction, uint64_t seed, RatingList& train,
                       RatingList& test);

/// ds.train and ds.test from `all` (split_ratings of data/time_split.h: cfg's time-aware
/// split over `times`, else the random test_fraction drawn with split_seed), on the 1..5 star
/// scale of MovieLens and the synthetic sets; `where` names the ratings in errors.
void split_five_stars(const RatingList& all, const DataConfig& cfg, Dataset& ds,
                      const std::vector<double>& times = {}, const std::string& where = "");

/// Moves the ratings of `from` that `take` marks to the end of `to`, in order; the others stay,
/// shifted down in place (no second copy of a large list), with their `times` where given.
void move_marked(RatingList& from, const std::vector<char>& take, RatingList& to,
                 std::vector<double>* times = nullptr);

/// Sorted distinct values of the given lists.
std::vector<float> distinct_levels(const std::vector<const RatingList*>& lists);

}  // namespace symgnn::data
