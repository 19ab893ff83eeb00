// train.auto = on, for a trained rating model: what each side's graph is worth on
// validation, by a cheap proxy measured before any training: does the graph tell anything
// about the ratings that the bias baseline does not?
//
// The proxy predicts each validation rating's residual r_ui - (mu + b_u + b_i), the
// baseline's biases fitted to ds.train, from the graph alone (user side; the item side is
// the same with the roles swapped):
//
//   f_bias(u, i) = sum_{v in N(u)} w_uv b_v / sum_{v in N(u)} w_uv
//                  (do u's neighbours rate high or low?)
//   f_same(u, i) = sum_{v in N(u), v rated i} w_uv e_vi / (1 + sum_{v in N(u), v rated i} w_uv)
//                  (what the neighbours' training residuals on the same item say)
//
// with each node's edge weights scaled to mean 1 and e_vi the training residuals. The
// residual ~ c + a f_bias + b f_same (a, b >= 0: neighbours alike, as graph smoothing
// assumes) is fitted on one half of the validation ratings and predicts the other, and back
// (cross-fitted, so a graph of noise gains nothing on average); the reference is the
// baseline with the same cross-fitted intercept. The worth is the reference's RMSE less
// the graph's.
//
// The run reports it (summary and metrics.json, figures.auto.graphs) and does not act on
// it: replacing the graphs worth <= 0 by the identity was measured on six sets and did not
// help the final combination on validation (Flixster's user graph is worth -0.0005 here,
// yet the network uses it: without it the combination validates 0.0015 worse;
// docs/experiments.md, "What the graphs are worth on validation"). The choice is made by
// short runs instead (fit/graph_choice.h).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "models/baseline/bias_fit.h"
#include "symgnn/config.h"
#include "symgnn/dataset.h"

namespace symgnn::fitting {

struct GraphWorth {
  std::string side;    // "user" or "item"
  std::string origin;  // where the graph came from ("file", "knn")
  int64_t edges = 0;
  int64_t covered = 0;  // validation ratings with a neighbour term (f_bias or f_same)
  // The rating figures (symgnn/metrics.h, rating_metric()) of the residuals' two fits:
  double error_reference = 0;               // the baseline with the cross-fitted intercept
  double error_graph = 0;                   // with the graph's terms
  double weight_bias = 0, weight_same = 0;  // on all validation ratings, for the record

  double worth() const { return error_reference - error_graph; }
};

/// The proxy of every side of `ds` with a graph (not the identity). Nothing is measured
/// with fewer than kMinCombinationRatings validation ratings (fit/baseline_guard.h). `cv`:
/// the baseline's cross-validated shrinkage on ds.train (fit/prepared_data.h), null only
/// where nothing is measured.
std::vector<GraphWorth> weigh_graphs(const Dataset& ds, const BaselineConfig& cfg,
                                     const models::ShrinkageChoice* cv);

/// "train.auto: the user graph (file, 40000 edges) predicts the bias baseline's validation
/// residuals to 0.8912 against 0.8936 without it (worth 0.0024; 1200 validation ratings
/// with a neighbour)"
std::string describe(const GraphWorth& w);
nlohmann::json graph_json(const std::vector<GraphWorth>& worths);

}  // namespace symgnn::fitting
