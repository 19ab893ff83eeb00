/// @file unseen_test.h
/// Test ratings of ids the model never saw rated, counted and scored apart: the fallback of a
/// pair with an id that is no node (`predict --unknown`, data.unknown_test), and the report
/// of how a test split divides into ratings of known nodes, of nodes without training
/// ratings (placed by their features or graph edges) and of ids that are no node at all.
/// Torch-free: train, evaluate and predict share it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "symgnn/dataset.h"
#include "symgnn/recommend.h"

namespace symgnn::infer {

/// The fallback rating of a pair with an id the model knows nothing about, from the means
/// of `ds.train` (index < 0: unknown id):
///   known-mean              the item's mean rating when it has any, else the user's, else global;
///   item-mean / user-mean   that side's mean when it has any, else the global mean;
///   global-mean (or mean)   `global_mean`.
class Fallback {
 public:
  Fallback(const Dataset& ds, float global_mean, const std::string& policy);
  float operator()(int64_t user, int64_t item) const;

 private:
  float side_mean(const std::vector<double>& sum, const std::vector<int64_t>& count, int64_t k) const;
  std::string policy_;
  float global_;
  std::vector<double> user_sum_, item_sum_;
  std::vector<int64_t> user_count_, item_count_;
};

/// The report for `ds` given the model's prediction of each ds.test rating (`pred`; clipped
/// to the rating range here, as scores are) and the fallback `policy` for ds.test_unknown
/// (its global mean: that of ds.train, as the models' own). Empty on interactions
/// (data.feedback = implicit or counts): no rating is predicted.
UnseenTestReport report_unseen(const Dataset& ds, const std::vector<double>& pred, const std::string& policy);

/// One line for a summary ("test: 12 of 1000 ratings name a user or item without training
/// ratings ..."); "" when every test rating is of nodes with training ratings.
std::string describe(const UnseenTestReport& r);

}  // namespace symgnn::infer
