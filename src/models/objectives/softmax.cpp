// The full softmax (SYMGNN_RANKING_LOSSES, symgnn/objectives.h): for each positive (u, i),
// -log( exp s(u,i) / sum_j exp s(u,j) ) over every item j; the mean over the P positives
// (weighted by their values under counts).
// It never builds the users x items matrix: each user's log-partition is computed once, in
// blocks of train.ranking_block / n2 users, and counted once per positive of theirs.
#include <ATen/ATen.h>

#include <algorithm>

#include "models/objectives/ranking_losses.h"

namespace symgnn::models {

at::Tensor softmax_loss(const ScoreView& v, const Positives& pos, const Objective& o) {
  const int64_t p = pos.users.size(0), n1 = v.users(), n2 = v.items();
  if (p == 0) return v.zero();
  const ScoreView x = v.leaves();
  const double inv_p = 1.0 / pos.total();
  // The positives' own scores: -sum w s(u, i) / sum w, in chunks of `block / width` pairs.
  const int64_t pair_chunk = std::max<int64_t>(1, o.block / std::max<int64_t>(1, v.width()));
  double total = backward_in_chunks(p, pair_chunk, [&](int64_t s, int64_t len) {
    const at::Tensor u = pos.users.narrow(0, s, len), i = pos.items.narrow(0, s, len);
    return (pos.weight.defined() ? pos.weighted_sum(x.pairs(u, i), s) : x.pair_sum(u, i)) * -inv_p;
  });
  // Each user's log-partition counted once per positive of theirs (weighted: their weights'
  // sum): sum_u c_u lse_u / sum w.
  const at::Tensor counts =
      at::bincount(pos.users, pos.weight.defined() ? pos.weight.to(at::kDouble) : at::Tensor(), n1)
          .to(v.scalar_type());
  const at::Tensor active = counts.nonzero().squeeze(1);
  const int64_t per = std::max<int64_t>(1, o.block / std::max<int64_t>(1, n2));
  total += backward_in_chunks(active.size(0), per, [&](int64_t s, int64_t len) {
    const at::Tensor rows = active.narrow(0, s, len);
    const at::Tensor lse = at::logsumexp(x.rows(rows), 1);
    return (lse * counts.index_select(0, rows)).sum() * inv_p;
  });
  return v.carried_back(x, total);
}

}  // namespace symgnn::models
