/// @file
/// What the low-rank model keeps of a full forward in eval mode (FoldTrace):
/// read by a fold-in (lowrank_fold.cpp) and carried over by a graph edit (lowrank_edit.cpp).
#pragma once

#include <torch/nn/modules/linear.h>
#include <torch/types.h>

#include <vector>

#include "models/layers/cge.h"
#include "models/lowrank_model.h"

namespace symgnn::models {

struct FoldTrace {
  at::Tensor up1, up2, u1, u2;  // U^(p) and U of both sides
  CgeTrace cge1, cge2;          // where the variant has the CGE stack
  /// Per side (0: users, 1: items), the CSR of each class's prior seen from that side (on the
  /// CPU) and each node's raw degree over all classes.
  std::vector<at::Tensor> row_ptr[2], col_idx[2];
  std::vector<int64_t> degree[2];
};

/// fuse() of some rows: the CGE's rows (undefined without the stack) and U^(p)'s.
inline at::Tensor fused_rows(torch::nn::Linear& fusion, const at::Tensor& cge, const at::Tensor& up) {
  if (fusion) return fusion->forward(cge.defined() ? torch::cat({cge, up}, 1) : up);
  return cge.defined() ? cge + up : up;
}

}  // namespace symgnn::models
