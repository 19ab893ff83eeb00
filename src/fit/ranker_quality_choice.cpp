// train.ranker_quality = auto, chosen on validation (ranker_quality_choice.h).
#include "fit/ranker_quality_choice.h"

#include <algorithm>
#include <chrono>
#include <iterator>

#include "eval/metric_functions.h"
#include "fit/judged_users.h"
#include "infer/cold_lists.h"
#include "infer/ranker_graph_term.h"
#include "infer/ranker_quality_term.h"
#include "symgnn/ranking.h"
#include "util/text.h"

namespace symgnn::fitting {
namespace {

/// ndcg[p][k] of judged user k: p = 0 the lists so far (rows_of's rows, with the user graph's
/// term where cfg keeps it, read through `linked`), then each (quality vector, weight) in that
/// order; each user's judged.trained items left out of their list.
std::vector<std::vector<double>> measure_points(
    const RunConfig& cfg, const JudgedUsers& judged, const infer::ColdLists& linked, int64_t n2,
    const std::function<std::vector<float>(const std::vector<int64_t>&)>& rows_of,
    const std::vector<std::vector<float>>& qualities, const std::vector<double>& weights) {
  const std::vector<int64_t>& users = judged.users;
  std::vector<std::vector<double>> ndcg(1 + qualities.size() * weights.size(),
                                        std::vector<double>(users.size()));
  const bool graph_term = cfg.train.ranker_graph == "user";
  const auto block = static_cast<size_t>(std::max<int64_t>(1, (int64_t{1} << 22) / std::max<int64_t>(n2, 1)));
  const auto width = static_cast<size_t>(n2);
  std::vector<char> excluded(width);
  std::vector<float> mixed(width);
  for (size_t b0 = 0; b0 < users.size(); b0 += block) {
    const size_t b1 = std::min(users.size(), b0 + block);
    const std::vector<int64_t> part(users.begin() + static_cast<std::ptrdiff_t>(b0),
                                    users.begin() + static_cast<std::ptrdiff_t>(b1));
    std::vector<float> rows = rows_of(part);
    if (graph_term)
      infer::add_user_graph_term(rows, part, n2, linked, cfg.train.ranker_graph_weight,
                                 cfg.train.ranker_graph_shrinkage,
                                 link_direction_of(cfg.train.ranker_graph_direction));
    for (size_t r = 0; r < part.size(); ++r) {
      const size_t k = b0 + r;
      std::fill(excluded.begin(), excluded.end(), 0);
      for (const int64_t i : judged.trained[k]) excluded[static_cast<size_t>(i)] = 1;
      const float* row = rows.data() + r * width;
      const std::vector<int64_t>& relevant = judged.relevant[k];
      ndcg[0][k] = eval::user_value(ranking_metric(), eval::top_k_items(row, n2, kRankingCutoff, excluded),
                                    relevant, kRankingCutoff);
      for (size_t q = 0; q < qualities.size(); ++q)
        for (size_t w = 0; w < weights.size(); ++w) {
          std::copy_n(row, width, mixed.begin());
          infer::add_item_quality_term(mixed.data(), qualities[q].data(), n2, weights[w], graph_term);
          ndcg[1 + q * weights.size() + w][k] = eval::user_value(
              ranking_metric(), eval::top_k_items(mixed.data(), n2, kRankingCutoff, excluded), relevant,
              kRankingCutoff);
        }
    }
  }
  return ndcg;
}

}  // namespace

RankerQualityChoice choose_ranker_quality(
    RunConfig& cfg, const Dataset& ds,
    const std::function<std::vector<float>(const std::vector<int64_t>&)>& training_rows,
    const std::function<std::vector<float>(const std::vector<int64_t>&)>& test_rows) {
  RankerQualityChoice c;
  if (cfg.train.ranker_quality != "auto") return c;
  const auto t0 = std::chrono::steady_clock::now();
  c.chosen = "none";
  cfg.train.ranker_quality = c.chosen;
  if (ds.implicit()) {
    c.why = "data.feedback = " + ds.feedback + ": interactions have no ratings to weigh the items by";
    return c;
  }
  const int64_t n2 = ds.items.count;
  const JudgedUsers judged =
      judged_users(ds, ds.validation, {&ds.train},
                   judged_user_cap(kRankerQualityScores, n2, kMinRankerQualityUsers, kMaxRankerQualityUsers),
                   [](int64_t) { return true; });
  c.users = static_cast<int64_t>(judged.users.size());
  if (c.users < kMinRankerQualityUsers) {
    c.why = std::to_string(c.users) + " validation user(s) with a relevant item, fewer than " +
            std::to_string(kMinRankerQualityUsers) + " to judge on";
    return c;
  }
  c.tried = true;
  const std::vector<double> weights(std::begin(kRankerQualityWeights), std::end(kRankerQualityWeights));
  const std::vector<double> shrinkages(std::begin(kRankerQualityShrinkages),
                                       std::end(kRankerQualityShrinkages));
  // q from the training ratings alone, as the ranker judged here learned from them; the linked
  // raters' term (where kept) likewise.
  std::vector<std::vector<float>> qualities;
  for (const double s : shrinkages) qualities.push_back(infer::item_quality(ds, s, /*validation=*/false));
  const infer::ColdLists linked(ds, 1.0, false, /*validation=*/false);
  const std::vector<std::vector<double>> ndcg =
      measure_points(cfg, judged, linked, n2, training_rows, qualities, weights);
  c.without = mean_of(ndcg[0]);
  size_t best = 1;
  for (size_t q = 0; q < shrinkages.size(); ++q)
    for (size_t w = 0; w < weights.size(); ++w) {
      const size_t p = 1 + q * weights.size() + w;
      c.points.push_back({weights[w], shrinkages[q], mean_of(ndcg[p])});
      if (mean_of(ndcg[p]) > mean_of(ndcg[best])) best = p;
    }
  const ListGain gain = list_gain(ndcg[best], ndcg[0]);
  c.gain = gain.mean, c.gain_se = gain.se;
  c.weight = c.points[best - 1].weight, c.shrinkage = c.points[best - 1].shrinkage;
  // On test, by the final ranker and q of training + validation: reported, never chosen on.
  if (test_rows) {
    const JudgedUsers on_test = judged_test_users(
        ds, judged_user_cap(kRankerQualityScores, n2, kMinRankerQualityUsers, kMaxRankerQualityUsers));
    c.test_users = static_cast<int64_t>(on_test.users.size());
    if (c.test_users > 0) {
      const infer::ColdLists linked_all(ds, 1.0, false, /*validation=*/true);
      const std::vector<std::vector<double>> t =
          measure_points(cfg, on_test, linked_all, n2, test_rows,
                         {infer::item_quality(ds, c.shrinkage, /*validation=*/true)}, {c.weight});
      c.test_without = mean_of(t[0]);
      c.test_with = mean_of(t[1]);
    }
  }
  if (gain.kept()) {
    c.chosen = "item";
    cfg.train.ranker_quality = c.chosen;
    cfg.train.ranker_quality_weight = c.weight;
    cfg.train.ranker_quality_shrinkage = c.shrinkage;
  }
  c.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return c;
}

std::string describe(const RankerQualityChoice& c) {
  if (c.chosen.empty()) return "";
  const std::string what =
      c.chosen == "item" ? "take the items' ratings" : "take no term of the items' ratings";
  if (!c.tried)
    return "train.auto: the ranker's lists " + what + ": " + c.why + " (fit/ranker_quality_choice.h)";
  double best = -1;
  for (const auto& p : c.points) best = std::max(best, p.ndcg);
  return "train.auto: the ranker's lists " + what + ": validation " + ranking_label() + " " + fixed(best, 4) +
         " at its best point (weight " + fixed(c.weight, 2) + ", shrinkage " + fixed(c.shrinkage, 0) +
         ") against " + fixed(c.without, 4) + " without (gain " + fixed(c.gain, 4) + " +- " +
         fixed(c.gain_se, 4) + "), " + std::to_string(c.users) + " validation users judged, " +
         fixed(c.seconds, 1) + " s" +
         (c.test_users > 0 ? "; on test (not chosen on) " + fixed(c.test_without, 4) + " without, " +
                                 fixed(c.test_with, 4) + " with the term at that point, " +
                                 std::to_string(c.test_users) + " test users"
                           : std::string()) +
         " (fit/ranker_quality_choice.h)";
}

nlohmann::json ranker_quality_choice_json(const RankerQualityChoice& c) {
  nlohmann::json out = {{"chosen", c.chosen}, {"validation_users", c.users}};
  if (!c.tried) {
    out["why"] = c.why;
    return out;
  }
  nlohmann::json points = nlohmann::json::array();
  for (const auto& p : c.points)
    points.push_back({{"weight", p.weight}, {"shrinkage", p.shrinkage}, {ranking_figure("val"), p.ndcg}});
  out[ranking_figure("val") + "_without"] = c.without;
  out["points"] = points;
  out["gain"] = c.gain;
  out["gain_standard_error"] = c.gain_se;
  out["best_point"] = {{"weight", c.weight}, {"shrinkage", c.shrinkage}};
  out["seconds"] = c.seconds;
  if (c.test_users > 0)
    out["test"] = {{"users", c.test_users},
                   {ranking_figure("test") + "_without", c.test_without},
                   {ranking_figure("test") + "_with_term", c.test_with}};
  return out;
}

}  // namespace symgnn::fitting
