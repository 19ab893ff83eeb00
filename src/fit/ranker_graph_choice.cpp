// train.ranker_graph = auto, chosen on validation (ranker_graph_choice.h).
#include "fit/ranker_graph_choice.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iterator>

#include "eval/metric_functions.h"
#include "fit/judged_users.h"
#include "fit/ranker_on_training.h"
#include "infer/cold_lists.h"
#include "infer/ranker_graph_term.h"
#include "symgnn/model.h"
#include "symgnn/ranking.h"
#include "util/text.h"

namespace symgnn::fitting {
namespace {

/// The ranking criterion (symgnn/metrics.h, ranking_metric() at kRankingCutoff) of one user's
/// top k against their relevant items (ascending), as eval::RankingAccumulator computes it.
double criterion_of(const std::vector<int64_t>& top, const std::vector<int64_t>& relevant) {
  return eval::user_value(ranking_metric(), top, relevant, kRankingCutoff);
}

/// The judged users (by position) by their count of linked raters: 1-2, 3-9, 10 and more,
/// with their mean NDCG@10 without and with the term.
std::vector<RankerGraphChoice::Slice> slices_of(const std::vector<int64_t>& users,
                                                const infer::ColdLists& linked,
                                                const std::vector<double>& without,
                                                const std::vector<double>& with, LinkDirection direction) {
  std::vector<RankerGraphChoice::Slice> out = {{"1-2", 0, 0, 0}, {"3-9", 0, 0, 0}, {"10+", 0, 0, 0}};
  for (size_t k = 0; k < users.size(); ++k) {
    const size_t degree = linked.linked_raters(users[k], direction).size();
    RankerGraphChoice::Slice& slice = out[degree <= 2 ? 0 : degree <= 9 ? 1 : 2];
    ++slice.users, slice.without += without[k], slice.with += with[k];
  }
  for (auto& slice : out)
    if (slice.users > 0) slice.without /= double(slice.users), slice.with /= double(slice.users);
  return out;
}

/// ndcg[p][k] of judged user k: p = 0 the rows alone (rows_of: the ranker's scores of a block
/// of users, row-major), then each point (direction, shrinkage, weight) in that order; each
/// user's judged.trained items left out of their list.
std::vector<std::vector<double>> measure_points(
    const JudgedUsers& judged, const infer::ColdLists& linked, int64_t n2,
    const std::function<std::vector<float>(const std::vector<int64_t>&)>& rows_of,
    const std::vector<double>& weights, const std::vector<double>& shrinkages,
    const std::vector<LinkDirection>& directions) {
  const std::vector<int64_t>& users = judged.users;
  const size_t terms_per_user = directions.size() * shrinkages.size();
  std::vector<std::vector<double>> ndcg(1 + weights.size() * terms_per_user,
                                        std::vector<double>(users.size()));
  // In blocks of 2^22 scores; each row is read once per shrinkage (tops_with_term).
  const auto block = static_cast<size_t>(std::max<int64_t>(1, (int64_t{1} << 22) / std::max<int64_t>(n2, 1)));
  const auto width = static_cast<size_t>(n2);
  std::vector<char> excluded(width);
  for (size_t b0 = 0; b0 < users.size(); b0 += block) {
    const size_t b1 = std::min(users.size(), b0 + block);
    const std::vector<int64_t> part(users.begin() + static_cast<std::ptrdiff_t>(b0),
                                    users.begin() + static_cast<std::ptrdiff_t>(b1));
    const std::vector<float> rows = rows_of(part);
    for (size_t r = 0; r < part.size(); ++r) {
      const size_t k = b0 + r;
      std::fill(excluded.begin(), excluded.end(), 0);
      for (const int64_t i : judged.trained[k]) excluded[static_cast<size_t>(i)] = 1;
      const float* row = rows.data() + r * width;
      const std::vector<int64_t>& relevant = judged.relevant[k];
      ndcg[0][k] = criterion_of(eval::top_k_items(row, n2, kRankingCutoff, excluded), relevant);
      // One user's term rows at a time: a block's, one per direction and shrinkage, were
      // 18 x the block's scores (150 MB of a 16 k-item catalogue's peak).
      for (size_t q = 0; q < terms_per_user; ++q) {
        const std::vector<float> term = linked.linked_rows({part[r]}, shrinkages[q % shrinkages.size()],
                                                           directions[q / shrinkages.size()]);
        const std::vector<std::vector<int64_t>> lists =
            tops_with_term(row, term.data(), n2, weights, excluded);
        for (size_t wi = 0; wi < weights.size(); ++wi)
          ndcg[1 + q * weights.size() + wi][k] = criterion_of(lists[wi], relevant);
      }
    }
  }
  return ndcg;
}

}  // namespace

RankerGraphChoice::Slice follows_slice(const std::vector<int64_t>& users, const infer::ColdLists& linked,
                                       const std::vector<double>& without, const std::vector<double>& with,
                                       size_t least) {
  RankerGraphChoice::Slice out{std::to_string(least) + "+ follows", 0, 0, 0};
  for (size_t k = 0; k < users.size(); ++k)
    if (linked.neighbours(users[k]).size() >= least)
      ++out.users, out.without += without[k], out.with += with[k];
  if (out.users > 0) out.without /= double(out.users), out.with /= double(out.users);
  return out;
}

std::vector<std::vector<int64_t>> tops_with_term(const float* row, const float* term, int64_t n2,
                                                 const std::vector<double>& weights,
                                                 const std::vector<char>& excluded) {
  // The term only raises the items it is above 0 for: the top 10 with it is among the scaled
  // row's top 10 (in the lists' order: score, then index) and those items. One pass over the
  // catalogue, not one per weight.
  const auto width = static_cast<size_t>(n2);
  const double scale = infer::ranker_row_scale(row, n2);
  std::vector<float> scaled(width);
  for (size_t i = 0; i < width; ++i) scaled[i] = static_cast<float>(static_cast<double>(row[i]) / scale);
  std::vector<int64_t> candidates = eval::top_k_items(scaled.data(), n2, kRankingCutoff, excluded);
  for (size_t i = 0; i < width; ++i)
    if (term[i] > 0 && (excluded.empty() || !excluded[i])) candidates.push_back(static_cast<int64_t>(i));
  std::sort(candidates.begin(), candidates.end());
  candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());
  std::vector<float> score(candidates.size());
  std::vector<size_t> order(candidates.size());
  std::vector<std::vector<int64_t>> out;
  for (const double weight : weights) {
    for (size_t c = 0; c < candidates.size(); ++c) {
      const auto i = static_cast<size_t>(candidates[c]);
      // As infer::mix_user_graph_term computes it.
      score[c] =
          static_cast<float>(static_cast<double>(row[i]) / scale + weight * static_cast<double>(term[i]));
      order[c] = c;
    }
    const size_t keep = std::min<size_t>(kRankingCutoff, order.size());
    std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(keep), order.end(),
                      [&](size_t a, size_t b) {  // eval::top_k_items' order: NaN last
                        const bool a_nan = std::isnan(score[a]), b_nan = std::isnan(score[b]);
                        if (a_nan != b_nan) return b_nan;
                        if (!a_nan && score[a] != score[b]) return score[a] > score[b];
                        return candidates[a] < candidates[b];
                      });
    std::vector<int64_t> listed(keep);
    for (size_t c = 0; c < keep; ++c) listed[c] = candidates[order[c]];
    out.push_back(std::move(listed));
  }
  return out;
}

