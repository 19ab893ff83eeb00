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
#include "symgnn/model.h"

namespace symgnn::models {

/// Compressed rows: row r holds index[ptr[r] .. ptr[r+1]), each entry with its weight
/// (weight: empty where the rows are binary).
struct InteractionRows {
  std::vector<int64_t> ptr, index;
  std::vector<float> weight;
  int64_t size(int64_t r) const { return ptr[static_cast<size_t>(r) + 1] - ptr[static_cast<size_t>(r)]; }
};

/// The distinct (row, column) pairs of `ratings` by row (by_user: rows are users, columns
/// items; else the reverse), columns ascending; `weighted`: each with its rating value as
/// its weight (data.feedback = counts: log(1 + count)), a pair given twice its larger one.
InteractionRows distinct_rows(const std::vector<const RatingList*>& ratings, int64_t rows, bool by_user,
                              bool weighted = false);

/// A buffer of the rows (or any registered buffer) given the contents of `values`, taking
/// their length in place: the kinds' rows grow when new users are added.
void assign_buffer(at::Tensor& buffer, const at::Tensor& values);

/// The user rows `ptr` / `index` (int64 buffers whose rows [0, kept) are as fitted) grown to
/// `users` rows by the ratings given after the fit (ctx.added_from on, infer/new_ratings.h):
/// each user's row gains the items of their added ratings (a user from `kept` on has those
/// alone), distinct and ascending. The item-based kinds' rows of new users, and of users the
/// fit knew who rated more since, from their ratings alone (RatingModel::nodes_added).
/// `weight` (a float buffer beside `index`), where given with entries: the rows' weights, an
/// added rating's its value.
void add_user_rows(at::Tensor& ptr, at::Tensor& index, const ModelContext& ctx, int64_t kept, int64_t users,
                   at::Tensor* weight = nullptr);

/// The entries of users given as lists of rated items: (row [E], item [E]) on `device`, rows
/// in list order (RatingModel::score_rated_items).
std::pair<at::Tensor, at::Tensor> entries_of_lists(const std::vector<std::vector<int64_t>>& rated,
                                                   const at::Device& device);

/// For each of `lengths`' rows, the positions start[r] .. start[r] + lengths[r] - 1, with
/// the row they belong to: (owner [P], position [P]).
std::pair<at::Tensor, at::Tensor> expand_rows(const at::Tensor& start, const at::Tensor& lengths);

}  // namespace symgnn::models
