// symgnn: a trained model's scores as arrays for other tools (`symgnn export`,
// docs/export.md): a vector index, numpy, a scorer in another language.
//
// Where a kind's ranking scores are a product of factors (ScoreFactors in symgnn/model.h:
// the item-based ranker, EASE, the ranking low-rank kinds, the bias baseline, popularity,
// and the rating kinds combined with the baseline where their own scores are), the export
// holds them so that
//
//   score(u, j) = user_factors[u] . item_factors[j] + user_bias[u] + item_bias[j] + offset
//
// equals `recommend`'s score of every item u has not rated; EASE's users are their binary
// rows of rated items and its item factors the columns of its matrix B, written as B
// itself. The graph kinds' decoders are no such product: their export holds their node
// representations (what GET /v1/similar compares), the biases where the model has them, and
// says that scoring needs symgnn.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "symgnn/trained_model.h"

namespace symgnn {

/// score_all_items() of a model as factors, on the CPU, row-major.
struct ModelFactors {
  bool factored = false;  // false: the scores are no such product (nothing else is set)
  int64_t users = 0, items = 0, dim = 0;
  /// users x dim; empty where users_are_interactions.
  std::vector<float> user_factors;
  /// items x dim; where users_are_interactions, dim = items and row j is column j of W.
  std::vector<float> item_factors;
  std::vector<float> user_bias, item_bias;  // empty: none
  double offset = 0;
  /// A user's factor row is their binary row of rated items (TrainedModel::seen_items).
  bool users_are_interactions = false;
  /// What the factors are, one line (e.g. "elsa: users = z_u = ..., items = A_hat").
  std::string meaning;
};

/// The factors of what `model` ranks by (its ranker's where it has one; the mean over the
/// members of an averaged model, side by side).
ModelFactors score_factors(const TrainedModel& model);

/// What export_model wrote.
struct ExportSummary {
  std::vector<std::string> files;  // names inside the folder
  bool factored = false;
  std::string meaning;
};

/// Writes `model`'s export into folder `out_dir` (created; files written atomically):
/// users.txt and items.txt (original ids in row order), seen_indptr.npy and
/// seen_indices.npy (each user's rated items, CSR: what lists exclude), the factors
/// (user_factors.npy, item_factors.npy or, for the item-item kinds, item_weights.npy;
/// user_bias.npy, item_bias.npy), user_representations.npy and item_representations.npy
/// where the rating model has representations, scoring.txt (the formula, in words) and
/// export.json (the same for programs: shapes, offset, file names).
ExportSummary export_model(const TrainedModel& model, const std::string& out_dir);

}  // namespace symgnn
