// The validation users a list choice judges (judged_users.h).
#include "fit/judged_users.h"

#include <algorithm>

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

int64_t judged_user_cap(double scores, int64_t per_user, int64_t least, int64_t most) {
  return std::max<int64_t>(
      least, std::min<int64_t>(
                 most, static_cast<int64_t>(scores / static_cast<double>(std::max<int64_t>(per_user, 1)))));
}

}  // namespace symgnn::fitting
