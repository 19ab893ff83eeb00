/// @file
/// What a kind exposes to the ranking objectives: its ranking scores s(u, i), as factors
/// (s(u, i) = <a_u, b_i>: the low-rank model's representations) or as a dense users x items
/// matrix (s(u, i) = x_ui: the base model's association). The losses read scores through
/// the operations below only, so one loss serves both forms, and the blocked losses never
/// build a users x items matrix from factors.
///
/// Blocked backward: a loss that runs over blocks takes leaves() (detached copies that
/// require grad), runs each block's backward at once into them, and returns carried_back():
/// a stand-in whose value is the loss and whose gradient takes the leaves' accumulated
/// gradients back through the model that produced the view (d/dA (A . G) = G).
#pragma once

#include <ATen/core/Tensor.h>

namespace symgnn::models {

class ScoreView {
 public:
  ScoreView() = default;
  /// s(u, i) = <a_u, b_i>, a [n1, d], b [n2, d].
  static ScoreView factors(at::Tensor a, at::Tensor b);
  /// s(u, i) = x_ui, x [n1, n2].
  static ScoreView matrix(at::Tensor x);

  bool defined() const { return a_.defined(); }
  bool factorised() const { return b_.defined(); }
  int64_t users() const;
  int64_t items() const;
  at::ScalarType scalar_type() const { return a_.scalar_type(); }
  /// A zero connected to every tensor behind the view (a loss with no positive: every
  /// gradient defined, as the data-parallel all-reduce needs).
  at::Tensor zero() const;
  /// Floats read per score: d for factors, 1 for a matrix (the losses size their chunks by it).
  int64_t width() const;

  /// s(users[k], items[k]), [P].
  at::Tensor pairs(const at::Tensor& users, const at::Tensor& items) const;
  /// Sum over k of s(users[k], items[k]) (one reduction, as a loss's positive term needs).
  at::Tensor pair_sum(const at::Tensor& users, const at::Tensor& items) const;
  /// s(users[k], items[k][n]) for a [P, N] table of items per pair, [P, N].
  at::Tensor pairs_each(const at::Tensor& users, const at::Tensor& items) const;
  /// s(users[k], items[n]) for one list of items shared by every user, [P, N].
  at::Tensor pairs_shared(const at::Tensor& users, const at::Tensor& items) const;
  /// Every item's score for each of `users`, [B, n2].
  at::Tensor rows(const at::Tensor& users) const;

  /// Detached copies of the scores' tensors that require grad.
  ScoreView leaves() const;
  /// sum(t * leaf.grad()) over this view's tensors t whose leaves received gradients, plus
  /// the leaves-free constant `value`: a tensor whose value is `value` and whose backward
  /// carries the leaves' gradients into the tensors behind this view.
  at::Tensor carried_back(const ScoreView& leaves, double value) const;

 private:
  at::Tensor a_, b_;  // factors: a_ [n1, d], b_ [n2, d]; matrix: a_ [n1, n2], b_ undefined
};

}  // namespace symgnn::models
