// The items' ratings on a ranker's lists (ranker_quality_term.h).
#include "infer/ranker_quality_term.h"

#include "infer/ranker_graph_term.h"

namespace symgnn::infer {

std::vector<float> item_quality(const Dataset& ds, double shrinkage, bool validation) {
  std::vector<const RatingList*> lists = {&ds.train};
  if (validation) lists.push_back(&ds.validation);
  const auto n1 = static_cast<size_t>(ds.users.count), n2 = static_cast<size_t>(ds.items.count);
  // Each rater's mean, then each item's summed deviations from its raters' means.
  std::vector<double> user_sum(n1, 0.0), deviation(n2, 0.0);
  std::vector<int64_t> user_count(n1, 0), item_count(n2, 0);
  for (const RatingList* list : lists)
    for (size_t k = 0; k < list->size(); ++k) {
      user_sum[static_cast<size_t>(list->user[k])] += list->value[k];
      ++user_count[static_cast<size_t>(list->user[k])];
    }
  for (const RatingList* list : lists)
    for (size_t k = 0; k < list->size(); ++k) {
      const auto u = static_cast<size_t>(list->user[k]);
      const auto i = static_cast<size_t>(list->item[k]);
      deviation[i] += list->value[k] - user_sum[u] / static_cast<double>(user_count[u]);
      ++item_count[i];
    }
  const double width =
      ds.rating_max > ds.rating_min ? static_cast<double>(ds.rating_max - ds.rating_min) : 1.0;
  std::vector<float> q(n2, 0.0f);
  for (size_t i = 0; i < n2; ++i)
    if (item_count[i] > 0)
      q[i] = static_cast<float>(deviation[i] / (static_cast<double>(item_count[i]) + shrinkage) / width);
  return q;
}

void add_item_quality_term(float* row, const float* quality, int64_t n2, double weight, bool scaled) {
  const double scale = scaled ? 1.0 : ranker_row_scale(row, n2);
  for (int64_t i = 0; i < n2; ++i)
    row[i] =
        static_cast<float>(static_cast<double>(row[i]) / scale + weight * static_cast<double>(quality[i]));
}

}  // namespace symgnn::infer