RankerGraphChoice choose_ranker_graph(
    RunConfig& cfg, const Dataset& ds, const RunConfig& ranker_cfg, const nlohmann::json& figures,
    const std::map<std::string, at::Tensor>& training_state,
    const std::function<std::vector<float>(const std::vector<int64_t>&)>& test_rows,
    const std::function<void(const std::string&)>& log,
    std::shared_ptr<models::RatingModel>* training_ranker) {
  RankerGraphChoice c;
  std::shared_ptr<models::RatingModel> fitted_here;
  if (cfg.train.ranker_graph != "auto") return c;
  const auto t0 = std::chrono::steady_clock::now();
  c.chosen = "none";
  cfg.train.ranker_graph = c.chosen;
  const int64_t n2 = ds.items.count;
  // The linked raters' training ratings (validation left out: the lists are judged on them).
  const infer::ColdLists linked(ds, 1.0, false, /*validation=*/false);
  const JudgedUsers judged =
      judged_users(ds, ds.validation, {&ds.train},
                   judged_user_cap(kRankerGraphScores, n2, kMinRankerGraphUsers, kMaxRankerGraphUsers),
                   [&](int64_t u) { return !linked.linked_raters(u).empty(); });
  const std::vector<int64_t>& users = judged.users;
  c.users = static_cast<int64_t>(users.size());
  if (c.users < kMinRankerGraphUsers) {
    c.why = std::to_string(c.users) + " validation user(s) with a relevant item have someone linked in the " +
            "user graph who rated, fewer than " + std::to_string(kMinRankerGraphUsers) + " to judge on";
    return c;
  }
  c.tried = true;

  if (log && training_state.empty())
    log("train.ranker_graph = auto: refitting the " + ranker_cfg.model + " ranker on the training ratings");
  if (training_ranker == nullptr) training_ranker = &fitted_here;
  if (!*training_ranker) *training_ranker = ranker_on_training(ranker_cfg, ds, figures, training_state);
  models::RatingModel& ranker = **training_ranker;

  const size_t weights = std::size(kRankerGraphWeights), shrinkages = std::size(kRankerGraphShrinkages);
  const std::vector<double> weights_list(std::begin(kRankerGraphWeights), std::end(kRankerGraphWeights));
  const std::vector<double> shrinkages_list(std::begin(kRankerGraphShrinkages),
                                            std::end(kRankerGraphShrinkages));
  // A directed file's links read each way too (judged: users with a linked rater either way).
  c.directed = linked.has_directions();
  const std::vector<LinkDirection> directions =
      c.directed ? std::vector<LinkDirection>{LinkDirection::both, LinkDirection::out, LinkDirection::in}
                 : std::vector<LinkDirection>{LinkDirection::both};
  const std::vector<std::vector<double>> ndcg = measure_points(
      judged, linked, n2,
      [&](const std::vector<int64_t>& part) {
        return ranker_rows(ranker, part, n2, ranker_cfg.train.device);
      },
      weights_list, shrinkages_list, directions);
  c.without = mean_of(ndcg[0]);
  // The best point (its gain over the ranker alone may be nothing), judged by the gain's spread.
  size_t best = 1;
  for (size_t di = 0; di < directions.size(); ++di)
    for (size_t si = 0; si < shrinkages; ++si)
      for (size_t wi = 0; wi < weights; ++wi) {
        const size_t p = 1 + (di * shrinkages + si) * weights + wi;
        c.points.push_back(
            {kRankerGraphWeights[wi], kRankerGraphShrinkages[si], mean_of(ndcg[p]), directions[di]});
        if (mean_of(ndcg[p]) > mean_of(ndcg[best])) best = p;
      }
  const ListGain gain = list_gain(ndcg[best], ndcg[0]);
  c.gain = gain.mean, c.gain_se = gain.se;
  const RankerGraphChoice::Point& point = c.points[best - 1];
  c.weight = point.weight, c.shrinkage = point.shrinkage, c.direction = point.direction;
  c.slices = slices_of(users, linked, ndcg[0], ndcg[best], c.direction);
  c.follows5 = follows_slice(users, linked, ndcg[0], ndcg[best], 5);
  // The same on test, by the ranker as fitted on training + validation, at the best point
  // whether kept or not: reported, never chosen on.
  if (test_rows) {
    const infer::ColdLists linked_all(ds, 1.0, false, /*validation=*/true);
    const JudgedUsers on_test = judged_test_users(
        ds, judged_user_cap(kRankerGraphScores, n2, kMinRankerGraphUsers, kMaxRankerGraphUsers),
        [&](int64_t u) { return !linked_all.linked_raters(u).empty(); });
    c.test_users = static_cast<int64_t>(on_test.users.size());
    if (c.test_users > 0) {
      const std::vector<std::vector<double>> t =
          measure_points(on_test, linked_all, n2, test_rows, {c.weight}, {c.shrinkage}, {c.direction});
      c.test_without = mean_of(t[0]);
      c.test_with = mean_of(t[1]);
      c.test_slices = slices_of(on_test.users, linked_all, t[0], t[1], c.direction);
      c.test_follows5 = follows_slice(on_test.users, linked_all, t[0], t[1], 5);
    }
  }
  if (gain.kept()) {
    c.chosen = "user";
    cfg.train.ranker_graph = c.chosen;
    cfg.train.ranker_graph_weight = c.weight;
    cfg.train.ranker_graph_shrinkage = c.shrinkage;
    cfg.train.ranker_graph_direction = to_string(c.direction);
  }
  c.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return c;
}

