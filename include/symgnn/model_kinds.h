// symgnn: the one table of model kinds.
//
// Every kind of model symgnn can fit is one row of SYMGNN_MODEL_KINDS: its name (the
// config key `model`), the config section holding its hyperparameters ("" for none), how it
// is fitted, what it supports, and a one-line summary. The table drives the config's
// choices for `model` (config.h), `train --model`, `--variant`, the Python docs and
// `symgnn models`; src/models/registry.cpp expands the same rows into the builders, so a
// row's `name` must have a `make_<name>_model(const RunConfig&, const ModelContext&)` in
// its own files (docs/architecture.md, "Adding a model kind").
//
// Columns: X(name, section, fit, variants, new_nodes, objectives, graphs, ranker, role, summary)
//   fit        trained (by the trainer, train/trainer.h, epoch by epoch) or closed_form
//              (RatingModel::fit, one call that chooses its settings on validation itself; no
//              checkpoints, no runs: the item-based ranker iterates inside it, from train.seed)
//   variants   whether `<section>.variant` (full|G|A) applies (`train --variant`)
//   new_nodes  whether `--new-ratings` can place users or items absent from training
//   objectives the `train.objective` values a trained kind trains for ('|'-separated); for a
//              closed-form kind, what its fit serves (train.objective does not apply)
//   graphs     the sides whose graph the kind reads ("user|item", "item", "" for none): where
//              it reads one side only, the other is refused where a run asks for it
//              (check_config); a kind reading none takes graphs and leaves them
//   ranker     whether train.ranker = auto weighs the kind as a ranker candidate beside a
//              rating model, by the cost class of its fit (fit/ranker.h): "inverse" (an
//              n2 x n2 inverse per penalty and dense n1 x n2 scores: within kAutoRankerMaxItems
//              and kAutoRankerMaxPairs), "width" (users x items x its first width per validation
//              measurement: where no inverse kind fits, within kAutoElsaMaxWork), "sparse"
//              (linear in the ratings: always), "floor" (the reference every list must beat on
//              validation: always, last); "" for none
//   role       what the kind stands for elsewhere: "bias_baseline" (the bias baseline, whose
//              figures every other rating kind shows beside its own:
//              models/baseline/baseline_figures.h), "stand_in" (what fits interactions in place
//              of a kind that fits rating values: fit/implicit_feedback.h), "" for none
// Torch-free: the config reader (src/util/config_io.cpp) and the fuzzers include it.
#pragma once

#include <stdexcept>
#include <string>

#include "symgnn/error.h"
#include "symgnn/table_rows.h"

#define SYMGNN_MODEL_KINDS(X)                                                                       \
  X(lowrank, "lowrank", trained, true, true, "rating|ranking|joint", "user|item", "", "",           \
    "the low-rank SyMGNN: node representations, prediction by dot product or rating classes "       \
    "(paper, Low-rank Model)")                                                                      \
  X(base, "base", trained, true, true, "rating|ranking|joint", "user|item", "", "",                 \
    "the base SyMGNN: the 2-D association's four channels fused per pair (paper, Base Model)")      \
  X(sylvester, "sylvester", closed_form, false, false, "rating", "user|item", "", "",               \
    "the Sylv. baseline: Eq. 1 solved for ratings and mask, a and lambda chosen on validation "     \
    "(models/sylvester/completion.h)")                                                              \
  X(baseline, "baseline", closed_form, false, false, "rating", "", "", "bias_baseline",             \
    "the bias baseline: mu + b_u + b_i, ridge biases by alternating exact steps, the shrinkage "    \
    "pair chosen by cross-validation on the training ratings (models/baseline/baseline_model.h)")   \
  X(popularity, "", closed_form, false, true, "ranking", "", "floor", "stand_in",                   \
    "the popularity baseline: items ranked by their number of training ratings, ratings predicted " \
    "by the item's mean (models/popularity/popularity_model.h)")                                    \
  X(itemknn, "itemknn", closed_form, false, true, "ranking", "", "sparse", "",                      \
    "ItemKNN: cosine similarity of the items' binary interaction columns, the k nearest kept; "     \
    "ratings from damped user and item biases (models/closed_form/itemknn_model.h)")                \
  X(ease, "ease", closed_form, false, true, "ranking", "", "inverse", "",                           \
    "EASE: the closed-form item-item ridge regression of the binary interactions, lambda chosen "   \
    "on validation NDCG@10 (models/closed_form/ease_model.h)")                                      \
  X(elsa, "elsa", closed_form, false, true, "ranking", "item", "width", "",                         \
    "the item-based ranker: a user is the sum of their rated items' unit rows of A (n_items x d), " \
    "items scored against it, trained on ELSA's normalised MSE; d and epochs chosen on validation " \
    "NDCG@10 (models/elsa/elsa_model.h)")                                                           \
  X(sylvester_binary, "sylvester", closed_form, false, false, "ranking", "user|item", "", "",       \
    "Eq. 1 on the binary interactions: scores X = (1-a) sum_k a^k At1^k H At2^k over the data's "   \
    "graphs (a co-occurrence item graph: graph.knn_source = interactions), a chosen on validation " \
    "NDCG@10 (models/closed_form/sylvester_binary_model.h)")

