// Trains a model of `cfg` on a ratings CSV written into a scratch folder, for the tests
// of the inference API (tests/infer/).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "common/test_support.h"
#include "symgnn/fit.h"
#include "symgnn/graph.h"
#include "symgnn/trained_model.h"
#include "symgnn/update.h"
#include "train/trainer.h"

namespace symgnn::testing {

/// score_all_items() of every user of `m`, row-major.
inline std::vector<float> every_users_scores(const TrainedModel& m) {
  std::vector<int64_t> users(static_cast<size_t>(m.users()));
  for (int64_t u = 0; u < m.users(); ++u) users[static_cast<size_t>(u)] = u;
  return m.score_all_items(users);
}

/// The largest |a[k] - b[k]|, the sizes expected equal.
inline double largest_difference(const std::vector<float>& a, const std::vector<float>& b) {
  EXPECT_EQ(a.size(), b.size());
  double worst = 0;
  for (size_t k = 0; k < a.size() && k < b.size(); ++k)
    worst = std::max(worst, double(std::abs(a[k] - b[k])));
  return worst;
}

/// Writes `csv` to dir/ratings.csv, trains cfg (cfg.data.source set to it) and returns the
/// model directory dir/run.
inline std::string train_on_csv(const std::string& dir, const std::string& csv, RunConfig cfg) {
  write_file(dir, "ratings.csv", csv);
  cfg.data.source = dir + "/ratings.csv";
  Dataset ds = load_dataset(cfg.data);
  graph::resolve_graphs(ds, cfg.graph);
  train::TrainerOptions opts;
  opts.out_dir = dir + "/run";
  train::train_sweep(cfg, ds, opts);
  return opts.out_dir;
}

/// The door's answer for the one user of `nodes`' rows (apply(..., Keep::user), symgnn/update.h)
/// where it folded them into `m`; std::nullopt where it grew the model instead.
inline std::optional<symgnn::UserUpdate> folded_user(const symgnn::TrainedModel& m,
                                                     const symgnn::NewNodes& nodes) {
  symgnn::Applied a = symgnn::apply(m, nodes.rows, symgnn::Keep::user);
  if (!a.user->folded()) return std::nullopt;
  return std::move(*a.user);
}

/// A user's ratings `rows` folded into `m` (the door, symgnn/update.h) rate every item as the
/// model grown by them does, to 1e-5.
inline void expect_fold_equals_growth(const TrainedModel& m, const std::vector<Delta::Rating>& rows) {
  NewNodes nodes;
  nodes.rows.ratings = rows;
  const std::optional<UserUpdate> folded = folded_user(m, nodes);
  ASSERT_TRUE(folded.has_value()) << rows.front().user;
  const TrainedModel grown = m.with_new_nodes(nodes);
  std::vector<int64_t> items;
  for (int64_t i = 0; i < m.items(); ++i) items.push_back(i);
  EXPECT_LT(largest_difference(folded->ratings(items), grown.rating_all_items({folded->user})), 1e-5)
      << rows.front().user;
  EXPECT_LT(largest_difference(folded->scores, grown.score_all_items({folded->user})), 1e-5)
      << rows.front().user;
}

/// A `users` x `items` ratings CSV with two taste groups (u + i even: 4 or 5, else 1 to 3),
/// each cell rated with probability `density`.
inline std::string two_taste_csv(int users, int items, double density, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> coin(0, 1);
  std::ostringstream csv;
  csv << "user,item,rating\n";
  for (int u = 0; u < users; ++u)
    for (int i = 0; i < items; ++i)
      if (coin(gen) < density)
        csv << "u" << u << ",i" << i << "," << ((u + i) % 2 == 0 ? 4 + (i % 2) : 1 + (u % 3)) << "\n";
  return csv.str();
}

/// Fits the default preset with `sets` (key=value) applied on `csv` (20% test) into a scratch
/// folder named after `tag` (symgnn::fit); the model directory.
inline std::string fit_csv(const std::string& tag, const std::string& csv,
                           const std::vector<std::string>& sets) {
  const std::string d = scratch_dir(tag);
  write_file(d, "ratings.csv", csv);
  RunConfig cfg = start_config("", "");
  cfg.data.source = d + "/ratings.csv";
  cfg.data.test_fraction = 0.2;
  for (const std::string& s : sets) apply_override(cfg, s);
  FitOptions o;
  o.out_dir = d + "/run";
  o.overwrite = true;
  fit(cfg, o);
  return o.out_dir;
}

}  // namespace symgnn::testing
