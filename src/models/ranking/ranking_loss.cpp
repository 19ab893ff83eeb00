// The ranking objectives of ranking_loss.h: blocked full softmax, sampled softmax, BPR.
#include "models/ranking/ranking_loss.h"

#include <torch/torch.h>

#include <algorithm>
#include <functional>

namespace symgnn::models {

Objective::Objective(const TrainConfig& t)
    : objective(t.objective),
      loss(t.ranking_loss),
      weight(t.ranking_weight),
      negatives(t.negatives),
      positive_min(t.positive_min),
      block(t.ranking_block) {}

namespace {

/// Runs `part(start, len)` over [0, n) in chunks of `chunk`, each part's backward at once
/// (the parts read the detached leaves, so each frees its own graph); the sum of the parts'
/// values.
double backward_in_chunks(int64_t n, int64_t chunk, const std::function<at::Tensor(int64_t, int64_t)>& part) {
  double total = 0;
  for (int64_t start = 0; start < n; start += chunk) {
    const at::Tensor loss = part(start, std::min(chunk, n - start));
    loss.backward();
    total += loss.item<double>();
  }
  return total;
}

}  // namespace

at::Tensor ranking_loss(const at::Tensor& u1, const at::Tensor& u2, const at::Tensor& users,
                        const at::Tensor& items, const at::Tensor& target, const Objective& o) {
  TORCH_CHECK(at::GradMode::is_enabled(), "ranking_loss: needs grad mode (it runs backward in blocks)");
  at::Tensor pu = users, pi = items;
  if (o.positive_min > 0) {
    const at::Tensor keep = (target >= o.positive_min).nonzero().squeeze(1);
    pu = users.index_select(0, keep);
    pi = items.index_select(0, keep);
  }
  const int64_t p = pu.size(0), n1 = u1.size(0), n2 = u2.size(0), d = u1.size(1);
  if (p == 0) return (u1.sum() + u2.sum()) * 0.0;
  const double inv_p = 1.0 / static_cast<double>(p);
  // Detached leaves: each block's backward stops here and accumulates.
  const at::Tensor x1 = u1.detach().requires_grad_(), x2 = u2.detach().requires_grad_();
  double total = 0;
  // The positives' own scores: -sum s(u, i) / P (softmax, sampled softmax), in chunks of
  // pairs of `block / d` rows.
  const int64_t pair_chunk = std::max<int64_t>(1, o.block / std::max<int64_t>(1, d));
  if (o.loss == "softmax") {
    total += backward_in_chunks(p, pair_chunk, [&](int64_t s, int64_t len) {
      const at::Tensor a = x1.index_select(0, pu.narrow(0, s, len)),
                       b = x2.index_select(0, pi.narrow(0, s, len));
      return (a * b).sum() * -inv_p;
    });
    // Each user's log-partition counted once per positive of theirs: sum_u c_u lse_u / P.
    const at::Tensor counts = torch::bincount(pu, {}, n1).to(x1.scalar_type());
    const at::Tensor active = counts.nonzero().squeeze(1);
    const int64_t per = std::max<int64_t>(1, o.block / std::max<int64_t>(1, n2));
    total += backward_in_chunks(active.size(0), per, [&](int64_t s, int64_t len) {
      const at::Tensor rows = active.narrow(0, s, len);
      const at::Tensor lse = torch::logsumexp(torch::mm(x1.index_select(0, rows), x2.t()), 1);
      return (lse * counts.index_select(0, rows)).sum() * inv_p;
    });
  } else {
    const int64_t n = o.negatives;
    const bool bpr = o.loss == "bpr";
    // sampled_softmax: one draw shared by every positive of the step; bpr: n per positive.
    const at::Tensor shared = bpr ? at::Tensor() : torch::randint(n2, {n}, pu.options());
    const int64_t chunk = std::max<int64_t>(1, o.block / std::max<int64_t>(1, n * d));
    total += backward_in_chunks(p, chunk, [&](int64_t s, int64_t len) {
      const at::Tensor a = x1.index_select(0, pu.narrow(0, s, len));                 // [len, d]
      const at::Tensor pos = (a * x2.index_select(0, pi.narrow(0, s, len))).sum(1);  // [len]
      if (bpr) {
        const at::Tensor j = torch::randint(n2, {len, n}, pu.options());
        const at::Tensor neg = (a.unsqueeze(1) * x2.index_select(0, j.view(-1)).view({len, n, d})).sum(2);
        return torch::softplus(neg - pos.unsqueeze(1)).mean(1).sum() * inv_p;  // -log sigmoid(pos - neg)
      }
      const at::Tensor neg = torch::mm(a, x2.index_select(0, shared).t());  // [len, n]
      return (torch::logsumexp(torch::cat({pos.unsqueeze(1), neg}, 1), 1) - pos).sum() * inv_p;
    });
  }
  // A stand-in whose value is the loss and whose gradient carries the accumulated ones back
  // through the model: d/dU (U . G) = G.
  at::Tensor back = torch::zeros({}, u1.options());
  if (x1.grad().defined()) back = back + (u1 * x1.grad()).sum();
  if (x2.grad().defined()) back = back + (u2 * x2.grad()).sum();
  return back - back.detach() + total;
}

}  // namespace symgnn::models
