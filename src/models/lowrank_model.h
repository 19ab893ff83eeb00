/// @file
/// The low-rank SyMGNN model (paper, "Low-rank Model"): node representations per side,
/// prediction by dot product.
///
/// Per side (shown for the users; the items swap 1 and 2 and use H_k^T):
///   Uh1     = MLP(F1), last layer plain                 feature MLP (mlp.h)
///   U1^(L)  = CGE^L(Uh1), Ah1 = diag(s) + (I - diag(s)) At1     (cge.h)
///   U1^(att)= phi(B1 Uh1 W_att), B1 = row-softmax(Uh1 Uh1^T)    (within_attention.h)
///   U1^(p)  = MLP([V_1..V_K]), V_k = phi(norm(H_k) Uh2 Theta_k) (prior_aggregation.h)
///   U1^(c)  = phi(C1 Uh2 Theta_c), C1 = row-softmax(Uh1 Uh2^T)  (cross_attention.h)
///   fusion "sum" (paper footnote): U1 = Uh1 + U1^(L) + U1^(att) + U1^(p) + U1^(c);
///   fusion "learned": U1 = [Uh1 || U1^(L) || ...] W_f + b_f  (n1 x md -> n1 x d).
/// Prediction (paper, L_2): `r(i, j) = <U1_i, U2_j>`; with `biases`:
///   `r(i, j) = mean + std * (<U1_i, U2_j> + b1_i + b2_j)`, i.e. the representations fit
///   standardised ratings (mean, std of the training ratings) and the output is mapped
///   back, so predictions are always in rating units.
/// Variants (docs/models.md): full = all modules; G = MLP + CGE + prior aggregation (the
/// paper's "GCE-based", i.e. non-attention, aggregation); A = MLP + within + cross
/// attention. Modules a variant drops have no parameters. layers = 0 drops the CGE stack.
/// Dropout (cfg.dropout) acts on Uh1, Uh2 while training.
/// Extensions beyond the paper (switches, off by default; docs/models.md):
///   decoder = classes: logits_k(i, j) = sum_b a_kb U1_i^T Q_b U2_j over the rating levels
///     r_k, prediction = sum_k softmax(logits)_k r_k, loss = CE + class_mse_weight * MSE;
///   smoothness = lambda: + lambda [tr(U1^T (I - At1) U1)/n1 + tr(U2^T (I - At2) U2)/n2];
///   l2 = lambda: + lambda (mean_i |U1_i|^2 + mean_j |U2_j|^2) on the final representations;
///   prior = encoder: U^(p) from the GC-MC-style encoder (prior_encoder.h) in place of
///     MLP([V_1..V_K]); id_embedding = false then drops Uh, and the CGE / attention modules
///     act on U^(p): U1 = U1^(p) + CGE(U1^(p)) (+ attention terms in the full variant).
///
/// Full batch: every forward computes U1 (n1 x d) and U2 (n2 x d) for all nodes, then
/// gathers the rows of the requested pairs. Build it from a context already on the
/// target device (ModelContext::to): parameters are created there.
#pragma once

#include <memory>
#include <mutex>
#include <utility>

#include "models/layers/cge.h"
#include "models/layers/cross_attention.h"
#include "models/layers/mlp.h"
#include "models/layers/prior_aggregation.h"
#include "models/layers/prior_encoder.h"
#include "models/layers/within_attention.h"
#include "models/objectives/objective.h"
#include "symgnn/model.h"

namespace symgnn::models {

class LowRankModel : public RatingModel {
 public:
  /// `objective` (train.objective, models/objectives/objective.h) decides the heads: for
  /// rating and joint, training_loss() is the decoder's loss as below; for ranking, the
  /// representations serve the ranking scores alone and the ratings come from a head of
  /// biases (mean + std (b1_i + b2_j)), which training_loss() then fits. The ranking loss
  /// itself is the objective's, over ranking_scores(): s(u, i) = <U1_u, U2_i> (times a
  /// learned exp(t) for joint).
  LowRankModel(const LowRankConfig& cfg, const ModelContext& ctx, const Objective& objective = Objective());

  at::Tensor forward(const at::Tensor& users, const at::Tensor& items) override;
  at::Tensor training_loss(const at::Tensor& users, const at::Tensor& items, const at::Tensor& target,
                           at::Tensor* pred) override;
  at::Tensor regularization() override;
  /// The ranking scores of the last training_loss() call: factors (U1, U2), U1 scaled by
  /// exp(t) for objective joint.
  ScoreView ranking_scores() override;
  std::string name() const override { return "lowrank-" + cfg_.variant; }

