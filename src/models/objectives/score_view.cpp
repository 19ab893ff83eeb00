// ScoreView's operations on factors and on a dense matrix (score_view.h).
#include "models/objectives/score_view.h"

#include <ATen/ATen.h>

#include <utility>

namespace symgnn::models {

ScoreView ScoreView::factors(at::Tensor a, at::Tensor b) {
  TORCH_CHECK(a.dim() == 2 && b.dim() == 2 && a.size(1) == b.size(1),
              "ScoreView: factors must be [n1, d], [n2, d]");
  ScoreView v;
  v.a_ = std::move(a);
  v.b_ = std::move(b);
  return v;
}

ScoreView ScoreView::matrix(at::Tensor x) {
  TORCH_CHECK(x.dim() == 2, "ScoreView: the score matrix must be [n1, n2]");
  ScoreView v;
  v.a_ = std::move(x);
  return v;
}

int64_t ScoreView::users() const {
  return a_.size(0);
}
int64_t ScoreView::items() const {
  return factorised() ? b_.size(0) : a_.size(1);
}
int64_t ScoreView::width() const {
  return factorised() ? a_.size(1) : 1;
}

at::Tensor ScoreView::zero() const {
  return (factorised() ? a_.sum() + b_.sum() : a_.sum()) * 0.0;
}

at::Tensor ScoreView::pairs(const at::Tensor& users, const at::Tensor& items) const {
  if (!factorised()) return a_.index({users, items});
  return (a_.index_select(0, users) * b_.index_select(0, items)).sum(1);
}

at::Tensor ScoreView::pair_sum(const at::Tensor& users, const at::Tensor& items) const {
  if (!factorised()) return a_.index({users, items}).sum();
  return (a_.index_select(0, users) * b_.index_select(0, items)).sum();
}

at::Tensor ScoreView::pairs_each(const at::Tensor& users, const at::Tensor& items) const {
  if (!factorised()) return a_.index_select(0, users).gather(1, items);
  const int64_t p = items.size(0), n = items.size(1), d = a_.size(1);
  return (a_.index_select(0, users).unsqueeze(1) * b_.index_select(0, items.reshape(-1)).view({p, n, d}))
      .sum(2);
}

at::Tensor ScoreView::pairs_shared(const at::Tensor& users, const at::Tensor& items) const {
  if (!factorised()) return a_.index_select(0, users).index_select(1, items);
  return at::mm(a_.index_select(0, users), b_.index_select(0, items).t());
}

at::Tensor ScoreView::rows(const at::Tensor& users) const {
  if (!factorised()) return a_.index_select(0, users);
  return at::mm(a_.index_select(0, users), b_.t());
}

ScoreView ScoreView::leaves() const {
  ScoreView v;
  v.a_ = a_.detach().requires_grad_();
  if (factorised()) v.b_ = b_.detach().requires_grad_();
  return v;
}

at::Tensor ScoreView::carried_back(const ScoreView& leaves, double value) const {
  at::Tensor back = at::zeros({}, a_.options());
  if (leaves.a_.grad().defined()) back = back + (a_ * leaves.a_.grad()).sum();
  if (factorised() && leaves.b_.grad().defined()) back = back + (b_ * leaves.b_.grad()).sum();
  return back - back.detach() + value;
}

}  // namespace symgnn::models
