// The sampled softmax (SYMGNN_RANKING_LOSSES, symgnn/objectives.h): for each positive (u, i),
// -log( exp s(u,i) / (exp s(u,i) + sum_n exp s(u,j_n)) ) over N = train.negatives items j_n
// drawn uniformly once per step and shared by every positive; the mean over the P positives
// (weighted by their values under counts).
#include <ATen/ATen.h>

#include <algorithm>

#include "models/objectives/ranking_losses.h"

namespace symgnn::models {

at::Tensor sampled_softmax_loss(const ScoreView& v, const Positives& pos, const Objective& o) {
  const int64_t p = pos.users.size(0), n = o.negatives;
  if (p == 0) return v.zero();
  const double inv_p = 1.0 / pos.total();
  const ScoreView x = v.leaves();
  const at::Tensor shared = at::randint(v.items(), {n}, pos.users.options());
  const int64_t chunk = std::max<int64_t>(1, o.block / std::max<int64_t>(1, n * v.width()));
  const double total = backward_in_chunks(p, chunk, [&](int64_t s, int64_t len) {
    const at::Tensor u = pos.users.narrow(0, s, len);
    const at::Tensor own = x.pairs(u, pos.items.narrow(0, s, len));  // [len]
    const at::Tensor neg = x.pairs_shared(u, shared);                // [len, n]
    return pos.weighted_sum(at::logsumexp(at::cat({own.unsqueeze(1), neg}, 1), 1) - own, s) * inv_p;
  });
  return v.carried_back(x, total);
}

}  // namespace symgnn::models
