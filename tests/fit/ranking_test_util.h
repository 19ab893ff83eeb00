// What the ranking kinds' tests compare against: the binary matrix of the ratings a final
// fit saw, a fitted model's scores of every item for every user, and the new-ratings file
// of a newcomer who rated what a trained user rated.
#pragma once

#include <gtest/gtest.h>
#include <torch/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "common/test_support.h"
#include "symgnn/dataset.h"
#include "symgnn/trained_model.h"

namespace symgnn::testing {

/// The binary matrix of the ratings the final fit saw (training + validation).
inline at::Tensor interactions(const Dataset& ds) {
  at::Tensor x = torch::zeros({ds.users.count, ds.items.count}, torch::kDouble);
  for (const RatingList* r : {&ds.train, &ds.validation})
    for (size_t e = 0; e < r->size(); ++e) x[r->user[e]][r->item[e]] = 1.0;
  return x;
}

/// Scores of every item for every user from the fitted model, float64.
inline at::Tensor all_scores(const TrainedModel& m) {
  std::vector<int64_t> users(static_cast<size_t>(m.users()));
  for (size_t u = 0; u < users.size(); ++u) users[u] = static_cast<int64_t>(u);
  const std::vector<float> s = m.score_all_items(users);
  return torch::tensor(s, torch::kFloat).view({m.users(), m.items()}).to(torch::kDouble);
}

/// A new-ratings file for "newcomer", who rated exactly what user `twin` rated (training and
/// validation ratings, which the final fit saw), plus `extra` lines as they are, in folder `tag`.
inline std::string twin_ratings(const Dataset& ds, int64_t twin, const std::string& tag,
                                const std::string& extra = "") {
  std::string csv;
  for (const RatingList* list : {&ds.train, &ds.validation})
    for (size_t e = 0; e < list->size(); ++e)
      if (list->user[e] == twin) csv += "newcomer," + ds.items.id_of(list->item[e]) + ",4\n";
  return write_file(scratch_dir(tag), "new.csv", csv + extra);
}

/// `m`'s last user, "newcomer" (of twin_ratings), gets the scores of `twin`, item by item.
inline void expect_scored_as_twin(const TrainedModel& m, int64_t twin) {
  const int64_t newcomer = m.users() - 1;
  ASSERT_EQ(m.dataset().users.id_of(newcomer), "newcomer");
  const std::vector<float> a = m.score_all_items({twin}), b = m.score_all_items({newcomer});
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i], b[i], 1e-5) << "item " << i;
}

}  // namespace symgnn::testing
