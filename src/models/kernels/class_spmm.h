/// @file
/// The K rating classes' sparse products of the prior aggregation (prior_aggregation.h) in
/// one pass, each class's result written straight into the layout the next operation reads:
///
///   Layout::kBlocks     x is m x Kd, block k = x[:, kd:(k+1)d];  out is n x Kd, block k = H_k X_k
///   Layout::kBroadcast  x is m x d, shared by the classes;       out is K x n x d, out[k] = H_k x
///   Layout::kSum        x is K x m x d;                          out is n x d = sum_k H_k x[k]
///
/// kBlocks serves "transform first" (H_k (Uh Theta_k), the K products of Uh done as one
/// m x d by d x Kd product before aggregating), whose output is already the concatenation
/// [V_1 || ... || V_K] the prior's MLP reads; kBroadcast serves "aggregate first"
/// ((H_k Uh) Theta_k), whose output the batched product with Theta reads. Either replaces K
/// products and a stack or concatenation of their n x d results (K + 1 passes over n x Kd
/// values) by one pass. kSum is kBroadcast's transpose, for its backward.
///
/// Differentiable in x, to any order: the backward of each layout is the transposed layout
/// with the stored transposes H_k^T (kBlocks -> kBlocks, kBroadcast <-> kSum). The matrices
/// are fixed (no gradient). On the CPU for float and double one kernel computes each output
/// row from the rows it gathers, or, where the input is more than twice the output, adds
/// each input row into the rows its transposed entries name, one private table per range of
/// input rows (as many ranges as threads), summed in range order: no atomics, the same
/// result on every run with the same number of threads. Other devices and types take
/// graph::spmm per class with stack or cat (the same values).
#pragma once

#include <ATen/core/Tensor.h>

#include <vector>

#include "symgnn/graph.h"

namespace symgnn::models {

enum class ClassLayout { kBlocks, kBroadcast, kSum };

/// The products described above for the classes h (each n x m, with their stored
/// transposes, as normalize_prior returns them). Throws c10::Error on shapes that disagree.
at::Tensor class_spmm(const std::vector<graph::SparseMatrix>& h, const at::Tensor& x, ClassLayout layout);

/// The reference: graph::spmm per class, then cat, stack or sum. Tests compare with it.
at::Tensor class_spmm_composite(const std::vector<graph::SparseMatrix>& h, const at::Tensor& x,
                                ClassLayout layout);

}  // namespace symgnn::models
