#include "models/closed_form/interaction_rows.h"

#include <ATen/ATen.h>

#include <algorithm>

namespace symgnn::models {

void assign_buffer(at::Tensor& buffer, const at::Tensor& values) {
  buffer.set_(values.to(buffer.device(), buffer.scalar_type()).contiguous());
}

void add_user_rows(at::Tensor& ptr, at::Tensor& index, const ModelContext& ctx, int64_t kept, int64_t users) {
  const at::Tensor saved_ptr = ptr.to(at::kCPU).contiguous(), saved_index = index.to(at::kCPU).contiguous();
  const int64_t* sp = saved_ptr.data_ptr<int64_t>();
  const int64_t* si = saved_index.data_ptr<int64_t>();
  std::vector<std::vector<int64_t>> rows(static_cast<size_t>(users));
  for (int64_t u = 0; u < kept; ++u) rows[static_cast<size_t>(u)].assign(si + sp[u], si + sp[u + 1]);
  const at::Tensor u = ctx.train_users.to(at::kCPU, at::kLong).contiguous(),
                   i = ctx.train_items.to(at::kCPU, at::kLong).contiguous();
  for (int64_t e = std::max<int64_t>(0, ctx.added_from); ctx.added_from >= 0 && e < u.size(0); ++e)
    rows[static_cast<size_t>(u.data_ptr<int64_t>()[e])].push_back(i.data_ptr<int64_t>()[e]);
  std::vector<int64_t> p = {0}, items;
  for (auto& row : rows) {
    std::sort(row.begin(), row.end());
    row.erase(std::unique(row.begin(), row.end()), row.end());
    items.insert(items.end(), row.begin(), row.end());
    p.push_back(static_cast<int64_t>(items.size()));
  }
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
