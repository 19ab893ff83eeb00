/// @file
/// The interactions as compressed rows, which the sparse ranking kinds (ItemKNN,
/// itemknn_model.h; the item-based ranker, models/elsa/elsa_model.h) keep: each user's
/// rated items (or each item's raters), and the gather that expands a block of rows into
/// its entries.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <utility>
#include <vector>

#include "symgnn/dataset.h"

namespace symgnn::models {

/// Compressed rows: row r holds index[ptr[r] .. ptr[r+1]).
struct InteractionRows {
  std::vector<int64_t> ptr, index;
  int64_t size(int64_t r) const { return ptr[static_cast<size_t>(r) + 1] - ptr[static_cast<size_t>(r)]; }
};

/// The distinct (row, column) pairs of `ratings` by row (by_user: rows are users, columns
/// items; else the reverse), columns ascending.
InteractionRows distinct_rows(const std::vector<const RatingList*>& ratings, int64_t rows, bool by_user);

/// For each of `lengths`' rows, the positions start[r] .. start[r] + lengths[r] - 1, with
/// the row they belong to: (owner [P], position [P]).
std::pair<at::Tensor, at::Tensor> expand_rows(const at::Tensor& start, const at::Tensor& lengths);

}  // namespace symgnn::models
