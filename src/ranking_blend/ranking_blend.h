// `symgnn blend --metric ndcg@10`: weights of several models' ranking scores, chosen on
// validation NDCG@10, scored on the test split (docs/blending.md, "Blending for ranking").
//
// Scores of different models live on different scales (EASE's regressions, a softmax's
// logits, predicted ratings), so each model's scores are standardised per user over the
// user's candidate items (z = (s - mean) / std), and the blend ranks by sum_m w_m z_m with
// w >= 0, sum w = 1, searched on a grid of the simplex (`step`). Only the ranking matters,
// so the weights' scale is free and the grid loses nothing but resolution.
//
// Validation scores must come from models that did not learn from the validation ratings:
//   - a trained kind: the selection phase's model of the run blended, DIR/run<k>/model.pt
//     (under protocol = retrain the final model learned from validation too; the selection
//     model did not); its test scores come from that run's saved model (DIR/model.pt for
//     run 0, DIR/final/run<k>/model.pt or DIR/run<k>/model.pt for the others), so that a
//     blend per seed gives the blend's spread over seeds;
//   - a closed-form kind: refit on the training ratings alone at the setting it chose
//     (metrics.json, e.g. ease.lambda), since its saved fit covers training + validation;
//   - a directory with a ranker beside its model (train.ranker) ranks by the ranker, so
//     the ranker's directory is blended.
// Test scores come from the saved models, as `evaluate` ranks them.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace symgnn::ranking_blend {

struct BlendedModel {
  std::string dir;              // as given
  std::string ranked_by;        // the directory whose scores are blended (dir, or dir/ranker)
  std::string name;             // model name, e.g. "ease", "lowrank-G"
  std::string validation_from;  // where its validation scores came from, for people
  double val_ndcg = 0.0;
  double test_ndcg = 0.0;
  double weight = 0.0;
};

struct RankingBlendResult {
  std::vector<BlendedModel> models;
  double step = 0.0;
  int64_t grid_points = 0;
  double val_ndcg = 0.0;  // in-sample: the weights were chosen on it
  double test_ndcg = 0.0;
  double test_precision = 0.0, test_recall = 0.0;
  size_t best_single = 0;                 // the model with the highest validation NDCG@10
  int64_t val_users = 0, test_users = 0;  // users with a relevant held-out item
};

struct RankingBlendOptions {
  double step = 0.05;                           // grid step of the weights (1/step an integer)
  int64_t run = 0;                              // the run (seed) of every trained model
  std::string device = "cpu";                   // where scores are computed
  std::function<void(const std::string&)> log;  // progress lines; null: none
};

/// Loads the model directories, checks that they share users, items and splits, and blends
/// their ranking scores. DataError for a directory without a model or a validation split,
/// or models of different data; UsageError for fewer than 2 models or a bad step.
RankingBlendResult blend_for_ranking(const std::vector<std::string>& dirs, const RankingBlendOptions& opts);

/// The record of blend.json: weights, directories, NDCGs and what was chosen on what.
nlohmann::json ranking_blend_json(const RankingBlendResult& r);

/// Writes `dir`/blend.json (the record above) and `dir`/metrics.json (model "blend",
/// val_ndcg@10 and test_ndcg@10, and ranking_at_10 as a model directory's), atomically
/// with their checksums, so that `reproduce` reads the blend as it reads a cell.
void write_ranking_blend(const RankingBlendResult& r, const std::string& dir);

/// The same for a blend made once per run (RankingBlendOptions::run = 0, 1, ...): blend.json
/// holds run 0's record and every run's weights and NDCGs ("runs"); metrics.json the means
/// and standard deviations over the runs, as a trained cell's over its seeds.
void write_ranking_blend(const std::vector<RankingBlendResult>& runs, const std::string& dir);

}  // namespace symgnn::ranking_blend
