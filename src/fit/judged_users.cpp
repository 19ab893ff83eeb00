// The validation users a list choice judges (judged_users.h).
#include "fit/judged_users.h"

#include <algorithm>
#include <cmath>

#include "symgnn/ranking.h"

namespace symgnn::fitting {

JudgedUsers judged_users(const Dataset& ds, const RatingList& judged_on,
                         const std::vector<const RatingList*>& seen, int64_t most,
                         const std::function<bool(int64_t)>& eligible) {
  const double relevant_min = eval::relevant_min_of(ds);
  std::vector<std::vector<int64_t>> relevant_of(static_cast<size_t>(ds.users.count));
  for (size_t e = 0; e < judged_on.size(); ++e)
    if (judged_on.value[e] >= relevant_min)
      relevant_of[static_cast<size_t>(judged_on.user[e])].push_back(judged_on.item[e]);
  JudgedUsers j;
  std::vector<int64_t> slot(static_cast<size_t>(ds.users.count), -1);
  for (int64_t u = 0; u < ds.users.count && static_cast<int64_t>(j.users.size()) < most; ++u) {
    std::vector<int64_t>& relevant = relevant_of[static_cast<size_t>(u)];
    if (relevant.empty() || !eligible(u)) continue;
    slot[static_cast<size_t>(u)] = static_cast<int64_t>(j.users.size());
    j.users.push_back(u);
    std::sort(relevant.begin(), relevant.end());
    j.relevant.push_back(std::move(relevant));
  }
  j.trained.resize(j.users.size());
  for (const RatingList* list : seen)
    for (size_t e = 0; e < list->size(); ++e)
      if (const int64_t k = slot[static_cast<size_t>(list->user[e])]; k >= 0)
        j.trained[static_cast<size_t>(k)].push_back(list->item[e]);
  return j;
}

JudgedUsers judged_test_users(const Dataset& ds, int64_t most, const std::function<bool(int64_t)>& eligible) {
  const std::vector<char> rated = users_with_ratings(ds);
  return judged_users(ds, ds.test, {&ds.train, &ds.validation}, most, [&](int64_t u) {
    return rated[static_cast<size_t>(u)] != 0 && (!eligible || eligible(u));
  });
}

int64_t judged_user_cap(double scores, int64_t per_user, int64_t least, int64_t most) {
  return std::max<int64_t>(
      least, std::min<int64_t>(
                 most, static_cast<int64_t>(scores / static_cast<double>(std::max<int64_t>(per_user, 1)))));
}

double mean_of(const std::vector<double>& x) {
  double s = 0;
  for (const double v : x) s += v;
  return x.empty() ? 0.0 : s / static_cast<double>(x.size());
}

double sd_of(const std::vector<double>& x) {
  if (x.size() < 2) return 0.0;
  const double m = mean_of(x);
  double s = 0;
  for (const double v : x) s += (v - m) * (v - m);
  return std::sqrt(s / static_cast<double>(x.size() - 1));
}

double standard_error(const std::vector<double>& x) {
  return x.empty() ? 0.0 : sd_of(x) / std::sqrt(static_cast<double>(x.size()));
}

ListGain list_gain(const std::vector<double>& with, const std::vector<double>& without) {
  std::vector<double> gain(with.size());
  for (size_t k = 0; k < gain.size(); ++k) gain[k] = with[k] - without[k];
  return {mean_of(gain), standard_error(gain)};
}

std::vector<char> users_with_ratings(const Dataset& ds) {
  std::vector<char> rated(static_cast<size_t>(ds.users.count), 0);
  for (const RatingList* list : {&ds.train, &ds.validation})
    for (const int64_t u : list->user) rated[static_cast<size_t>(u)] = 1;
  return rated;
}

}  // namespace symgnn::fitting
