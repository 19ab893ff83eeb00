/// @file
/// train.ranker_network = auto: whether the network trained for ranking joins the lists of the
/// ranker beside the model (infer/ranker_network_term.h), and with which weight, chosen on
/// validation after the user graph's term and the items' ratings (fit/ranker_graph_choice.h,
/// fit/ranker_quality_choice.h).
///
/// The network is the low-rank SyMGNN trained for ranking (kRankingNetwork below: the settings
/// of configs/douban_ranking.conf, chosen there on validation) on the run's data, split and
/// seed, with the graphs the user gave (a file's graph as given, else a co-occurrence k-NN
/// graph of the training interactions), early-stopped on validation: its weights learned from
/// the training ratings alone, so that its validation rows judge it fairly. It is fitted by
/// symgnn::fit in memory (no checkpoint of it is written) and, where it is kept, written to
/// DIR/ranker_network, a model directory of its own (save_model_dir).
///
/// Each judged validation user's unrated items are ranked as the lists are so far (the ranker
/// refit on the training ratings alone, with the terms kept) and with the network's term at each
/// weight of kRankerNetworkWeights. Judged: validation users with a relevant validation item.
/// The best weight is kept where its mean gain in NDCG@10 over those users exceeds the gain's
/// standard error (the rule of fit/judged_users.h); otherwise train.ranker_network = none and
/// nothing is written. Not tried where the network's training is expected to take longer than what
/// is left of train.ranker_budget (estimated_network_seconds). The choice is written into the
/// config (train.ranker_network, _weight).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "fit/ranker_graph_choice.h"
#include "symgnn/config.h"
#include "symgnn/dataset.h"
#include "symgnn/fit.h"

namespace symgnn::fitting {

inline constexpr double kRankerNetworkWeights[] = {0.1, 0.2, 0.3, 0.5, 0.7, 1, 1.5, 2, 3};
inline constexpr int64_t kMinRankerNetworkUsers = 20;
inline constexpr int64_t kMaxRankerNetworkUsers = 10000;
inline constexpr double kRankerNetworkScores = double(int64_t{1} << 24);

/// The network's settings over the paper preset (configs/douban_ranking.conf's, early-stopped,
/// validation every 5th epoch, with the recommended preset's moving average of the weights:
/// without it Flixster's network early-stopped at validation 0.0500, test 0.0447; with it
/// 0.0601, 0.0781; Douban 0.0759 -> 0.0772, docs/experiments.md), as a config file states them.
extern const char* const kRankingNetwork;

/// The network's config for the run `cfg` (its data, seed, threads and device) with the graph
/// settings the user gave (`given`).
RunConfig ranking_network_config(const RunConfig& cfg, const GraphConfig& given, const Dataset& ds);

/// What training the network is expected to take on `threads` threads, in seconds: a full
/// softmax over the items scores users x items x hidden multiply-adds an epoch, about 300
/// epochs at 2.3e-10 s each on one thread of this machine (Douban's 3,000 x 3,000: 78 s;
/// real/ciaodvd's 17,615 x 16,121: about 40 min, not tried within the default budget).
double estimated_network_seconds(int64_t users, int64_t items, int threads);

struct RankerNetworkChoice {
  bool tried = false;
  std::string why;  // why nothing was tried, or ""
  int64_t users = 0;
  double without = -1;  // the judged users' NDCG@10 by the lists without the network
  double alone = -1;    // by the network alone
  struct Point {
    double weight = 0, ndcg = 0;
  };
  std::vector<Point> points;
  double gain = 0, gain_se = 0;
  /// The judged users who follow 5 or more people in the user graph, reported apart
  /// (fit/ranker_graph_choice.h follows_slice): without and with the network at the best weight.
  RankerGraphChoice::Slice follows5, test_follows5;
  int64_t test_users = 0;
  double test_without = -1, test_with = -1;
  std::string chosen;  // "on" or "none"
  double weight = 0;
  double train_seconds = 0, seconds = 0;
  std::vector<std::string> network_summary;  // the network's own fit lines
  /// The network kept (null where it was not).
  std::shared_ptr<const TrainedModel> network;
};

/// Resolves cfg.train.ranker_network = auto (on: the network is trained and kept at the
/// configured weight; none: nothing), after the graph's and the items' terms were resolved.
/// `training_rows`: the ranker on the training ratings alone (row-major, ds.items.count a row);
/// `test_rows`: the final ranker's (empty: no test figures); `seconds_left`: of
/// train.ranker_budget, on `threads` threads. The network's folder is DIR/ranker_network where o.out_dir is
/// set.
RankerNetworkChoice choose_ranker_network(
    RunConfig& cfg, const GraphConfig& given, const Dataset& ds, const FitOptions& o, double seconds_left,
    int threads, const std::function<std::vector<float>(const std::vector<int64_t>&)>& training_rows,
    const std::function<std::vector<float>(const std::vector<int64_t>&)>& test_rows);

/// "train.auto: the ranker's lists take the network trained for ranking: validation NDCG@10 ..."
std::string describe(const RankerNetworkChoice& c);
nlohmann::json ranker_network_choice_json(const RankerNetworkChoice& c);

}  // namespace symgnn::fitting
