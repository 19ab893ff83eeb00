// train.ranker_network = auto, chosen on validation (ranker_network_choice.h).
#include "fit/ranker_network_choice.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <iterator>

#include "eval/metric_functions.h"
#include "fit/fitted.h"
#include "fit/judged_users.h"
#include "infer/cold_lists.h"
#include "infer/model_parts.h"
#include "infer/ranker_graph_term.h"
#include "infer/ranker_network_term.h"
#include "infer/ranker_quality_term.h"
#include "symgnn/model_dir.h"
#include "symgnn/ranking.h"
#include "symgnn/trained_model.h"
#include "util/json_text.h"
#include "util/text.h"

namespace fs = std::filesystem;

namespace symgnn::fitting {

const char* const kRankingNetwork = R"(
model = lowrank
[graph]
knn_source = interactions
knn_k = 50
[lowrank]
variant = G
hidden = 128
layers = 1
activation = identity
decoder = dot
biases = true
l2 = 0.1
[train]
objective = ranking
ranking_loss = softmax
epochs = 400
lr = 0.005
weight_decay = 0
ema = 0.995
patience = 40
eval_every = 5
protocol = early_stop
runs = 1
ranker = none
ranker_network = none
)";

namespace {

using Rows = std::function<std::vector<float>(const std::vector<int64_t>&)>;

/// ndcg[p][k] of judged user k: p = 0 the lists so far (rows_of's rows with the terms cfg keeps,
/// the linked raters read through `linked` and the items' ratings `quality`), p = 1 the network
/// alone, then the lists with the network's term at each of `weights`; each user's
/// judged.trained items left out of their list.
std::vector<std::vector<double>> measure_points(const RunConfig& cfg, const JudgedUsers& judged,
                                                const infer::ColdLists& linked,
                                                const std::vector<float>& quality, int64_t n2,
                                                const Rows& rows_of, const TrainedModel& network,
                                                const std::vector<double>& weights) {
  const std::vector<int64_t>& users = judged.users;
  std::vector<std::vector<double>> ndcg(2 + weights.size(), std::vector<double>(users.size()));
  const bool graph_term = cfg.train.ranker_graph == "user";
  const bool quality_term = cfg.train.ranker_quality == "item";
  const auto block = static_cast<size_t>(std::max<int64_t>(1, (int64_t{1} << 22) / std::max<int64_t>(n2, 1)));
  const auto width = static_cast<size_t>(n2);
  std::vector<char> excluded(width);
  std::vector<float> mixed(width);
  const auto value = [&](const float* row, size_t k) {
    return eval::user_value(ranking_metric(), eval::top_k_items(row, n2, kRankingCutoff, excluded),
                            judged.relevant[k], kRankingCutoff);
  };
  for (size_t b0 = 0; b0 < users.size(); b0 += block) {
    const size_t b1 = std::min(users.size(), b0 + block);
    const std::vector<int64_t> part(users.begin() + static_cast<std::ptrdiff_t>(b0),
                                    users.begin() + static_cast<std::ptrdiff_t>(b1));
    std::vector<float> rows = rows_of(part);
    if (graph_term)
      infer::add_user_graph_term(rows, part, n2, linked, cfg.train.ranker_graph_weight,
                                 cfg.train.ranker_graph_shrinkage,
                                 link_direction_of(cfg.train.ranker_graph_direction));
    if (quality_term)
      for (size_t r = 0; r < part.size(); ++r)
        infer::add_item_quality_term(rows.data() + r * width, quality.data(), n2,
                                     cfg.train.ranker_quality_weight, graph_term);
    const std::vector<float> net = network.score_all_items(part);
    for (size_t r = 0; r < part.size(); ++r) {
      const size_t k = b0 + r;
      std::fill(excluded.begin(), excluded.end(), 0);
      for (const int64_t i : judged.trained[k]) excluded[static_cast<size_t>(i)] = 1;
      const float* row = rows.data() + r * width;
      const float* net_row = net.data() + r * width;
      ndcg[0][k] = value(row, k);
      ndcg[1][k] = value(net_row, k);
      for (size_t w = 0; w < weights.size(); ++w) {
        std::copy_n(row, width, mixed.begin());
        infer::add_network_term(mixed.data(), n2, net_row, n2, weights[w], graph_term || quality_term);
        ndcg[2 + w][k] = value(mixed.data(), k);
      }
    }
  }
  return ndcg;
}

}  // namespace

