// BPR (SYMGNN_RANKING_LOSSES, symgnn/objectives.h): for each positive (u, i) and each of
// N = train.negatives items j drawn uniformly for it, -log sigmoid( s(u,i) - s(u,j) ); the
// mean over the N draws, then over the P positives (weighted by their values under counts).
#include <ATen/ATen.h>

#include <algorithm>

#include "models/objectives/ranking_losses.h"

namespace symgnn::models {

at::Tensor bpr_loss(const ScoreView& v, const Positives& pos, const Objective& o) {
  const int64_t p = pos.users.size(0), n = o.negatives;
  if (p == 0) return v.zero();
  const double inv_p = 1.0 / pos.total();
  const ScoreView x = v.leaves();
  const int64_t chunk = std::max<int64_t>(1, o.block / std::max<int64_t>(1, n * v.width()));
  const double total = backward_in_chunks(p, chunk, [&](int64_t s, int64_t len) {
    const at::Tensor u = pos.users.narrow(0, s, len);
    const at::Tensor own = x.pairs(u, pos.items.narrow(0, s, len));  // [len]
    const at::Tensor j = at::randint(v.items(), {len, n}, pos.users.options());
    const at::Tensor neg = x.pairs_each(u, j);  // [len, n]
    // -log sigmoid(own - neg)
    return pos.weighted_sum(at::softplus(neg - own.unsqueeze(1)).mean(1), s) * inv_p;
  });
  return v.carried_back(x, total);
}

}  // namespace symgnn::models
