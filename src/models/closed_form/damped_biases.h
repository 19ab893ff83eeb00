/// @file
/// The rating head of the closed-form ranking kinds (EASE, ItemKNN, the binary Sylvester
/// kind; symgnn/model_kinds.h), which do not model rating values: Koren's damped baseline
/// predictor,
///
///   b_i = sum_u (r_ui - mu) / (n_i + 25),  b_u = sum_i (r_ui - mu - b_i) / (n_u + 10),
///   r(u, i) = mu + b_u + b_i,
///
/// items first, then users on what the items leave.
#pragma once

#include <vector>

#include "symgnn/model.h"

namespace symgnn::models {

/// A closed-form ranking kind's base: predicts ratings by the damped biases (buffers b1, b2
/// and global_mean); the kind scores items for ranking itself.
class DampedBiasModel : public RatingModel {
 public:
  at::Tensor forward(const at::Tensor& users, const at::Tensor& items) override;
  at::Tensor rating_items(const at::Tensor& users, int64_t n2) override;
  bool ranks_by_rating() const override { return false; }

 protected:
  /// Biases 0 on the context's users and items, on its device.
  explicit DampedBiasModel(const ModelContext& ctx);
  /// The biases of `ratings`.
  void fit_biases(const std::vector<const RatingList*>& ratings);

  int64_t n1_ = 0, n2_ = 0;
  at::Tensor b1_, b2_, mu_;  // [n1], [n2], [] float
};

}  // namespace symgnn::models