namespace symgnn {

enum class FitMethod { trained, closed_form };

struct ModelKind {
  const char* name;
  const char* section;  // config section of its hyperparameters, "" for none
  FitMethod fit;
  bool variants;
  bool new_nodes;
  const char* objectives;
  const char* graphs;  // "user|item", "item" or ""
  const char* ranker;  // "inverse", "width", "sparse", "floor" or "": a ranker candidate's cost class
  const char* role;    // "bias_baseline", "stand_in" or ""
  const char* summary;
};

inline constexpr ModelKind kModelKinds[] = {
#define SYMGNN_KIND_ROW(name, section, fit, variants, new_nodes, objectives, graphs, ranker, role, summary) \
  ModelKind{#name, section, FitMethod::fit, variants, new_nodes, objectives, graphs, ranker, role, summary},
    SYMGNN_MODEL_KINDS(SYMGNN_KIND_ROW)
#undef SYMGNN_KIND_ROW
};

/// The table's row named `name`, or nullptr.
inline const ModelKind* find_model_kind(const std::string& name) {
  return find_row(kModelKinds, name);
}

/// The table's row named `name`; ConfigError naming the choices when there is none.
inline const ModelKind& model_kind(const std::string& name) {
  if (const ModelKind* k = find_model_kind(name)) return *k;
  throw ConfigError("model = '" + name + "': must be one of " + row_names(kModelKinds));
}

/// Whether `kind`'s objectives column lists `objective`: what a trained kind can train for,
/// what a closed-form kind's fit serves.
inline bool kind_serves(const ModelKind& kind, const std::string& objective) {
  return ("|" + std::string(kind.objectives) + "|").find("|" + objective + "|") != std::string::npos;
}

/// Whether `kind` reads the graph of `side` ("user" or "item").
inline bool kind_reads_graph(const ModelKind& kind, const std::string& side) {
  return ("|" + std::string(kind.graphs) + "|").find("|" + side + "|") != std::string::npos;
}

/// Whether `kind`'s hyperparameters are the config section `section`: its keys (e.g.
/// lowrank.offset, lowrank.prior) apply to a run of the kind.
inline bool kind_reads_section(const ModelKind& kind, const std::string& section) {
  return section == kind.section;
}

/// Whether a run of `kind` fits rating values: a trained kind on train.objective = rating
/// (`objective`), a closed-form kind whose fit does not serve ranking (the baseline, Sylv.).
inline bool kind_fits_rating_values(const ModelKind& kind, const std::string& objective) {
  return kind.fit == FitMethod::trained ? objective == "rating" : !kind_serves(kind, "ranking");
}

/// The row whose role column is `role` (the first); std::logic_error where none is.
inline const ModelKind& kind_of_role(const std::string& role) {
  for (const ModelKind& k : kModelKinds)
    if (role == k.role) return k;
  throw std::logic_error("symgnn/model_kinds.h: no kind of role " + role);
}

/// Whether `kind` scores a user from their rated items alone (a ranking kind that reads no
/// user graph: popularity, itemknn, ease, elsa): a user without ratings is no row to it
/// (infer/cold_lists.h lists them).
inline bool kind_scores_from_rated_items(const ModelKind& kind) {
  return kind.fit == FitMethod::closed_form && std::string(kind.objectives) == "ranking" &&
         !kind_reads_graph(kind, "user");
}

/// "lowrank|base|sylvester|popularity": the names in table order, the config's choices.
inline const char* model_kind_choices() {
  static const std::string choices = row_names(kModelKinds);
  return choices.c_str();
}

}  // namespace symgnn