std::string describe(const RankerGraphChoice& c) {
  if (c.chosen.empty()) return "";
  const std::string what = c.chosen == "user" ? "take the user graph's term" : "take no user graph term";
  if (!c.tried)
    return "train.auto: the ranker's lists " + what + ": " + c.why + " (fit/ranker_graph_choice.h)";
  double best = -1;
  for (const auto& p : c.points) best = std::max(best, p.ndcg);
  return "train.auto: the ranker's lists " + what + ": validation " + ranking_label() + " " + fixed(best, 4) +
         " at its best point (weight " + fixed(c.weight, 2) + ", shrinkage " + fixed(c.shrinkage, 0) +
         (c.directed ? std::string(", the links ") + to_string(c.direction) + " of the directed user graph"
                     : "") +
         ") against " + fixed(c.without, 4) + " by the ranker alone (gain " + fixed(c.gain, 4) + " +- " +
         fixed(c.gain_se, 4) + "), " + std::to_string(c.users) +
         " validation users with a linked rater judged (" + std::to_string(c.follows5.users) +
         " who follow 5 or more: " + fixed(c.follows5.without, 4) + " alone, " + fixed(c.follows5.with, 4) +
         " with the term), " + fixed(c.seconds, 1) + " s" +
         (c.test_users > 0
              ? "; on test (not chosen on) " + fixed(c.test_without, 4) + " alone, " + fixed(c.test_with, 4) +
                    " with the term at that point, " + std::to_string(c.test_users) +
                    " test users with a linked rater (" + std::to_string(c.test_follows5.users) +
                    " who follow 5 or more: " + fixed(c.test_follows5.without, 4) + " alone, " +
                    fixed(c.test_follows5.with, 4) + " with the term)"
              : std::string()) +
         " (fit/ranker_graph_choice.h)";
}

