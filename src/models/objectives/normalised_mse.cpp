// The normalised MSE (SYMGNN_RANKING_LOSSES, symgnn/objectives.h; ELSA's loss, Vančura et
// al., RecSys 2022): for each user u with a positive in the step,
//   || S_u / |S_u| - X_u / |X_u| ||^2  over every item,
// S_u the user's row of scores and X_u their binary row of the step's positives (their
// weights under counts); the mean over those users. Scale-free in S_u: it trains the
// direction of each user's row, not its size.
// Users go in blocks of train.ranking_block / n2 rows, each block's backward at once.
#include <ATen/ATen.h>

#include <algorithm>

#include "models/objectives/ranking_losses.h"

namespace symgnn::models {

at::Tensor normalised_mse_loss(const ScoreView& v, const Positives& pos, const Objective& o) {
  const int64_t p = pos.users.size(0), n1 = v.users(), n2 = v.items();
  if (p == 0) return v.zero();
  const ScoreView x = v.leaves();
  // The users with a positive, in index order, and each positive's row among them.
  const at::Tensor counts = at::bincount(pos.users, {}, n1);
  const at::Tensor active = counts.nonzero().squeeze(1);
  const int64_t m = active.size(0);
  const at::Tensor slot = at::full({n1}, -1, pos.users.options());
  slot.index_put_({active}, at::arange(m, pos.users.options()));
  const at::Tensor row_of = slot.index_select(0, pos.users);  // [P]
  const double inv_m = 1.0 / static_cast<double>(m);
  const int64_t per = std::max<int64_t>(1, o.block / std::max<int64_t>(1, n2));
  const double total = backward_in_chunks(m, per, [&](int64_t s, int64_t len) {
    const at::Tensor scores = x.rows(active.narrow(0, s, len));  // [len, n2]
    // X_u / |X_u| of the block's users: 1 / sqrt(count) at their positives (a repeated pair
    // counts once), or w / |w| under counts.
    const at::Tensor in = ((row_of >= s) & (row_of < s + len)).nonzero().squeeze(1);
    at::Tensor target = at::zeros({len, n2}, scores.options());
    target.index_put_({row_of.index_select(0, in) - s, pos.items.index_select(0, in)},
                      pos.weight.defined() ? pos.weight.index_select(0, in).to(scores.scalar_type())
                                           : at::ones({in.size(0)}, scores.options()));
    target = target / target.norm(2, {1}, true);
    const at::Tensor unit = scores / scores.norm(2, {1}, true).clamp_min(1e-12);
    return (unit - target).pow(2).sum() * inv_m;
  });
  return v.carried_back(x, total);
}

}  // namespace symgnn::models

namespace symgnn::models {

at::Tensor normalised_mse_factored_loss(const at::Tensor& p, const at::Tensor& p_in,
                                        const at::Tensor& p_target, const at::Tensor& gram,
                                        const at::Tensor& kept, const at::Tensor& count) {
  if (p.size(0) == 0) return (p.sum() + p_in.sum() + p_target.sum() + gram.sum()) * 0;
  // In double: |S_u|^2 is a difference of terms that grow with the square of the user's
  // rated items, and float32 would lose its digits for the most active users.
  const at::Tensor pd = p.to(at::kDouble), g = gram.to(at::kDouble);
  const at::Tensor k = kept.to(at::kDouble), c = count.to(at::kDouble);
  // |S_u|^2 = p G p^T - 2 p.(X'_u F) + |X'_u|   (S_u = p F^T - X'_u, X'_u binary)
  const at::Tensor q = ((pd.mm(g) * pd).sum(1) - 2 * (pd * p_in.to(at::kDouble)).sum(1) + k).clamp_min(0);
  // |S_u| as the dense form clamps it (1e-12), without sqrt's infinite slope at 0.
  const at::Tensor n = q.clamp_min(1e-24).sqrt();
  // <S_u, X_u> = p . (X_u F) - |X'_u|   (X'_u within X_u)
  const at::Tensor dot = (pd * p_target.to(at::kDouble)).sum(1) - k;
  // || S_u/|S_u| - X_u/|X_u| ||^2 = |S_u|^2/n^2 + 1 - 2 <S_u, X_u> / (n |X_u|)
  const at::Tensor per_user = q / (n * n) + 1 - 2 * dot / (n * c.sqrt());
  return per_user.mean().to(p.scalar_type());
}

at::Tensor normalised_mse_autoencoder_loss(const at::Tensor& z, const at::Tensor& w, const at::Tensor& gram,
                                           const at::Tensor& kept, const at::Tensor& count) {
  // F = E, p = X' E = z.
  return normalised_mse_factored_loss(z, z, w, gram, kept, count);
}

}  // namespace symgnn::models
