/// @file
/// The weight Eq. 1's fixed point (sylvester.h) gives each entry of H at one entry of X:
///
///   X = (1-a) sum_k a^k At1^k H (At2^T)^k
///   X_uj = sum_{v,i} G_vi H_vi,   G_vi = (1-a) sum_k a^k (At1^k)_uv (At2^k)_ji
///
/// G_vi sums the paths of k steps from user u to user v in the user graph and from item j to
/// item i in the item graph, each weighted a^k (1-a). What `symgnn explain` splits the Sylv.
/// kinds' scores by (models/score_terms.h): one part per rating (v, i).
#pragma once

#include <cstdint>
#include <vector>

#include "symgnn/graph.h"

namespace symgnn::models::sylvester {

/// G_vi at (user, item) for each entry (users[e], items[e]), in float64. The series is
/// summed until a^k falls below 1e-15 (the rows of At^k have norms at most 1, so what is
/// left is below that times the number of entries); a = 0 keeps its k = 0 term alone.
std::vector<double> path_weights(const graph::SparseMatrix& at1, const graph::SparseMatrix& at2, double alpha,
                                 int64_t user, int64_t item, const std::vector<int64_t>& users,
                                 const std::vector<int64_t>& items);

}  // namespace symgnn::models::sylvester
