/// @file
/// The base SyMGNN model (paper, "Base Model for Geometric Matrix Completion"): the n1 x n2
/// association learned directly from four channels, fused per user row.
///
/// As printed: `U1 = MLP1(F1)`, `U2 = MLP2(F2)`; channels X1 (CGE-based), X2 (within-network
/// attention), X3 (prior association), X4 (cross-network attention) form the tensor
/// `Xcal` (n1 x n2 x 4), and `X = bmm(Xcal, Wcal)` with `Wcal` in R^{n1 x 4 x 1}; loss
/// `L_1 = ||H - M (.) X||_F^2` (the trainer's masked MSE on the observed ratings).
///
/// Computed (the channel readings are in layers/base_channels.h and docs/models.md, "Readings
/// and measured facts"):
///   U1 = FeatureMlp(F1), U2 = FeatureMlp(F2)              (n1 x d, n2 x d; mlp.h)
///   X1 = sum_i phi((Ah1^i U1 W'_i)(Ah2^i U2 W'_i)^T)      i = 1..hops
///   X2 = phi((B1 U1 W_a)(B2 U2)^T)
///   X3 = phi(U1 S U2^T), S = sum_k (U1^T Hn_k U2) Theta_k
///   X4 = phi(U1 (U1^T C U2) U2^T)
///   X  = bmm(Xcal, Wcal)                                   n1 x n2 x C times n1 x C x 1
/// Every channel is phi of a rank-d product L_c R_c^T. The model stacks the C = hops + 3
/// factor pairs (hops + 1 for G, 2 for A), forms all C products with one bmm
/// (C x n1 x n2), applies phi once, and fuses with Wcal's column of each channel repeated
/// for the hops of X1. By linearity that is the printed bmm over [X1 || X2 || X3 || X4]
/// (Wcal_i1 sum_h phi(P_h) = sum_h Wcal_i1 phi(P_h)), but each n1 x n2 product is formed
/// once and a single C x n1 x n2 tensor is alive (saved for phi's and bmm's backward).
/// Prediction: `r(i, j) = X_ij` (faithful); with `biases`: `mean + std * (X_ij + b1_i + b2_j)`,
/// X then fits standardised ratings (training mean, std) and the output is in rating units.
///
/// Variants (as the low-rank model, docs/models.md): full = X1..X4; G = X1 + X3 (no
/// attention); A = X2 + X4. Dropped channels have no parameters; Wcal is n1 x (channels) x 1.
/// Config (BaseConfig): hidden = d, hops, activation = phi, attention_block, biases,
/// dropout (on U1, U2 while training), prior_dropout (on Hn_k); prior = encoder takes U1,
/// U2 from the low-rank model's GC-MC-style prior encoder (layers/prior_encoder.h: per
/// rating class, each user aggregates free item embeddings of the items it rated) in
/// place of MLP1, MLP2 (prior_width, prior_node_dropout, prior_dense_dropout,
/// prior_side_width configure it).
/// Parameters: "mlp1.*", "mlp2.*" (or "encoder.*"), "cge.*", "within.w_a", "prior.theta", "w_fuse"
/// [n1, channels, 1] (initialised to 1 / channels), "b1" [n1], "b2" [n2] (biases only).
/// Deviation: X3, X4 readings, FeatureMlp's plain last layer, the optional biases and
/// dropouts (docs/models.md, "Base model").
///
/// Memory (full batch, float32): about 3 C n1 n2 floats transient at the peak of the
/// forward (the products, phi of them, the fused X) plus n1^2 + n2^2 saved attention
/// scores; see bench/bench_base.cpp.
#pragma once

#include <vector>

#include "models/layers/base_channels.h"
#include "models/layers/mlp.h"
#include "models/layers/prior_encoder.h"
#include "models/objectives/objective.h"
#include "symgnn/model.h"

namespace symgnn::models {

class BaseModel : public RatingModel {
 public:
  /// `objective` (train.objective, models/objectives/objective.h) decides the heads: for
  /// rating and joint the ratings are X as above; for ranking X serves the ranking scores
  /// alone and the ratings come from a head of biases (mean + std (b1_i + b2_j)).
  BaseModel(const BaseConfig& cfg, const ModelContext& ctx, const Objective& objective = Objective());

  at::Tensor forward(const at::Tensor& users, const at::Tensor& items) override;
  /// The association X of the last training forward (times a learned exp(t) for objective
  /// joint), as a dense score matrix.
  ScoreView ranking_scores() override;
  /// For an objective that ranks, rows of X (computed once per evaluation); else the
  /// predicted ratings.
  at::Tensor score_items(const at::Tensor& users, int64_t n2) override;
  bool ranks_by_rating() const override { return !ranks_; }
  void train(bool on = true) override;
  std::string name() const override { return "base-" + cfg_.variant; }

  /// The factor pairs (L_c, R_c) of every product, in channel order, and for each the
  /// index of its column in Wcal (0 for every hop of X1).
  std::vector<ChannelFactors> factors(std::vector<int64_t>& column);

  /// The fused association X (n1 x n2), in the units the model fits (standardised with
  /// biases).
  at::Tensor association();

  /// Number of fused channels (the second dimension of Wcal).
  int64_t channels() const { return channels_; }

 private:
  BaseConfig cfg_;
  int64_t n1_ = 0, n2_ = 0, channels_ = 0;
  FeatureMlp mlp1_{nullptr}, mlp2_{nullptr};  // prior = paper
  PriorEncoder encoder_{nullptr};             // prior = encoder
  CgeChannel cge_{nullptr};
  WithinChannel within_{nullptr};
  PriorChannel prior_{nullptr};
  CrossChannel cross_{nullptr};
  at::Tensor w_fuse_;
  bool rates_ = true, ranks_ = false;  // train.objective's heads
  at::Tensor b1_, b2_;                 // with cfg.biases, or the ratings' head for objective ranking
  at::Tensor rank_log_scale_;          // objective = joint: t of the ranking scores exp(t) X
  at::Tensor last_x_;                  // X of the last training forward (ranking_scores)
  at::Tensor scored_x_;                // X kept for score_items between calls in eval mode
  double mean_ = 0.0, std_ = 1.0;
};

}  // namespace symgnn::models