RunConfig ranking_network_config(const RunConfig& cfg, const GraphConfig& given, const Dataset& ds) {
  RunConfig n = preset_config("paper");
  n.data = cfg.data;
  n.graph = given;
  load_config_text(n, kRankingNetwork, "the network trained for ranking (fit/ranker_network_choice.cpp)");
  // A graph the user set keeps its k-NN settings; the co-occurrence graph above stands where
  // they were left at their defaults.
  const GraphConfig defaults;
  if (given.knn_source != defaults.knn_source) n.graph.knn_source = given.knn_source;
  if (given.knn_k != defaults.knn_k) n.graph.knn_k = given.knn_k;
  n.train.seed = cfg.train.seed;
  n.train.threads = cfg.train.threads;
  n.train.device = cfg.train.device;
  // The positives: the ratings a list is judged on (4 and 5 stars), or every interaction. (From
  // the rating level below the threshold, 4 stars on a half-star scale whose threshold is 4.1,
  // Flixster's network alone validated better, 0.0601 against 0.0399, but its lists and
  // real/ml-latest-small's validated worse: docs/experiments.md.)
  n.train.positive_min = ds.implicit() ? 0.0 : eval::default_relevant_min(ds.rating_min, ds.rating_max);
  return n;
}

double estimated_network_seconds(int64_t users, int64_t items, int threads) {
  return 300.0 * static_cast<double>(users) * static_cast<double>(items) * 128.0 * 2.3e-10 /
         static_cast<double>(std::max(1, threads));
}

RankerNetworkChoice choose_ranker_network(RunConfig& cfg, const GraphConfig& given, const Dataset& ds,
                                          const FitOptions& o, double seconds_left, int threads,
                                          const Rows& training_rows, const Rows& test_rows) {
  RankerNetworkChoice c;
  const std::string asked = cfg.train.ranker_network;
  if (asked == "none") return c;
  const auto t0 = std::chrono::steady_clock::now();
  c.chosen = "none";
  cfg.train.ranker_network = c.chosen;
  const int64_t n2 = ds.items.count;
  const JudgedUsers judged =
      judged_users(ds, ds.validation, {&ds.train},
                   judged_user_cap(kRankerNetworkScores, n2, kMinRankerNetworkUsers, kMaxRankerNetworkUsers),
                   [](int64_t) { return true; });
  c.users = static_cast<int64_t>(judged.users.size());
  if (asked == "auto") {
    const double expected = estimated_network_seconds(ds.users.count, n2, threads);
    if (c.users < kMinRankerNetworkUsers) {
      c.why = std::to_string(c.users) + " validation user(s) with a relevant item, fewer than " +
              std::to_string(kMinRankerNetworkUsers) + " to judge on";
      return c;
    }
    if (expected > seconds_left) {
      c.why = "its training is expected to take " + fixed(expected, 0) + " s on " +
              std::to_string(std::max(1, threads)) + " thread(s), past the " +
              fixed(std::max(0.0, seconds_left), 0) + " s left of train.ranker_budget";
      return c;
    }
  }
  // The network, fitted as a run of its own on the same data, split and seed.
  const RunConfig ncfg = ranking_network_config(cfg, given, ds);
  // Trained in memory: written to DIR/ranker_network only where it is kept, so that a run
  // writes no checkpoint of it and leaves no folder of a network it did not keep.
  FitOptions no;
  no.data = o.data;
  no.edit_data = o.edit_data;
  no.on_epoch = o.on_epoch;
  no.log = o.log;
  const std::string folder = o.out_dir.empty() ? std::string() : infer::ranker_network_dir(o.out_dir);
  if (!folder.empty()) fs::remove_all(folder);  // an earlier run's, in a folder run again
  say(o, "fitting the network trained for ranking whose scores may join the lists (train.ranker_network = " +
             asked + ")");
  FitResult r = symgnn::fit(ncfg, no);
  c.train_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  c.network_summary = r.summary;
  const std::shared_ptr<const TrainedModel> network = std::move(r.model);
  if (!network || network->users() != ds.users.count || network->items() != n2) {
    c.why = "the network's data differ from the run's (its nodes)";
    return c;
  }
  c.tried = true;
  const std::vector<double> weights(std::begin(kRankerNetworkWeights), std::end(kRankerNetworkWeights));
  // The lists so far as the ranker judged here learned them: the linked raters and the items'
  // ratings from the training ratings alone.
  const infer::ColdLists linked(ds, 1.0, false, /*validation=*/false);
  const std::vector<float> quality =
      ds.implicit() ? std::vector<float>(static_cast<size_t>(n2), 0.0f)
                    : infer::item_quality(ds, cfg.train.ranker_quality_shrinkage, /*validation=*/false);
  const std::vector<std::vector<double>> ndcg =
      measure_points(cfg, judged, linked, quality, n2, training_rows, *network, weights);
  c.without = mean_of(ndcg[0]);
  c.alone = mean_of(ndcg[1]);
  size_t best = 2;
  for (size_t w = 0; w < weights.size(); ++w) {
    c.points.push_back({weights[w], mean_of(ndcg[2 + w])});
    if (mean_of(ndcg[2 + w]) > mean_of(ndcg[best])) best = 2 + w;
  }
  const ListGain gain = list_gain(ndcg[best], ndcg[0]);
  c.gain = gain.mean, c.gain_se = gain.se;
  c.weight = asked == "on" ? cfg.train.ranker_network_weight : c.points[best - 2].weight;
  c.follows5 = follows_slice(judged.users, linked, ndcg[0], ndcg[best], 5);
  // On test, by the final ranker, its terms from training + validation, and the same network:
  // reported, never chosen on.
  if (test_rows) {
    const JudgedUsers on_test = judged_test_users(
        ds, judged_user_cap(kRankerNetworkScores, n2, kMinRankerNetworkUsers, kMaxRankerNetworkUsers));
    c.test_users = static_cast<int64_t>(on_test.users.size());
    if (c.test_users > 0) {
      const infer::ColdLists linked_all(ds, 1.0, false, /*validation=*/true);
      const std::vector<float> quality_all =
          ds.implicit() ? quality
                        : infer::item_quality(ds, cfg.train.ranker_quality_shrinkage, /*validation=*/true);
      const std::vector<std::vector<double>> t =
          measure_points(cfg, on_test, linked_all, quality_all, n2, test_rows, *network, {c.weight});
      c.test_without = mean_of(t[0]);
      c.test_with = mean_of(t[2]);
      c.test_follows5 = follows_slice(on_test.users, linked_all, t[0], t[2], 5);
    }
  }
  if (asked == "on" || gain.kept()) {
    c.chosen = "on";
    cfg.train.ranker_network = c.chosen;
    cfg.train.ranker_network_weight = c.weight;
    c.network = network;
    if (!folder.empty()) {
      ModelDirFiles files;
      files.metrics_json = json_text(r.metrics.to_json(), 2);
      save_model_dir(*network, folder, files);
    }
  }
  c.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return c;
}

