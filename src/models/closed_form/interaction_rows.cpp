#include "models/closed_form/interaction_rows.h"

#include <ATen/ATen.h>

#include <algorithm>

namespace symgnn::models {

void assign_buffer(at::Tensor& buffer, const at::Tensor& values) {
  buffer.set_(values.to(buffer.device(), buffer.scalar_type()).contiguous());
}

void add_user_rows(at::Tensor& ptr, at::Tensor& index, const at::Tensor& rating_users,
                   const at::Tensor& rating_items, int64_t kept, int64_t users) {
  const at::Tensor saved_ptr = ptr.to(at::kCPU).contiguous();
  const int64_t kept_entries = saved_ptr.data_ptr<int64_t>()[kept];
  std::vector<int64_t> p(saved_ptr.data_ptr<int64_t>(), saved_ptr.data_ptr<int64_t>() + kept + 1);
  const at::Tensor saved_index = index.slice(0, 0, kept_entries).to(at::kCPU).contiguous();
  std::vector<int64_t> items(saved_index.data_ptr<int64_t>(), saved_index.data_ptr<int64_t>() + kept_entries);
  const at::Tensor u = rating_users.to(at::kCPU, at::kLong).contiguous(),
                   i = rating_items.to(at::kCPU, at::kLong).contiguous();
  RatingList added;  // the added users' ratings, users counted from the first added one
  for (int64_t e = 0; e < u.size(0); ++e)
    if (const int64_t user = u.data_ptr<int64_t>()[e]; user >= kept)
      added.add(user - kept, i.data_ptr<int64_t>()[e], 1.0f);
  const InteractionRows rows = distinct_rows({&added}, std::max<int64_t>(0, users - kept), true);
  for (size_t r = 1; r < rows.ptr.size(); ++r) p.push_back(kept_entries + rows.ptr[r]);
  items.insert(items.end(), rows.index.begin(), rows.index.end());
  assign_buffer(ptr, at::tensor(p, at::kLong));
  assign_buffer(index, at::tensor(items, at::kLong));
}

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
