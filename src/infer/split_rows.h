/// @file
/// Rows of score for a batch of users that come from two sources: those of one group computed
/// together, those of the others together, placed back in the batch's order. TrainedModel's
/// lists split users with ratings from cold ones and ranker rows from the model's own
/// (infer/trained_model.cpp); the ranker member splits its fitted users from those it scores
/// by their rated items (infer/ranker_member.cpp).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace symgnn::infer {

/// The rows (n2 floats each, row-major) of `users`: `rows` of those `other` leaves, asked once
/// for them together, `other_rows` of the rest, likewise; `rows` of every user where `other`
/// takes none.
template <typename Other, typename Rows, typename OtherRows>
std::vector<float> split_rows(const std::vector<int64_t>& users, size_t n2, Other other, Rows rows,
                              OtherRows other_rows) {
  std::vector<int64_t> mine, theirs;
  std::vector<size_t> mine_at, theirs_at;
  for (size_t k = 0; k < users.size(); ++k) {
    const bool o = other(users[k]);
    (o ? theirs : mine).push_back(users[k]);
    (o ? theirs_at : mine_at).push_back(k);
  }
  if (theirs.empty()) return rows(users);
  std::vector<float> out(users.size() * n2);
  const auto place = [&](const std::vector<float>& block, const std::vector<size_t>& at) {
    for (size_t r = 0; r < at.size(); ++r)
      std::copy_n(block.begin() + static_cast<std::ptrdiff_t>(r * n2), n2,
                  out.begin() + static_cast<std::ptrdiff_t>(at[r] * n2));
  };
  if (!mine.empty()) place(rows(mine), mine_at);
  place(other_rows(theirs), theirs_at);
  return out;
}

}  // namespace symgnn::infer
