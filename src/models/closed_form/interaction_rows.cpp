#include "models/closed_form/interaction_rows.h"

#include <ATen/ATen.h>

#include <algorithm>

namespace symgnn::models {

InteractionRows distinct_rows(const std::vector<const RatingList*>& ratings, int64_t rows, bool by_user) {
  std::vector<std::vector<int64_t>> lists(static_cast<size_t>(rows));
  for (const RatingList* r : ratings)
    for (size_t e = 0; e < r->size(); ++e)
      lists[static_cast<size_t>(by_user ? r->user[e] : r->item[e])].push_back(by_user ? r->item[e]
                                                                                      : r->user[e]);
  InteractionRows out;
  out.ptr.push_back(0);
  for (auto& l : lists) {
    std::sort(l.begin(), l.end());
    l.erase(std::unique(l.begin(), l.end()), l.end());
    out.index.insert(out.index.end(), l.begin(), l.end());
    out.ptr.push_back(static_cast<int64_t>(out.index.size()));
  }
  return out;
}

std::pair<at::Tensor, at::Tensor> expand_rows(const at::Tensor& start, const at::Tensor& lengths) {
  const at::Tensor owner = at::arange(lengths.size(0), lengths.options()).repeat_interleave(lengths);
  const at::Tensor first = at::cumsum(lengths, 0) - lengths;  // each row's first slot
  const at::Tensor slot = at::arange(owner.size(0), lengths.options());
  return {owner, start.index_select(0, owner) + slot - first.index_select(0, owner)};
}

}  // namespace symgnn::models
