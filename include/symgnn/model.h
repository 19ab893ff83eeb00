// symgnn: what every learned model sees and offers.
//
// The trainer builds one ModelContext from a Dataset (training ratings only: the prior H
// never contains validation or test entries), moves it to the device, and hands it to
// make_model(). A model predicts ratings for (user, item) index pairs; it never reads
// files and never sees the validation or test ratings.
#pragma once

#include <torch/nn/module.h>

#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "symgnn/config.h"
#include "symgnn/dataset.h"
#include "symgnn/graph.h"

namespace symgnn::models {

class ScoreView;         // models/objectives/score_view.h
struct Combination;      // models/baseline/combined_model.h
struct Biases;           // models/baseline/bias_fit.h
struct Shrinkage;        // models/baseline/bias_fit.h
struct ShrinkageChoice;  // models/baseline/bias_fit.h
struct FoldTrace;        // models/lowrank_trace.h
class ExplainsScores;    // models/score_terms.h

/// Ratings with more distinct values than this are a continuous target: the per-class
/// priors (ModelContext::h) bin them into kBinnedPriorClasses classes between quantiles.
inline constexpr size_t kMaxPriorClasses = 100;
inline constexpr int64_t kBinnedPriorClasses = 10;

/// Fixed inputs of a model, derived once from the training data.
struct ModelContext {
  int64_t n1 = 0;           // users
  int64_t n2 = 0;           // items
  graph::SparseMatrix at1;  // normalised user adjacency At1 (n1 x n1)
  graph::SparseMatrix at2;  // normalised item adjacency At2 (n2 x n2)
  // A directed graph file's links as given (graph::directed_links), for the neighbour
  // members' direction; undefined where the side's graph is undirected.
  graph::SparseMatrix links1, links2;
  at::Tensor f1;              // user side features (n1 x p1), undefined when none
  at::Tensor f2;              // item side features (n2 x p2), undefined when none
  std::vector<float> levels;  // rating classes, ascending (K of them)
  // Training ratings as tensors (int64 indices, float values), on the device.
  at::Tensor train_users, train_items, train_values;
  // One-hot-per-class prior: h[k] is the n1 x n2 matrix with 1 where the training rating
  // equals levels[k] (with more than kMaxPriorClasses levels, a continuous target: where it
  // falls in the k-th of kBinnedPriorClasses quantile bins); ht[k] is its transpose.
  // Stored raw (entries 1); models normalise.
  std::vector<graph::SparseMatrix> h;
  std::vector<graph::SparseMatrix> ht;
  float global_mean = 0.0f;
  float rating_std = 1.0f;
  float rating_min = 0.0f;
  float rating_max = 0.0f;
  // The training ratings from this index on were given after the fit (new ratings, of new
  // users or of users the fit knew: RatingModel::nodes_added); -1 in a context as fitted.
  int64_t added_from = -1;
  // The bias baseline's shrinkage pair chosen by cross-validation on these training ratings
  // (models/baseline/bias_fit.h), made once where the run or the load had a consumer for it
  // and read by each of them: the bias offset of every member built on this context
  // (models/baseline/offset_model.h, give_offset_shrinkage), the baseline's figures beside
  // the model (baseline_figures.h). Null where none was made.
  std::shared_ptr<const ShrinkageChoice> bias_shrinkage;