nlohmann::json ranker_graph_choice_json(const RankerGraphChoice& c) {
  nlohmann::json out = {{"chosen", c.chosen}, {"validation_users", c.users}};
  if (!c.tried) {
    out["why"] = c.why;
    return out;
  }
  nlohmann::json points = nlohmann::json::array();
  for (const auto& p : c.points)
    points.push_back(c.directed ? nlohmann::json{{"weight", p.weight},
                                                 {"shrinkage", p.shrinkage},
                                                 {"direction", to_string(p.direction)},
                                                 {ranking_figure("val"), p.ndcg}}
                                : nlohmann::json{{"weight", p.weight},
                                                 {"shrinkage", p.shrinkage},
                                                 {ranking_figure("val"), p.ndcg}});
  out[ranking_figure("val") + "_ranker_alone"] = c.without;
  out["points"] = points;
  out["gain"] = c.gain;
  out["gain_standard_error"] = c.gain_se;
  out["seconds"] = c.seconds;
  nlohmann::json slices = nlohmann::json::object();
  for (const auto& slice : c.slices)
    slices[slice.linked] = {{"users", slice.users},
                            {ranking_figure("val") + "_ranker_alone", slice.without},
                            {ranking_figure("val") + "_with_term", slice.with}};
  if (!c.slices.empty()) {
    out["by_linked_raters"] = slices;
    out["with_5_or_more_follows"] = {{"users", c.follows5.users},
                                     {ranking_figure("val") + "_ranker_alone", c.follows5.without},
                                     {ranking_figure("val") + "_with_term", c.follows5.with}};
  }
  if (c.test_users > 0) {
    nlohmann::json by = nlohmann::json::object();
    for (const auto& slice : c.test_slices)
      by[slice.linked] = {{"users", slice.users},
                          {ranking_figure("test") + "_ranker_alone", slice.without},
                          {ranking_figure("test") + "_with_term", slice.with}};
    out["test"] = {{"users", c.test_users},
                   {ranking_figure("test") + "_ranker_alone", c.test_without},
                   {ranking_figure("test") + "_with_term", c.test_with},
                   {"by_linked_raters", by},
                   {"with_5_or_more_follows",
                    {{"users", c.test_follows5.users},
                     {ranking_figure("test") + "_ranker_alone", c.test_follows5.without},
                     {ranking_figure("test") + "_with_term", c.test_follows5.with}}}};
  }
  out["best_point"] = {{"weight", c.weight}, {"shrinkage", c.shrinkage}};
  if (c.directed) out["best_point"]["direction"] = to_string(c.direction);
  return out;
}

}  // namespace symgnn::fitting
