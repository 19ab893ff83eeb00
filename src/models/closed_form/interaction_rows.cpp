#include "models/closed_form/interaction_rows.h"

#include <ATen/ATen.h>

#include <algorithm>

namespace symgnn::models {

std::pair<at::Tensor, at::Tensor> entries_of_lists(const std::vector<std::vector<int64_t>>& rated,
                                                   const at::Device& device) {
  std::vector<int64_t> row, item;
  for (size_t b = 0; b < rated.size(); ++b)
    for (const int64_t i : rated[b]) row.push_back(static_cast<int64_t>(b)), item.push_back(i);
  const auto opts = at::TensorOptions().dtype(at::kLong);
  return {at::tensor(row, opts).to(device), at::tensor(item, opts).to(device)};
}

void assign_buffer(at::Tensor& buffer, const at::Tensor& values) {
  buffer.set_(values.to(buffer.device(), buffer.scalar_type()).contiguous());
}

void add_user_rows(at::Tensor& ptr, at::Tensor& index, const ModelContext& ctx, int64_t kept, int64_t users,
                   at::Tensor* weight) {
  // The fitted rows and the added ratings as one list of pairs, rebuilt as distinct rows.
  const bool weighted = weight != nullptr && weight->numel() > 0;
  const at::Tensor saved_ptr = ptr.to(at::kCPU).contiguous(), saved_index = index.to(at::kCPU).contiguous();
  const at::Tensor saved_weight = weighted ? weight->to(at::kCPU, at::kFloat).contiguous() : at::Tensor();
  const int64_t* sp = saved_ptr.data_ptr<int64_t>();
  const int64_t* si = saved_index.data_ptr<int64_t>();
  RatingList pairs;
  for (int64_t u = 0; u < kept; ++u)
    for (int64_t k = sp[u]; k < sp[u + 1]; ++k)
      pairs.add(u, si[k], weighted ? saved_weight.data_ptr<float>()[k] : 1.0f);
  const at::Tensor u = ctx.train_users.to(at::kCPU, at::kLong).contiguous(),
                   i = ctx.train_items.to(at::kCPU, at::kLong).contiguous();
  const at::Tensor v = weighted ? ctx.train_values.to(at::kCPU, at::kFloat).contiguous() : at::Tensor();
  for (int64_t e = std::max<int64_t>(0, ctx.added_from); ctx.added_from >= 0 && e < u.size(0); ++e)
    pairs.add(u.data_ptr<int64_t>()[e], i.data_ptr<int64_t>()[e], weighted ? v.data_ptr<float>()[e] : 1.0f);
  const InteractionRows rows = distinct_rows({&pairs}, users, true, weighted);
  assign_buffer(ptr, at::tensor(rows.ptr, at::kLong));
  assign_buffer(index, at::tensor(rows.index, at::kLong));
  if (weighted) assign_buffer(*weight, at::tensor(rows.weight, at::kFloat));
}

InteractionRows distinct_rows(const std::vector<const RatingList*>& ratings, int64_t rows, bool by_user,
                              bool weighted) {
  std::vector<std::vector<std::pair<int64_t, float>>> lists(static_cast<size_t>(rows));
  for (const RatingList* r : ratings)
    for (size_t e = 0; e < r->size(); ++e)
      lists[static_cast<size_t>(by_user ? r->user[e] : r->item[e])].emplace_back(
          by_user ? r->item[e] : r->user[e], weighted ? r->value[e] : 1.0f);
  InteractionRows out;
  out.ptr.push_back(0);
  for (auto& l : lists) {
    // By column, the larger weight first: the first of each column is the one kept.
    std::sort(l.begin(), l.end(), [](const auto& a, const auto& b) {
      return a.first != b.first ? a.first < b.first : a.second > b.second;
    });
    for (size_t k = 0; k < l.size(); ++k) {
      if (k > 0 && l[k].first == l[k - 1].first) continue;
      out.index.push_back(l[k].first);
      if (weighted) out.weight.push_back(l[k].second);
    }
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