  ModelContext to(const at::Device& device) const;
};

/// A context already built and the data it was built from, whose graph tensors (at, links,
/// features) a new context shares for each side whose nodes carry the same graph, links and
/// features: a run's contexts over the same nodes (the ranker's and the network's, the
/// selection phase's and the retrain's) then hold them once. Contexts never change them in
/// place. Null members: nothing shared.
struct SharedGraphs {
  const Dataset* ds = nullptr;
  const ModelContext* ctx = nullptr;
};

/// Builds the context of `ds` (its graphs must be resolved: see graph::resolve_graphs).
ModelContext make_context(const Dataset& ds, SharedGraphs shared = {});

/// What a closed-form fit (RatingModel::fit) reports beside the state it leaves in the model.
struct ClosedFormFit {
  /// Predictions of ds.validation (from a fit that did not see them) and of ds.test (from the
  /// final fit), clipped to the rating range, in the lists' order; empty where a list is.
  std::vector<double> val_predictions, test_predictions;
  /// Validation metrics of the fit by the names of train/epoch_metrics.h (e.g. a ranking
  /// kind's val_ndcg@10 at its chosen setting), for metrics.json, tune and blend.
  std::map<std::string, double> metrics;
  /// The kind's own figures for metrics.json (e.g. the Sylv. baseline's chosen a and lambda).
  nlohmann::json details = nlohmann::json::object();
  /// Lines for the console (the chosen values and how they scored).
  std::vector<std::string> summary;
  /// The kind's state as fitted on ds.train alone at the setting chosen, where the fit had it
  /// at hand (elsa: its best measured epoch), by name as train/run_state.h's ModuleState
  /// (buffers prefixed "buffer:"); empty otherwise. fit/ranker_graph_choice.h reads it instead
  /// of fitting the kind on the training ratings again.
  std::map<std::string, at::Tensor> training_state;
};

/// A kind's ranking scores (RatingModel::score_items) as a product of factors, what
/// `symgnn export` writes (docs/export.md) for a vector index or another scorer:
///
///   score(u, j) = users[u] . items[j] + user_bias[u] + item_bias[j] + offset
///
/// for every item j that user u has not rated (lists never show those; some kinds score
/// them apart, e.g. the item-based ranker's -1). Undefined `items`: the kind's scores are
/// not such a product (the graph kinds' decoders).
struct ScoreFactors {
  at::Tensor users;      // [n1, d] float; with users_are_interactions, undefined
  at::Tensor items;      // [n2, d] float
  at::Tensor user_bias;  // [n1] float, undefined: none
  at::Tensor item_bias;  // [n2] float, undefined: none
  double offset = 0;
  /// users[u] is u's binary row of rated items (training + validation, n2 wide), which the
  /// exporter builds from the data: the item-item kinds' X W (items = W^T).
  bool users_are_interactions = false;
  /// One line saying what the factors are, e.g. "z_u = x_u A / |x_u|^(1/2); items = A".
  std::string meaning;
};

/// One user's ratings after a fold-in (RatingModel::fold_user): a user given ratings after
/// the fit, new (index n1, appended) or trained (their ratings joined by new ones), exactly
/// as infer/new_ratings.h adds them to the data and make_context to the context: the new
/// ratings join the user's row of the priors h[k] and the rated items' rows of ht[k]; a new
/// user's row of At1 gathers from their neighbours (nothing links back), their weight rows
/// are zero and their side features are `features` (zeros where undefined).
struct UserFold {
  int64_t user = 0;  // the user's index: n1 for a new user
  /// Every training rating of the user after the fold, by item, with its prior class (the
  /// index of its level in ModelContext::levels) and whether it is new (absent from the
  /// context).
  std::vector<int64_t> items, classes;
  std::vector<double> values;
  std::vector<char> added;
  /// A new user's row of the normalised At1 (graph::normalized_adjacency of the grown
  /// graph): the trained users it gathers from and the entries. Empty: an isolated row;
  /// `identity_row`: At1 is the identity.
  std::vector<int64_t> neighbours;
  std::vector<float> weights;
  bool identity_row = false;
  at::Tensor features;  // [p] float, a new user's raw side features; undefined: zeros
  /// The items whose entries are asked, ascending (a ranker's list needs the ratings of a few);
  /// empty: every item.
  std::vector<int64_t> asked;
};

/// A rating predictor: trained by the trainer (symgnn/model_kinds.h, fit = trained) or fitted
/// in closed form by fit().
class RatingModel : public torch::nn::Module {
 public:
  /// Predicted ratings for the pairs (users[k], items[k]), shape [K].
  virtual at::Tensor forward(const at::Tensor& users, const at::Tensor& items) = 0;
  /// The training objective on observed ratings (default: MSE of forward()); *pred
  /// receives the predicted ratings of the pairs, for reporting the training RMSE.
  /// Models with another decoder (e.g. a softmax over rating classes) override it.
  virtual at::Tensor training_loss(const at::Tensor& users, const at::Tensor& items, const at::Tensor& target,
                                   at::Tensor* pred);
  /// Extra training loss terms (regularisers) of the last training_loss() call;
  /// undefined tensor when none.
  virtual at::Tensor regularization() { return {}; }
  /// The ranking scores s(u, i) behind the last training_loss() call, as the ranking
  /// objectives read them (factors or a dense matrix; models/objectives/score_view.h), their
  /// gradients reaching the model: what train.objective = ranking | joint trains. An
  /// undefined view (the default) for a kind that trains for ratings only.
  virtual ScoreView ranking_scores();
  /// Human-readable name, e.g. "lowrank-G".
  virtual std::string name() const = 0;

