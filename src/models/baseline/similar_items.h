/// @file
/// The item k-NN member's neighbourhoods (neighbour_residuals.h, Koren's neighbourhood model
/// on the bias baseline, KDD 2008, section 3): each item's k most similar items by the shrunk
/// Pearson correlation of the baseline's training residuals over the users who rated both,
///
///   rho_ij = sum_u e_ui e_uj / sqrt(sum_u e_ui^2 sum_u e_uj^2),   u in R(i) and R(j)
///   s_ij   = (n_ij - 1) / (n_ij - 1 + beta) x rho_ij,            n_ij = |R(i) and R(j)|,
///
/// beta = kSimilarityShrinkage (Koren's and Surprise's 100): a correlation over a handful of
/// co-raters is shrunk toward 0. Only positive s_ij are kept (a negative weight would let the
/// shrunk mean of neighbour_residuals.h change sign with its denominator).
///
/// Found from co-ratings (each user's pairs of rated items, never an n2 x n2 matrix): time
/// sum_u |R(u)|^2, memory n2 x k. Where that sum passes kMaxCoRatedPairs the neighbourhoods
/// are not built (similar_items returns nothing and the member is not tried).
#pragma once

#include <cstdint>
#include <vector>

namespace symgnn::models {

inline constexpr double kSimilarityShrinkage = 100;
inline constexpr double kMaxCoRatedPairs = 2e9;

/// Values by row as CSR: row r holds (idx[k], value[k]) for k in [ptr[r], ptr[r + 1]),
/// idx ascending within a row.
struct SparseRows {
  std::vector<int64_t> ptr{0};
  std::vector<int64_t> idx;
  std::vector<double> value;

  int64_t rows() const { return static_cast<int64_t>(ptr.size()) - 1; }
  bool empty() const { return idx.empty(); }
};

/// sum_u |R(u)|^2 of the rows of `by_user`: the pairs similar_items visits.
double co_rated_pairs(const SparseRows& by_user);

/// Row i: the k items j != i of largest s_ij > 0 (ties by the lower index), ascending by j.
/// `by_user` and `by_item` are one set of residuals indexed both ways. Deterministic and the
/// same at any thread count (each item's row is found alone).
SparseRows similar_items(const SparseRows& by_user, const SparseRows& by_item, int64_t k,
                         double shrinkage = kSimilarityShrinkage);

/// The transpose of `rows` with `columns` rows: row j holds (i, value) for each i whose row
/// holds j, i ascending.
SparseRows transpose(const SparseRows& rows, int64_t columns);

}  // namespace symgnn::models