std::string describe(const RankerNetworkChoice& c) {
  if (c.chosen.empty()) return "";
  const std::string what = c.chosen == "on" ? "take the network trained for ranking"
                                            : "take no term of the network trained for ranking";
  if (!c.tried)
    return "train.auto: the ranker's lists " + what + ": " + c.why + " (fit/ranker_network_choice.h)";
  double best = -1;
  for (const auto& p : c.points) best = std::max(best, p.ndcg);
  return "train.auto: the ranker's lists " + what + ": validation " + ranking_label() + " " + fixed(best, 4) +
         " at its best weight (" + fixed(c.weight, 2) + ") against " + fixed(c.without, 4) +
         " without (gain " + fixed(c.gain, 4) + " +- " + fixed(c.gain_se, 4) + "; the network alone " +
         fixed(c.alone, 4) + "), " + std::to_string(c.users) + " validation users judged (" +
         std::to_string(c.follows5.users) + " who follow 5 or more: " + fixed(c.follows5.without, 4) +
         " without, " + fixed(c.follows5.with, 4) + " with it), " + fixed(c.seconds, 1) +
         " s (its training " + fixed(c.train_seconds, 1) + " s)" +
         (c.test_users > 0
              ? "; on test (not chosen on) " + fixed(c.test_without, 4) + " without, " +
                    fixed(c.test_with, 4) + " with the network at that weight, " +
                    std::to_string(c.test_users) + " test users (" + std::to_string(c.test_follows5.users) +
                    " who follow 5 or more: " + fixed(c.test_follows5.without, 4) + " without, " +
                    fixed(c.test_follows5.with, 4) + " with it)"
              : std::string()) +
         " (fit/ranker_network_choice.h)";
}

nlohmann::json ranker_network_choice_json(const RankerNetworkChoice& c) {
  nlohmann::json out = {{"chosen", c.chosen}, {"validation_users", c.users}};
  if (!c.tried) {
    out["why"] = c.why;
    return out;
  }
  nlohmann::json points = nlohmann::json::array();
  for (const auto& p : c.points) points.push_back({{"weight", p.weight}, {ranking_figure("val"), p.ndcg}});
  out[ranking_figure("val") + "_without"] = c.without;
  out[ranking_figure("val") + "_network_alone"] = c.alone;
  out["points"] = points;
  out["gain"] = c.gain;
  out["gain_standard_error"] = c.gain_se;
  out["weight"] = c.weight;
  out["training_seconds"] = c.train_seconds;
  out["seconds"] = c.seconds;
  out["dir"] = c.chosen == "on" ? "ranker_network" : "";
  out["with_5_or_more_follows"] = {{"users", c.follows5.users},
                                   {ranking_figure("val") + "_without", c.follows5.without},
                                   {ranking_figure("val") + "_with_network", c.follows5.with}};
  if (c.test_users > 0)
    out["test"] = {{"users", c.test_users},
                   {ranking_figure("test") + "_without", c.test_without},
                   {ranking_figure("test") + "_with_network", c.test_with},
                   {"with_5_or_more_follows",
                    {{"users", c.test_follows5.users},
                     {ranking_figure("test") + "_without", c.test_follows5.without},
                     {ranking_figure("test") + "_with_network", c.test_follows5.with}}}};
  return out;
}

}  // namespace symgnn::fitting
