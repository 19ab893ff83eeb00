/// @file
/// The validation users a list choice judges (fit/cold_list_choice.h,
/// fit/ranker_graph_choice.h): those with a relevant validation item (rated at least
/// eval::default_relevant_min) whom the choice can change (`eligible`: someone linked to them
/// rated), in id order and at most as many as the choice's work allows, with their relevant
/// validation items and their training items.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "symgnn/dataset.h"

namespace symgnn::fitting {

struct JudgedUsers {
  std::vector<int64_t> users;                  // ascending ids
  std::vector<std::vector<int64_t>> relevant;  // by position in `users`: relevant items, ascending
  std::vector<std::vector<int64_t>> trained;   // by position in `users`: the items of `seen`, in its order
};

/// The users with a relevant rating in `judged_on` (ds.validation, or ds.test to report), at
/// most `most` (judged_user_cap); `seen` are the ratings their lists leave out (the training
/// ratings, and the validation ratings when judging on test).
JudgedUsers judged_users(const Dataset& ds, const RatingList& judged_on,
                         const std::vector<const RatingList*>& seen, int64_t most,
                         const std::function<bool(int64_t)>& eligible);

/// The test users a list choice reports on (never chooses on): those with a relevant test item
/// and ratings of their own (users_with_ratings: a user without is listed by infer/cold_lists.h,
/// not by the ranker a term joins) that `eligible` also admits (null: all), at most `most`; their
/// training and validation items left out of their lists.
JudgedUsers judged_test_users(const Dataset& ds, int64_t most,
                              const std::function<bool(int64_t)>& eligible = nullptr);

/// How many users a choice judges when each costs `per_user` scores and all of them at most
/// `scores`: within [least, most], so that a wide catalogue judges fewer users rather than
/// taking minutes (and still enough to judge on).
int64_t judged_user_cap(double scores, int64_t per_user, int64_t least, int64_t most);

/// The mean of `x` (0 for none).
double mean_of(const std::vector<double>& x);
/// The sample standard deviation of `x` (0 below two values).
double sd_of(const std::vector<double>& x);
/// The standard error of the mean of `x`: sd_of(x) / sqrt(its count) (0 for none).
double standard_error(const std::vector<double>& x);

/// A term's gain on the lists: the mean over the judged users of its NDCG@10 less theirs
/// without it, and that mean's standard error. The list choices keep a term where mean > 0
/// and mean > se (the rule the rating members are kept by over their folds,
/// fit/member_selection.h).
struct ListGain {
  double mean = 0, se = 0;
  bool kept() const { return mean > 0 && mean > se; }
};
ListGain list_gain(const std::vector<double>& with, const std::vector<double>& without);

/// Whether each user has a training or validation rating: the test users a ranker lists
/// (the others are listed by infer/cold_lists.h).
std::vector<char> users_with_ratings(const Dataset& ds);

}  // namespace symgnn::fitting
