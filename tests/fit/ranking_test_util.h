// What the ranking kinds' tests compare against: the binary matrix of the ratings a final
// fit saw, a fitted model's scores of every item for every user, and the new-ratings file
// of a newcomer who rated what a trained user rated.
#pragma once

#include <gtest/gtest.h>
#include <torch/types.h>

#include <algorithm>
#include <cstdint>
#include <random>
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

/// Whom each user of group_tastes is linked to in the user graph.
enum class GroupLinks { none, same_group, other_group };

/// 300 users in 3 groups, 30 items; group g likes items 10g..10g+9: each user rates 6 of them
/// 5 in training, 2 more 5 in validation, and 2 other items 1, so that the items' popularity
/// cannot tell the groups apart. Each user is linked to 5 users of their own group, or of
/// another group, or to nobody; the graphs resolved as the loaders leave them
/// (graph::resolve_graphs: the file's for the users, the identity for the items). `seed`
/// draws the ratings and the links.
inline Dataset group_tastes(unsigned seed, GroupLinks links) {
  std::mt19937 rng(seed);
  Dataset ds;
  ds.users.count = 300;
  ds.items.count = 30;
  ds.rating_min = 1;
  ds.rating_max = 5;
  std::uniform_int_distribution<int64_t> any(0, 29), mate(0, 99);
  for (int64_t u = 0; u < 300; ++u) {
    const int64_t g = u % 3;
    std::vector<int64_t> liked;
    for (int64_t i = 0; i < 10; ++i) liked.push_back(10 * g + i);
    std::shuffle(liked.begin(), liked.end(), rng);
    for (int k = 0; k < 6; ++k) ds.train.add(u, liked[static_cast<size_t>(k)], 5);
    for (int k = 6; k < 8; ++k) ds.validation.add(u, liked[static_cast<size_t>(k)], 5);
    for (int k = 0; k < 2; ++k) ds.train.add(u, (10 * (g + 1 + k) + any(rng) % 10) % 30, 1);
  }
  ds.users.graph.num_nodes = 300;
  ds.items.graph.num_nodes = 30;
  ds.users.graph_origin = GraphOrigin::File;
  ds.items.graph_origin = GraphOrigin::Identity;
  if (links != GroupLinks::none)
    for (int64_t u = 0; u < 300; ++u)
      for (int k = 0; k < 5; ++k) {
        const int64_t group = links == GroupLinks::same_group ? u % 3 : (u + 1) % 3;
        const int64_t v = 3 * mate(rng) + group;
        if (v != u) ds.users.graph.add(u, v, 1.0f);
      }
  return ds;
}

}  // namespace symgnn::testing