  /// Closed-form kinds: fits the model to `ds` (graphs resolved; the model was built on its
  /// context) in one call, choosing what it chooses on ds.validation and refitting on
  /// training + validation for the final state, which the model keeps (save_model saves it).
  /// `log` gets progress lines (an empty one: none). The default throws: trained kinds learn in
  /// train/trainer.h.
  virtual ClosedFormFit fit(const Dataset& ds, const at::Device& device,
                            const std::function<void(const std::string&)>& log);
  /// A closed-form kind that chooses a setting on validation (EASE's lambda): sets `cfg` so
  /// that a new fit tries only the setting a saved fit chose, read from that fit's
  /// figures (its metrics.json, in folder `dir`), and says which (" at ease.lambda = 500").
  /// "" (the default) for a kind that chooses nothing. Throws ConfigError for a kind whose
  /// fit cannot be rebuilt at its choice, DataError where the figures lack it.
  virtual std::string pin_chosen_setting(RunConfig& cfg, const nlohmann::json& figures,
                                         const std::string& dir) const;

  /// train.auto's final combination with the bias baseline, chosen on validation after
  /// training (fit/baseline_guard.h): the kind keeps the weights and the baseline's biases
  /// (fitted under `shrinkage`) in its state. The combination kind that make_model builds
  /// under train.auto (models/baseline/combined_model.h) does; the default throws
  /// ConfigError.
  virtual void set_combination(const Combination& w, const Biases& biases, const Shrinkage& shrinkage);

  /// Predicted ratings of all `n2` items for each of `users` ([B, n2], unclipped, on the
  /// model's device). The default scores the B x n2 pairs through forward(); a model that can
  /// do it in one product (the low-rank model) overrides it.
  virtual at::Tensor rating_items(const at::Tensor& users, int64_t n2);

  /// Ranking scores of all `n2` items for each of `users` ([B, n2], higher ranks first, on
  /// the model's device): what recommend and evaluate rank by. The default is
  /// rating_items(): a rating model ranks by its predicted ratings.
  virtual at::Tensor score_items(const at::Tensor& users, int64_t n2) { return rating_items(users, n2); }

  /// Whether score_items() are the predicted ratings (a model trained for ratings only), or
  /// scores of their own (trained or fitted for ranking: recommend then shows each item's
  /// predicted rating beside it, from rating_items()).
  virtual bool ranks_by_rating() const { return true; }

  /// The model's own representations of one side's nodes (side 0: users, [n1, d]; side 1:
  /// items, [n2, d]), on the model's device: what `symgnn serve`'s GET /v1/similar compares
  /// by cosine (TrainedModel::similar). Undefined (the default) when the kind has none.
  virtual at::Tensor node_representations(int side) {
    (void)side;
    return {};
  }

  /// score_items() as factors (ScoreFactors), on the CPU; undefined items (the default) when
  /// the kind's scores are no such product.
  virtual ScoreFactors score_factors() { return {}; }

