/// @file
/// The paper's Eq. 1 (models/sylvester/sylvester.h) read for binary associations, as a
/// closed-form ranking kind (symgnn/model_kinds.h, `sylvester_binary`): H is the binary
/// training interactions (1 where the user rated the item), and the scores are Eq. 1's
/// solution
///
///   X = a At1 X At2^T + (1-a) H  =  (1-a) sum_k a^k At1^k H At2^k,
///
/// each item scored by the interactions of its graph neighbourhood (and the user's, with a
/// user graph). The paper builds its prior channel this way "only ... when H contains
/// binary associations". The graphs are the data's, as graph.* resolves them; for ranking,
/// an item graph of co-occurrence (graph.item_graph = knn, graph.knn_source =
/// interactions) and no user graph (graph.user_graph = identity) are what measured best
/// (docs/experiments.md, "Ranking"). a is chosen among sylvester.alphas on validation
/// NDCG@10, then X is refit on training + validation (interaction_model.h); the solver is
/// sylvester.solver. Ratings come from damped biases, as for the other ranking kinds.
#pragma once

#include "models/closed_form/interaction_model.h"
#include "symgnn/graph.h"

namespace symgnn::models {

class SylvesterBinaryModel : public InteractionModel {
 public:
  SylvesterBinaryModel(const SylvesterConfig& cfg, const ModelContext& ctx);
  std::string name() const override { return "sylvester_binary"; }
  /// X_uj split by the interactions: G_vi for each (v, i) rated (sylvester/path_weights.h),
  /// over the data's graphs at the a of the final fit.
  ScoreTerms score_terms(int64_t user, int64_t item, const Dataset& ds) override;

 protected:
  std::vector<double> settings() const override { return alphas_; }
  std::string setting_name() const override { return "sylvester.alpha"; }
  std::string settings_key() const override { return "sylvester.alphas"; }
  at::Tensor interaction_scores(const at::Tensor& x, double alpha) const override;
  void prepare(const Dataset& ds, const at::Device& device) override;

 private:
  SylvesterConfig cfg_;
  std::vector<double> alphas_;
  graph::SparseMatrix at1_, at2_;  // the normalised adjacencies of the data fitted on
};

}  // namespace symgnn::models