  /// The final representations (U1 n1 x d, U2 n2 x d) of all nodes.
  std::pair<at::Tensor, at::Tensor> embeddings();

  /// Predicted ratings of every item for the users `block` ([B, n2], unclipped): B x d times
  /// d x n2 products (per basis for the class decoder). The representations are computed on
  /// the first call in eval mode and kept until the mode changes (train() / eval()), so
  /// blocks of users share them.
  at::Tensor rating_items(const at::Tensor& block, int64_t n2) override;
  /// Ranking scores: the predicted ratings for objective rating, else <U1_u, U2_i> (the
  /// score the ranking loss trained), from the same kept representations.
  at::Tensor score_items(const at::Tensor& block, int64_t n2) override;
  bool ranks_by_rating() const override;
  /// U1 or U2, the final representations the decoder reads (kept as score_items keeps them).
  at::Tensor node_representations(int side) override;
  /// <U1_u, U2_i> where the model ranks by its own scores; none for the rating decoder.
  ScoreFactors score_factors() override;
  void train(bool on = true) override;
  /// One user's rows after a fold-in, their receptive field alone recomputed
  /// (lowrank_fold.cpp): variant G with prior = encoder and no id embedding (attention reads
  /// every row), and with prior_norm = symmetric only over the identity user graph (a new
  /// rating then rescales other users' rows); undefined otherwise.
  at::Tensor fold_user(const UserFold& fold) override;
  bool folds_users() const override;
  void prepare_folds() override;
  /// Nodes added without ratings that have graph neighbours (nodes a graph edit created) take
  /// their neighbours' mean U^(p) row (lowrank_graph_prior.cpp); rated ones leave that list.
  void nodes_added(const ModelContext& ctx, int64_t trained_users, int64_t trained_items) override;
  /// From `before`'s trace (lowrank_edit.cpp): the CGE rows At's changed rows reach, the U rows
  /// fused from them; the same cases as fold_user (any prior_norm), with no created node.
  bool take_graph_edit(RatingModel& before) override;
  std::shared_ptr<const FoldTrace> kept_trace() override { return fold_trace(); }

  /// rating_items() from representations returned by embeddings().
  at::Tensor score_all_items(const at::Tensor& u1, const at::Tensor& u2, const at::Tensor& block);

  /// Ratings of the pairs from representations returned by embeddings().
  at::Tensor score(const at::Tensor& u1, const at::Tensor& u2, const at::Tensor& users,
                   const at::Tensor& items);

 private:
  /// One side's modules; those the variant drops stay null (and own no parameters).
  struct Side {
    FeatureMlp mlp{nullptr};
    CGE cge{nullptr};
    WithinAttention within{nullptr};
    PriorAggregation prior{nullptr};
    CrossAttention cross{nullptr};
    torch::nn::Linear fusion{nullptr};
  };
  Side make_side(const std::string& suffix, int64_t n, const at::Tensor& features,
                 const graph::SparseMatrix& at, const std::vector<graph::SparseMatrix>& h);
  /// U of one side from its Uh (undefined without id_embedding), the other side's Uh and
  /// the encoder's U^(p) of both sides (undefined unless prior = encoder).
  at::Tensor fuse(Side& side, const at::Tensor& uh, const at::Tensor& uh_other, const at::Tensor& up,
                  const at::Tensor& up_other);

