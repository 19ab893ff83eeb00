#include "models/score_terms.h"

#include <algorithm>

namespace symgnn::models {

std::vector<std::pair<int64_t, float>> rated_by(const Dataset& ds, int64_t user) {
  std::vector<std::pair<int64_t, float>> out;
  for (const RatingList* list : {&ds.train, &ds.validation})
    for (size_t e = 0; e < list->size(); ++e)
      if (list->user[e] == user) out.emplace_back(list->item[e], list->value[e]);
  // Stable: where a pair repeats, the first (training) value stays first and is kept.
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  out.erase(
      std::unique(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.first == b.first; }),
      out.end());
  return out;
}

RatingList distinct_ratings(const Dataset& ds) {
  std::vector<std::pair<std::pair<int64_t, int64_t>, float>> all;
  all.reserve(ds.train.size() + ds.validation.size());
  for (const RatingList* list : {&ds.train, &ds.validation})
    for (size_t e = 0; e < list->size(); ++e) all.push_back({{list->user[e], list->item[e]}, list->value[e]});
  std::stable_sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  RatingList out;
  for (size_t e = 0; e < all.size(); ++e)
    if (e == 0 || all[e].first != all[e - 1].first)
      out.add(all[e].first.first, all[e].first.second, all[e].second);
  return out;
}

}  // namespace symgnn::models
