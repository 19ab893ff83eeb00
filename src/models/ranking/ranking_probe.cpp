#include "models/ranking/ranking_probe.h"

#include <ATen/Parallel.h>
#include <torch/types.h>

#include <algorithm>
#include <limits>

namespace symgnn::models {

RankingProbe::RankingProbe(const RatingList& held_out, const std::vector<const RatingList*>& seen, int64_t n1,
                           int64_t n2, double relevant_min, int64_t k, int64_t block_pairs,
                           const at::Device& device)
    : n2_(n2), k_(k) {
  std::vector<std::vector<int64_t>> relevant(static_cast<size_t>(n1));
  for (size_t e = 0; e < held_out.size(); ++e)
    if (held_out.value[e] >= relevant_min)
      relevant[static_cast<size_t>(held_out.user[e])].push_back(held_out.item[e]);
  std::vector<int64_t> slot(static_cast<size_t>(n1), -1);
  for (int64_t u = 0; u < n1; ++u)
    if (!relevant[static_cast<size_t>(u)].empty()) {
      slot[static_cast<size_t>(u)] = static_cast<int64_t>(users_.size());
      users_.push_back(u);
      relevant_.push_back(std::move(relevant[static_cast<size_t>(u)]));
    }
  // Each probed user's seen items, then the blocks' masks as (row in block, item) pairs.
  std::vector<std::vector<int64_t>> seen_of(users_.size());
  for (const RatingList* list : seen)
    for (size_t e = 0; e < list->size(); ++e)
      if (const int64_t s = slot[static_cast<size_t>(list->user[e])]; s >= 0)
        seen_of[static_cast<size_t>(s)].push_back(list->item[e]);
  const int64_t per = std::max<int64_t>(1, block_pairs / std::max<int64_t>(1, n2));
  const auto opts = torch::TensorOptions().dtype(torch::kInt64);
  for (size_t b0 = 0; b0 < users_.size(); b0 += static_cast<size_t>(per)) {
    const size_t b1 = std::min(users_.size(), b0 + static_cast<size_t>(per));
    Block block;
    block.first = b0;
    block.users = torch::tensor(std::vector<int64_t>(users_.begin() + static_cast<std::ptrdiff_t>(b0),
                                                     users_.begin() + static_cast<std::ptrdiff_t>(b1)),
                                opts)
                      .to(device);
    if (!device.is_cpu()) {
      std::vector<int64_t> rows, cols;
      for (size_t s = b0; s < b1; ++s)
        for (const int64_t i : seen_of[s]) rows.push_back(static_cast<int64_t>(s - b0)), cols.push_back(i);
      block.seen_row = torch::tensor(rows, opts).to(device);
      block.seen_col = torch::tensor(cols, opts).to(device);
    }
    blocks_.push_back(std::move(block));
  }
  if (device.is_cpu()) seen_ = std::move(seen_of);
}

void RankingProbe::rank_on_cpu(const Block& b, const at::Tensor& scores, eval::RankingAccumulator& acc,
                               int64_t k) const {
  const at::Tensor s = scores.to(at::kCPU, torch::kFloat);
  const int64_t rows = s.size(0);
  // A scorer that gives every user the same row (popularity) may return it expanded:
  // ranked where it lies instead of copied once per user.
  const bool one_row = rows > 1 && s.stride(0) == 0;
  const at::Tensor dense = (one_row ? s.select(0, 0) : s).contiguous();
  const float* base = dense.data_ptr<float>();
  std::vector<std::vector<int64_t>> lists(static_cast<size_t>(rows));
  at::parallel_for(0, rows, 1, [&](int64_t lo, int64_t hi) {
    std::vector<char> excluded(static_cast<size_t>(n2_), 0);
    for (int64_t r = lo; r < hi; ++r) {
      const std::vector<int64_t>& seen = seen_[b.first + static_cast<size_t>(r)];
      for (const int64_t i : seen) excluded[static_cast<size_t>(i)] = 1;
      lists[static_cast<size_t>(r)] = eval::top_k_items(base + (one_row ? 0 : r * n2_), n2_, k, excluded);
      for (const int64_t i : seen) excluded[static_cast<size_t>(i)] = 0;
    }
  });
  for (int64_t r = 0; r < rows; ++r)
    acc.add(lists[static_cast<size_t>(r)], relevant_[b.first + static_cast<size_t>(r)]);
}

eval::RankingReport RankingProbe::rank(const Scorer& score, const std::vector<int64_t>& ks) const {
  eval::RankingAccumulator acc(ks, n2_);
  const int64_t k = std::min(acc.max_k(), n2_);
  for (const Block& b : blocks_) {
    if (!b.seen_row.defined()) {
      // On the CPU the lists are evaluate's own (eval::top_k_items: ties to the lower item
      // index, NaN last), so that a validation figure is the one `evaluate` of the same
      // scores gives.
      rank_on_cpu(b, score(b.users), acc, k);
      continue;
    }
    at::Tensor s =
        score(b.users).to(torch::kFloat).clone(at::MemoryFormat::Contiguous);  // [B, n2], ours to mask
    s.index_put_({b.seen_row, b.seen_col}, -std::numeric_limits<float>::infinity());
    const auto [values, indices] = s.topk(k, 1);
    const at::Tensor top = indices.to(torch::kCPU).contiguous();
    const at::Tensor val = values.to(torch::kCPU).contiguous();
    const int64_t* t = top.data_ptr<int64_t>();
    const float* v = val.data_ptr<float>();
    for (int64_t r = 0; r < top.size(0); ++r) {
      // Seen items (scored -inf) are no candidates: a user with fewer than k gets a shorter list.
      std::vector<int64_t> ranked;
      for (int64_t c = 0; c < k; ++c)
        if (v[r * k + c] != -std::numeric_limits<float>::infinity()) ranked.push_back(t[r * k + c]);
      acc.add(ranked, relevant_[b.first + static_cast<size_t>(r)]);
    }
  }
  return acc.report();
}

eval::Measurable::Ranker RankingProbe::ranker(Scorer score) const {
  return [this, score = std::move(score)](const std::vector<int64_t>& ks) { return rank(score, ks); };
}

double RankingProbe::figure(const Scorer& score, const std::string& name) const {
  eval::Measurable m;
  m.rank = ranker(score);
  return eval::figure_of(eval::measure(m, "", {name}), name);
}

RankingProbe validation_probe(const Dataset& ds, int64_t block_pairs, const at::Device& device) {
  return RankingProbe(ds.validation, {&ds.train}, ds.users.count, ds.items.count, eval::relevant_min_of(ds),
                      10, block_pairs, device);
}

RankingProbe test_probe(const Dataset& ds, int64_t block_pairs, const at::Device& device) {
  return RankingProbe(ds.test, {&ds.train, &ds.validation}, ds.users.count, ds.items.count,
                      eval::relevant_min_of(ds), 10, block_pairs, device);
}

}  // namespace symgnn::models
