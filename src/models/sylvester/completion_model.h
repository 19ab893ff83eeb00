/// @file
/// The Sylv. baseline (completion.h) as a RatingModel, so that its model directory works
/// like the learned models' with `predict`, `recommend` and `evaluate` (symgnn/trained_model.h).
///
/// It holds the final fit's unclipped predictions, mu + Xr / (Xm + lambda (1 - a)) for
/// every (user, item), as the buffer "scores" (n1 x n2): Eq. 1's solution is dense, so
/// the saved model is as large as X. Nothing in it is trained; `symgnn train --model
/// sylvester` solves and saves it (cli/train_sylvester.cpp).
#pragma once

#include "symgnn/model.h"

namespace symgnn::models::sylvester {

class CompletionModel : public RatingModel {
 public:
  /// scores: n1 x n2 predictions (before clipping).
  explicit CompletionModel(const at::Tensor& scores);
  at::Tensor forward(const at::Tensor& users, const at::Tensor& items) override;
  std::string name() const override { return "sylvester"; }

 private:
  at::Tensor scores_;
};

/// make_model() for inference: the Sylv. baseline (an all-zero placeholder of the
/// context's size, for the saved scores to be loaded into) or a learned model.
std::shared_ptr<RatingModel> make_inference_model(const RunConfig& cfg, const ModelContext& ctx);

}  // namespace symgnn::models::sylvester