  /// Ranking scores ([B, n2], on the model's device) of B users given by their rated items
  /// alone (`rated[b]`: distinct item indices below n2), equal to score_items() of a user the
  /// kind placed from those items (nodes_added): how a served model answers a new or refreshed
  /// user from a ranker that needs nothing else (the item-item kinds, the item-based ranker)
  /// without growing its state. Undefined (the default): the kind must grow instead.
  virtual at::Tensor score_rated_items(const std::vector<std::vector<int64_t>>& rated) {
    (void)rated;
    return {};
  }

  /// One user's rows computed as this model grown by their ratings would compute them
  /// (TrainedModel::with_new_nodes, then score_items and rating_items of that user), for that
  /// user alone: what serve answers a new or refreshed user with in milliseconds (see
  /// UserFold). [2, n2] on the model's device (n2: the asked items where fold.asked names
  /// them): row 0 the ranking scores, row 1 the predicted ratings (unclipped). Undefined (the default) where
  /// the kind cannot: the caller grows the model instead.
  virtual at::Tensor fold_user(const UserFold& fold) {
    (void)fold;
    return {};
  }
  /// Whether fold_user answers (given input its context takes), known before any fold.
  virtual bool folds_users() const { return false; }
  /// Makes what fold_user reads (the low-rank model's trace of a forward pass) ahead of the
  /// first fold, so that threads sharing the model only read it. The default does nothing.
  virtual void prepare_folds() {}

  /// Called on a model just rebuilt from `before`'s weights over the same nodes and ratings
  /// with edited graphs (a graph edit, symgnn/graph_edit.h): takes `before`'s representations
  /// and recomputes only the rows the edit reaches (the rows of At that differ and, layer by
  /// layer, the rows that gather from a changed one), so that an edit costs its receptive
  /// field rather than a forward pass. Returns whether it did; false (the default): the model
  /// computes every row on its first score.
  virtual bool take_graph_edit(RatingModel& before) {
    (void)before;
    return false;
  }
  /// What this member keeps of a full forward in eval mode for fold-ins and graph edits
  /// (models/lowrank_trace.h: the low-rank model's representations and CGE layers), made on the
  /// first call; nullptr (the default): a kind that keeps none. take_graph_edit reads the trace of
  /// the member before the edit through it.
  virtual std::shared_ptr<const FoldTrace> kept_trace() { return nullptr; }
  /// The member this one wraps and forwards to (the bias offset's and the combination's network),
  /// nullptr (the default): none. take_graph_edit hands the wrapped members on through it.
  virtual RatingModel* wrapped() { return nullptr; }

  /// Whether score_rated_items() is linear in the rated items: the row of items A and B is the
  /// row of A plus the row of B (EASE's and the binary Sylvester's x W), so that a trained
  /// user's served row plus the new items' row is their row after a fold-in. False (the
  /// default): the row is computed from all the user's items.
  virtual bool scores_linear_in_rated_items() const { return false; }
  /// The split of this member's scores into parts (symgnn/explain.h), where its kind has one;
  /// nullptr (the default): explanations occlude inputs instead.
  virtual ExplainsScores* explains_scores() { return nullptr; }

  /// Called after a trained state was loaded into a model built for more nodes than it was
  /// trained on, or given ratings after its fit (infer/new_ratings.h: users from index
  /// `trained_users` on, items from `trained_items` on, their weight rows zero; ctx holds
  /// their ratings, the added ones from ctx.added_from on). A model whose per-node state
  /// follows from the ratings rather than from training (the bias offset, the item-based
  /// kinds' user rows) computes it here. The default does nothing.
  virtual void nodes_added(const ModelContext& ctx, int64_t trained_users, int64_t trained_items) {
    (void)ctx;
    (void)trained_users;
    (void)trained_items;
  }
};

/// The one name -> class map (models/registry.cpp, from the rows of symgnn/model_kinds.h):
/// the model of kind cfg.model on `ctx` (its section's variant; a closed-form kind
/// unfitted, of the context's size, ready for fit() or for saved state to load into).
/// Throws ConfigError for an unknown kind.
std::shared_ptr<RatingModel> make_model(const RunConfig& cfg, const ModelContext& ctx);

}  // namespace symgnn::models
