/// @file
/// The graphs' neighbour members of the final combination (combined_model.h; their weights
/// and shrinkages are chosen on validation by fit/baseline_guard.h): what the people linked
/// to a user gave the same item, and what the user gave the items linked to an item, each
/// as a shrunk mean of the bias baseline's training residuals e_vj = r_vj - (mu + b_v + b_j):
///
///   user side:  n_U(u, i) = sum_{v ~ u, v rated i} e_vi / (lambda_U + #{v ~ u : v rated i})
///   item side:  n_I(u, i) = sum_{j ~ i, u rated j} e_uj / (lambda_I + #{j ~ i : u rated j})
///   item k-NN:  n_K(u, i) = sum_{j in N_k(i), u rated j} s_ij e_uj / (lambda_K + sum of those s_ij)
///
/// The third needs no graph: N_k(i) are the k items most similar to i by the shrunk Pearson
/// correlation s_ij of their residuals (similar_items.h; Koren's neighbourhood model on the
/// baseline, with N_k(i) fixed per item so that a pair reads k entries).
///
/// v ~ u: an off-diagonal entry of the side's normalised graph At (graph::normalized_adjacency,
/// the graph the network reads, both directions of a directed edge), counted once and
/// unweighted; or, for a directed graph file (baseline.link_direction), one direction of its
/// links: out, v is someone u follows (u -> v given); in, v follows u (v -> u given), so that a term reads as
/// a sentence ("2 people you are linked to rated it, 0.8 above what the baseline expects of them"). Where
/// nobody linked rated the item the term is 0: the baseline's own prediction. Sparse, exact and cheap: a pair
/// costs the node's degree times a binary search, a user's row the ratings of their neighbours.
///
/// Torch-free apart from neighbour_lists(), which reads At's pattern.
#pragma once

#include <cstdint>
#include <vector>

#include "models/baseline/bias_fit.h"
#include "models/baseline/similar_items.h"
#include "symgnn/dataset.h"
#include "symgnn/graph.h"

namespace symgnn::models {

/// Which links of a directed graph file a graph's member reads (baseline.link_direction):
/// symgnn/dataset.h's LinkDirection.
using symgnn::LinkDirection;

/// The weights and shrinkages of the three members in a combination (0 weight: not kept),
/// and the links each graph's member reads.
struct NeighbourWeights {
  double user = 0, user_shrinkage = 1;
  double item = 0, item_shrinkage = 1;
  double knn = 0, knn_shrinkage = 1;
  LinkDirection user_direction = LinkDirection::both, item_direction = LinkDirection::both;

  bool any() const { return user != 0 || item != 0 || knn != 0; }
};

/// A side's neighbours as CSR (ptr has n + 1 entries, idx ascending per row).
struct NeighbourGraph {
  std::vector<int64_t> ptr{0};
  std::vector<int64_t> idx;

  int64_t nodes() const { return static_cast<int64_t>(ptr.size()) - 1; }
  bool empty() const { return idx.empty(); }
};

/// The off-diagonal pattern of `at` (rows x rows, on any device), symmetric as At is;
/// the identity (or a matrix without off-diagonal entries) gives every node no neighbour.
NeighbourGraph neighbour_graph(const graph::SparseMatrix& at);
/// The neighbours a member reads in `direction`: At's pattern for both, or where `links`
/// (graph::directed_links) is undefined; the links' rows for out, their columns for in.
NeighbourGraph neighbour_graph(const graph::SparseMatrix& at, const graph::SparseMatrix& links,
                               LinkDirection direction);

/// One member's raw sums at a pair: the residuals' sum and how many neighbours gave one
/// (item k-NN: the similarity-weighted sum and the similarities' sum).
struct NeighbourSum {
  double sum = 0;
  double count = 0;

  double term(double shrinkage) const { return count > 0 ? sum / (shrinkage + count) : 0.0; }
};

class NeighbourResiduals {
 public:
  /// The residuals of `ratings` under `b` (nodes the biases do not cover are ignored),
  /// indexed by user and by item, and each side's graph (empty: no member on that side);
  /// `knn_neighbours` > 0: each item's most similar items (similar_items.h) for n_K.
  NeighbourResiduals(const RatingList& ratings, const Biases& b, NeighbourGraph users, NeighbourGraph items,
                     int64_t knn_neighbours = 0);

  /// The training residual of (u, i), or nullptr where u did not rate i.
  const double* residual(int64_t u, int64_t i) const;
  NeighbourSum user_sum(int64_t u, int64_t i) const;
  NeighbourSum item_sum(int64_t u, int64_t i) const;
  NeighbourSum knn_sum(int64_t u, int64_t i) const;
  /// w.user * n_U(u, j) + w.item * n_I(u, j) + w.knn * n_K(u, j) added to row[j] for every item j < n2.
  void add_row(int64_t u, const NeighbourWeights& w, float* row, int64_t n2) const;
  /// The same for a user given by their graph neighbours and their rated items' residuals
  /// (a user folded in, RatingModel::fold_user, whose ratings the index need not hold).
  void add_row(const std::vector<int64_t>& neighbours, const std::vector<std::pair<int64_t, double>>& rated,
               const NeighbourWeights& w, float* row, int64_t n2) const;
  /// A trained user's graph neighbours (none past the graph's nodes); an item's alike.
  std::vector<int64_t> user_neighbours(int64_t u) const;
  std::vector<int64_t> item_neighbours(int64_t i) const;
  /// Reads other neighbours on a side (another direction of a directed graph's links).
  void set_user_graph(NeighbourGraph users) { users_ = std::move(users); }
  void set_item_graph(NeighbourGraph items);

  bool has_user_graph() const { return !users_.empty(); }
  bool has_item_graph() const { return !items_.empty(); }
  bool has_similar_items() const { return !similar_.empty(); }
  /// Item i's k-NN neighbourhood: (j, s_ij), j ascending.
  const SparseRows& similar_items() const { return similar_; }
  /// Neighbourhoods found before (a saved model's, fitted with it): rows past the index's
  /// items are dropped, items the index has beyond them have none.
  void set_similar_items(SparseRows similar);

 private:
  // Residuals by user (items ascending) and by item (users ascending).
  SparseRows by_user_, by_item_;
  NeighbourGraph users_, items_;
  // items_ transposed (row j: the items whose neighbours hold j), which a user's row reads
  // from the items they rated (items_ itself where the graph is symmetric).
  NeighbourGraph items_of_;
  // N_k(i) by item, and its transpose (row j: the items whose neighbourhood holds j).
  SparseRows similar_, similar_of_;
};

}  // namespace symgnn::models
