/// @file
/// train.ranker_graph = auto: whether the user graph's term joins the lists of the ranker
/// beside the model (infer/ranker_graph_term.h), with which weight and shrinkage, chosen on
/// validation. The ranker kept by train.ranker (fit/ranker_fit.h) was refit on training +
/// validation, so it is taken as fitted on the training ratings alone at the setting it
/// chose: the state its fit kept of that (elsa's best measured epoch), or refit once more
/// (its metrics' figures: EASE's lambda, elsa's width and epochs); its rows then rank
/// each judged validation user's unrated items, alone and with the term at each point of
/// kRankerGraphWeights x kRankerGraphShrinkages (x the directions both, out and in, where the
/// user graph is a directed file's), the linked raters' ratings being their
/// training ones. Judged: validation users with a relevant validation item and someone linked
/// in the user graph who rated (the others' lists do not change). The best point is kept
/// where its mean gain in NDCG@10 over those users exceeds the gain's standard error (the
/// rule of the rating members, fit/member_selection.h); otherwise train.ranker_graph = none.
/// The choice is written into the config (train.ranker_graph, _weight, _shrinkage, _direction).
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "symgnn/config.h"
#include "symgnn/dataset.h"

namespace symgnn::infer {
class ColdLists;
}  // namespace symgnn::infer

namespace symgnn::models {
class RatingModel;
}

namespace symgnn::fitting {

inline constexpr double kRankerGraphWeights[] = {0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2};
inline constexpr double kRankerGraphShrinkages[] = {0, 3, 10};
inline constexpr int64_t kMinRankerGraphUsers = 20;
/// The most validation users judged, and at most this many of their scores (users x items),
/// so that the choice stays seconds on a wide catalogue: 2^26 is 4,000 users at 16,000 items, 258 at 260,000.
inline constexpr int64_t kMaxRankerGraphUsers = 10000;
inline constexpr double kRankerGraphScores = double(int64_t{1} << 26);

struct RankerGraphChoice {
  bool tried = false;
  std::string why;      // why nothing was tried, or ""
  int64_t users = 0;    // validation users judged
  double without = -1;  // their NDCG@10 by the ranker alone
  struct Point {
    double weight = 0, shrinkage = 0, ndcg = 0;
    LinkDirection direction = LinkDirection::both;
  };
  /// Whether the user graph is a directed file's: its points then try each direction
  /// (train.ranker_graph_direction), both, out and in.
  bool directed = false;
  std::vector<Point> points;  // each point tried
  double gain = 0,
         gain_se = 0;  // the best point's mean gain over `without` (may be <= 0), its standard error
  /// The judged users by their count of linked raters (1-2, 3-9, 10 and more): how many, and
  /// their NDCG@10 by the ranker alone and at the best point.
  struct Slice {
    std::string linked;
    int64_t users = 0;
    double without = 0, with = 0;
  };
  std::vector<Slice> slices;
  /// The judged users who follow 5 or more people (neighbours in the user graph, whether or
  /// not they rated), reported apart: they overlap the slices above.
  Slice follows5;
  /// On test, reported and never chosen on: the test users with ratings of their own, a
  /// relevant test item and someone linked who rated (training or validation), their NDCG@10
  /// by the ranker fitted
  /// on training + validation alone and with the term at the best point (kept or not), and
  /// by slice. test_users 0: not measured.
  int64_t test_users = 0;
  double test_without = -1, test_with = -1;
  std::vector<Slice> test_slices;
  Slice test_follows5;
  std::string chosen;                // "user" or "none"
  double weight = 0, shrinkage = 0;  // the best point's (written into the config where kept)
  LinkDirection direction = LinkDirection::both;
  double seconds = 0;
};

/// The top kRankingCutoff (symgnn/metrics.h) of a ranker's row (n2 scores) with the term (n2 entries, >= 0)
/// at each of `weights`, mixed as infer::mix_user_graph_term mixes them and ordered as the lists are (score,
/// then index), the excluded items left out (empty: none): the choice's measurement, found among the scaled
/// row's top 10 and the items the term raises.
std::vector<std::vector<int64_t>> tops_with_term(const float* row, const float* term, int64_t n2,
                                                 const std::vector<double>& weights,
                                                 const std::vector<char>& excluded);

/// Resolves cfg.train.ranker_graph = auto (another value is left as it is) for the ranker of
/// kind ranker_cfg.model whose fit reported `figures` (its metrics.json figures).
/// `training_state`: the ranker as fitted on the training ratings at that setting, where its
/// fit kept it (models::ClosedFormFit::training_state); empty: it is fitted again here.
/// `test_rows`: the final ranker's scores of a block of users (row-major), to report the test
/// figures (RankerGraphChoice::test_users); empty: none.
/// `training_ranker`: where given, the ranker on the training ratings (fit/ranker_on_training.h)
/// is taken from it, or fitted into it where it is empty, so that the next choice
/// (fit/ranker_quality_choice.h) reads the same one.
RankerGraphChoice choose_ranker_graph(
    RunConfig& cfg, const Dataset& ds, const RunConfig& ranker_cfg, const nlohmann::json& figures,
    const std::map<std::string, at::Tensor>& training_state,
    const std::function<std::vector<float>(const std::vector<int64_t>&)>& test_rows,
    const std::function<void(const std::string&)>& log,
    std::shared_ptr<models::RatingModel>* training_ranker = nullptr);

/// "train.auto: the ranker's lists take the user graph's term: validation NDCG@10 0.1101 at its
/// best point (weight 0.05, shrinkage 0) against 0.1086 by the ranker alone (gain 0.0015 +-
/// 0.0009), 791 validation users with a linked rater judged, 3.8 s"
/// The judged `users` with at least `least` neighbours in the user graph (follows either way),
/// with their mean NDCG@10 `without` and `with` a term (by position in `users`): the slice the
/// list choices report apart (fit/ranker_network_choice.h too).
RankerGraphChoice::Slice follows_slice(const std::vector<int64_t>& users, const infer::ColdLists& linked,
                                       const std::vector<double>& without, const std::vector<double>& with,
                                       size_t least);

std::string describe(const RankerGraphChoice& c);
nlohmann::json ranker_graph_choice_json(const RankerGraphChoice& c);

}  // namespace symgnn::fitting
