/// @file unseen_test.cpp
/// The fallback of unknown ids and the report of test ratings by what the model knew of them.
#include "infer/unseen_test.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <unordered_set>

#include "data/parsers.h"
#include "eval/errors.h"
#include "eval/measure.h"
#include "symgnn/metrics.h"

namespace symgnn::infer {

Fallback::Fallback(const Dataset& ds, float global_mean, const std::string& policy)
    : policy_(policy == "mean" ? "global-mean" : policy), global_(global_mean) {
  user_sum_.assign(static_cast<size_t>(ds.users.count), 0.0);
  item_sum_.assign(static_cast<size_t>(ds.items.count), 0.0);
  user_count_.assign(user_sum_.size(), 0);
  item_count_.assign(item_sum_.size(), 0);
  const RatingList& r = ds.train;
  for (size_t e = 0; e < r.size(); ++e) {
    const auto u = static_cast<size_t>(r.user[e]), i = static_cast<size_t>(r.item[e]);
    user_sum_[u] += r.value[e];
    ++user_count_[u];
    item_sum_[i] += r.value[e];
    ++item_count_[i];
  }
}

float Fallback::side_mean(const std::vector<double>& sum, const std::vector<int64_t>& count,
                          int64_t k) const {
  if (k < 0 || count[static_cast<size_t>(k)] == 0) return std::nanf("");
  return static_cast<float>(sum[static_cast<size_t>(k)] / static_cast<double>(count[static_cast<size_t>(k)]));
}

float Fallback::operator()(int64_t user, int64_t item) const {
  float v = std::nanf("");
  if (policy_ == "item-mean" || policy_ == "known-mean") v = side_mean(item_sum_, item_count_, item);
  if (std::isnan(v) && (policy_ == "user-mean" || policy_ == "known-mean"))
    v = side_mean(user_sum_, user_count_, user);
  return std::isnan(v) ? global_ : v;
}

UnseenTestReport report_unseen(const Dataset& ds, const std::vector<double>& pred,
                               const std::string& policy) {
  UnseenTestReport r;
  if (ds.implicit()) return r;  // interactions (data/feedback.h): no rating predicted, none wrong
  r.test = static_cast<int64_t>(ds.test.size());
  r.unknown = static_cast<int64_t>(ds.test_unknown.size());
  r.fallback = policy;
  std::vector<char> user_rated(static_cast<size_t>(ds.users.count), 0),
      item_rated(static_cast<size_t>(ds.items.count), 0);
  for (size_t e = 0; e < ds.train.size(); ++e) {
    user_rated[static_cast<size_t>(ds.train.user[e])] = 1;
    item_rated[static_cast<size_t>(ds.train.item[e])] = 1;
  }
  std::vector<double> test_pred(
      pred.begin(), pred.begin() + static_cast<std::ptrdiff_t>(std::min(pred.size(), ds.test.size())));
  const std::vector<double> diff_test =
      eval::differences(test_pred, ds.test.value, ds.rating_min, ds.rating_max);
  std::vector<double> diff_cold;
  for (size_t e = 0; e < diff_test.size(); ++e)
    if (!user_rated[static_cast<size_t>(ds.test.user[e])] ||
        !item_rated[static_cast<size_t>(ds.test.item[e])])
      diff_cold.push_back(diff_test[e]);
  r.cold = static_cast<int64_t>(diff_cold.size());
  eval::add_errors(r.errors, "test", diff_test);
  eval::add_errors(r.errors, "cold", diff_cold);
  if (r.unknown > 0) {
    const data::IdIndex users = data::id_index(ds.users), items = data::id_index(ds.items);
    double sum = 0;
    for (const float v : ds.train.value) sum += v;
    const float global_mean =
        ds.train.empty() ? 0.0f : static_cast<float>(sum / static_cast<double>(ds.train.size()));
    const Fallback fallback(ds, global_mean, policy);
    std::unordered_set<std::string> new_users, new_items;
    const UnknownRatings& u = ds.test_unknown;
    std::vector<double> fallback_pred(u.size());
    for (size_t e = 0; e < u.size(); ++e) {
      const int64_t uu = users.find(u.user[e]), ii = items.find(u.item[e]);
      if (uu < 0) new_users.insert(u.user[e]);
      if (ii < 0) new_items.insert(u.item[e]);
      fallback_pred[e] = fallback(uu, ii);
    }
    r.unknown_users = static_cast<int64_t>(new_users.size());
    r.unknown_items = static_cast<int64_t>(new_items.size());
    const std::vector<double> diff_unknown =
        eval::differences(fallback_pred, u.value, ds.rating_min, ds.rating_max);
    eval::add_errors(r.errors, "unknown", diff_unknown);
    std::vector<double> diff_all = diff_test;
    diff_all.insert(diff_all.end(), diff_unknown.begin(), diff_unknown.end());
    eval::add_errors(r.errors, "all", diff_all);
  }
  return r;
}

namespace {
std::string fixed4(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4f", v);
  return buf;
}
}  // namespace

std::string describe(const UnseenTestReport& r) {
  if (r.cold == 0 && r.unknown == 0) return "";
  std::string s = "test ratings by what the model knew of their ids:";
  if (r.cold > 0)
    s += " " + std::to_string(r.cold) + " of the " + std::to_string(r.test) +
         " it predicts name a user or item without training ratings (" + rating_label() + " " +
         fixed4(eval::figure_of(r.errors, rating_figure("cold"))) + ", from features and graphs);";
  if (r.unknown > 0)
    s += " " + std::to_string(r.unknown) + " more name an id that is no node (" +
         std::to_string(r.unknown_users) + " user(s), " + std::to_string(r.unknown_items) +
         " item(s)), scored apart by the " + r.fallback + " fallback: " + rating_label() + " " +
         fixed4(eval::figure_of(r.errors, rating_figure("unknown"))) + "; all " +
         std::to_string(r.test + r.unknown) + " together: " + rating_label() + " " +
         fixed4(eval::figure_of(r.errors, rating_figure("all")));
  if (s.back() == ';') s.pop_back();
  return s;
}

}  // namespace symgnn::infer
