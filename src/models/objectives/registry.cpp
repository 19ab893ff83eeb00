// The one name -> function map of the ranking losses, from the rows of SYMGNN_RANKING_LOSSES
// (symgnn/objectives.h), and the composition of objective.h.
#include <ATen/ATen.h>

#include <algorithm>

#include "models/objectives/objective.h"
#include "models/objectives/ranking_losses.h"
#include "symgnn/error.h"
#include "symgnn/model.h"
#include "symgnn/objectives.h"

namespace symgnn::models {

Objective::Objective(const TrainConfig& t, bool weighted)
    : objective(t.objective),
      loss(t.ranking_loss),
      weight(t.ranking_weight),
      negatives(t.negatives),
      positive_min(t.positive_min),
      block(t.ranking_block),
      weighted(weighted) {}

double Positives::total() const {
  return weight.defined() ? weight.sum().item<double>() : static_cast<double>(users.size(0));
}

at::Tensor Positives::weighted_sum(const at::Tensor& l, int64_t s) const {
  return weight.defined() ? (l * weight.narrow(0, s, l.size(0)).to(l.scalar_type())).sum() : l.sum();
}

bool Objective::rates() const {
  return objective_rates(objective);
}
bool Objective::ranks() const {
  return objective_ranks(objective);
}

double backward_in_chunks(int64_t n, int64_t chunk, const std::function<at::Tensor(int64_t, int64_t)>& part) {
  double total = 0;
  for (int64_t start = 0; start < n; start += chunk) {
    const at::Tensor loss = part(start, std::min(chunk, n - start));
    loss.backward();
    total += loss.item<double>();
  }
  return total;
}

Positives positives_of(const at::Tensor& users, const at::Tensor& items, const at::Tensor& target,
                       const Objective& o) {
  if (o.positive_min <= 0) return {users, items, o.weighted ? target : at::Tensor()};
  const at::Tensor keep = (target >= o.positive_min).nonzero().squeeze(1);
  return {users.index_select(0, keep), items.index_select(0, keep),
          o.weighted ? target.index_select(0, keep) : at::Tensor()};
}

namespace {

using LossFn = at::Tensor (*)(const ScoreView&, const Positives&, const Objective&);

struct LossEntry {
  const char* name;
  LossFn fn;
};

constexpr LossEntry kLosses[] = {
#define SYMGNN_RANKING_LOSS_ENTRY(name, doc) LossEntry{#name, &name##_loss},
    SYMGNN_RANKING_LOSSES(SYMGNN_RANKING_LOSS_ENTRY)
#undef SYMGNN_RANKING_LOSS_ENTRY
};

}  // namespace

at::Tensor ranking_loss(const ScoreView& view, const at::Tensor& users, const at::Tensor& items,
                        const at::Tensor& target, const Objective& o) {
  TORCH_CHECK(at::GradMode::is_enabled(), "ranking_loss: needs grad mode (it runs backward in blocks)");
  TORCH_CHECK(view.defined(), "ranking_loss: the model exposes no ranking scores");
  const Positives p = positives_of(users, items, target, o);
  for (const LossEntry& e : kLosses)
    if (o.loss == e.name) return e.fn(view, p, o);
  throw ConfigError("train.ranking_loss = '" + o.loss + "': must be one of " + ranking_loss_choices());
}

at::Tensor objective_loss(RatingModel& model, const Objective& o, const at::Tensor& users,
                          const at::Tensor& items, const at::Tensor& target, at::Tensor* pred) {
  const at::Tensor rating = model.training_loss(users, items, target, pred);
  if (!o.ranks()) return rating;
  const at::Tensor rank = ranking_loss(model.ranking_scores(), users, items, target, o);
  return o.rates() ? rating + o.weight * rank : rating + rank;
}

}  // namespace symgnn::models