  LowRankConfig cfg_;
  Side side1_, side2_;
  PriorEncoder encoder_{nullptr};  // prior = encoder: U^(p) of both sides
  /// prior = encoder: the nodes of each side a graph edit created without ratings (empty for
  /// the nodes of training), whose U^(p) row is their graph neighbours' (lowrank_graph_prior.cpp).
  at::Tensor graph_prior_rows1_, graph_prior_rows2_;
  /// The entries of those rows' means: row rows[at[e]] gathers vals[e] x U^(p)[cols[e]] (the
  /// neighbours' At entries over their sum, neighbours of training only; a row without any is
  /// left out and keeps its own).
  struct GraphPrior {
    std::vector<int64_t> rows, at, cols;
    std::vector<float> vals;
    /// Per row, its own side features' share of U^(p) less its neighbours' mean share, and that
    /// difference as it reaches U through the fusion; undefined where the side has no features.
    at::Tensor prior_delta, final_delta;
    /// The rows' values gathered from `source` (rows indexed as U^(p)), plus `delta` where defined.
    at::Tensor rows_from(const at::Tensor& source, const at::Tensor& delta) const;
  };
  /// `rated` (ascending, may be null): nodes of the list a fold-in rates, which leave it.
  GraphPrior graph_prior(int side, const std::vector<int64_t>* rated = nullptr);
  /// `x` (U^(p), or U where `final_rows`, of `side`, n x d) with the graph-prior rows set from
  /// their neighbours.
  at::Tensor with_graph_prior(int side, const at::Tensor& x, bool final_rows);
  /// encoder_->forward() with the graph-prior rows set.
  std::pair<at::Tensor, at::Tensor> priors();
  /// A fold-in's other rows (lowrank_fold.cpp): the graph-prior rows of `side` that read a row
  /// of `changed`, gathered from `x` (U^(p) or U) with those rows changed; those among
  /// `changed` themselves only where `with_changed` (U, whose rows a fold computes by the CGE);
  /// the nodes `rated` (ascending) rates leave the list first.
  NodeRows graph_prior_moved(int side, const at::Tensor& x, const NodeRows& changed, bool with_changed,
                             const std::vector<int64_t>& rated);
  /// Whether a row's representation reads its own rows alone plus At's (eval mode, variant G
  /// with the prior encoder, no id embedding, no attention): what a fold-in and a carried graph
  /// edit recompute row by row from the trace.
  bool traces_rows() const;
  /// What fold_user reads of a full forward in eval mode, made on its first call and kept
  /// until the mode changes (lowrank_fold.cpp).
  std::shared_ptr<const FoldTrace> fold_trace();
  std::shared_ptr<const FoldTrace> fold_trace_;
  std::mutex fold_mutex_;
  /// The decoder's ratings of users x1 [B, d] (biases b1 [B], undefined without) with the
  /// items of u2 (their biases b2, undefined: b2_, every item): score_all_items' product.
  at::Tensor decode_rows(const at::Tensor& x1, const at::Tensor& b1, const at::Tensor& u2,
                         const at::Tensor& b2);
  /// embeddings(), kept between calls in eval mode (rating_items, score_items).
  std::pair<at::Tensor, at::Tensor> scored_embeddings();
  /// The training loss of the rating decoder on representations from embeddings().
  at::Tensor rating_loss(const at::Tensor& u1, const at::Tensor& u2, const at::Tensor& users,
                         const at::Tensor& items, const at::Tensor& target, at::Tensor* pred);
  /// objective = ranking: the bias head's ratings, mean + std (b1_i + b2_j).
  at::Tensor bias_rating(const at::Tensor& users, const at::Tensor& items);
  Objective obj_;
  at::Tensor rank_log_scale_;  // objective = joint: t of the ranking scores exp(t) <U1_u, U2_i>
  /// decoder = classes: logits [K', levels] of the pairs (GC-MC bilinear decoder).
  at::Tensor class_logits(const at::Tensor& u1, const at::Tensor& u2, const at::Tensor& users,
                          const at::Tensor& items);
  /// The dot decoder's output in rating units: with biases, mean + std (r + b1_i + b2_j).
  at::Tensor with_biases(const at::Tensor& r, const at::Tensor& users, const at::Tensor& items);
  /// decoder = classes: the bases side by side, [Q_1 .. Q_nb] (d x nb d), so that U1 times
  /// it is every user's row times every basis in one product.
  at::Tensor stacked_bases() const;
  /// decoder = classes: cross-entropy (+ class_mse_weight x MSE) of the logits [K', levels].
  at::Tensor class_loss(const at::Tensor& logits, const at::Tensor& target, at::Tensor* pred);
  /// training_loss with more pairs than lowrank.decoder_chunk: the decoder scores the
  /// pairs chunk by chunk, each chunk's backward runs at once, and the representations'
  /// accumulated gradients go back through the model in one pass. Same loss and
  /// gradients as one pass over all pairs; memory O(chunk) instead of O(pairs).
  at::Tensor chunked_loss(const at::Tensor& u1, const at::Tensor& u2, const at::Tensor& users,
                          const at::Tensor& items, const at::Tensor& target, at::Tensor* pred);
  at::Tensor b1_, b2_;                // defined only with cfg.biases
  at::Tensor q_;                      // decoder = classes: [bases, d, d] shared bilinear bases Q_b
  at::Tensor a_;                      // decoder = classes: [levels, bases] class coefficients a_kb
  at::Tensor levels_;                 // rating levels [levels] (float, on the model's device)
  graph::SparseMatrix at1_, at2_;     // for the smoothness penalty
  at::Tensor last_u1_, last_u2_;      // representations of the last training_loss() call
  at::Tensor scored_u1_, scored_u2_;  // score_items()'s representations (eval mode)
  double mean_ = 0.0, std_ = 1.0;
};

}  // namespace symgnn::models
