#include "fit/graph_worth.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "eval/errors.h"
#include "fit/baseline_guard.h"
#include "models/baseline/bias_fit.h"
#include "models/baseline/neighbour_residuals.h"
#include "symgnn/metrics.h"
#include "util/text.h"

namespace symgnn::fitting {
namespace {

/// Each node's neighbours with weights scaled to mean 1 over its edges; an edge listed in
/// both directions counts once (the larger weight).
std::vector<std::vector<std::pair<int64_t, double>>> neighbours(const EdgeList& g, int64_t n) {
  std::vector<std::vector<std::pair<int64_t, double>>> adj(static_cast<size_t>(n));
  for (size_t e = 0; e < g.size(); ++e) {
    if (g.src[e] == g.dst[e]) continue;
    adj[static_cast<size_t>(g.src[e])].emplace_back(g.dst[e], g.weight[e]);
    adj[static_cast<size_t>(g.dst[e])].emplace_back(g.src[e], g.weight[e]);
  }
  for (auto& a : adj) {
    std::sort(a.begin(), a.end(), [](const auto& x, const auto& y) {
      return x.first != y.first ? x.first < y.first : x.second > y.second;
    });
    a.erase(std::unique(a.begin(), a.end(), [](const auto& x, const auto& y) { return x.first == y.first; }),
            a.end());
    double sum = 0;
    for (const auto& [v, w] : a) sum += w;
    const double mean = a.empty() || sum <= 0 ? 1.0 : sum / static_cast<double>(a.size());
    for (auto& [v, w] : a) w /= mean;
  }
  return adj;
}

GraphWorth measure(const Dataset& ds, bool user_side, const models::Biases& b,
                   const models::NeighbourResiduals& residual) {
  const NodeSet& set = user_side ? ds.users : ds.items;
  GraphWorth w;
  w.side = user_side ? "user" : "item";
  w.origin = to_string(set.graph_origin);
  w.edges = static_cast<int64_t>(set.graph.size());
  const auto adj = neighbours(set.graph, set.count);
  const std::vector<double>& side_bias = user_side ? b.user : b.item;
  const RatingList& val = ds.validation;
  const size_t n = val.size();
  std::vector<double> f_bias(n, 0.0), f_same(n, 0.0), res(n);
  for (size_t e = 0; e < n; ++e) {
    const int64_t u = val.user[e], i = val.item[e];
    res[e] = val.value[e] - std::clamp(b.predict(u, i), double{ds.rating_min}, double{ds.rating_max});
    const int64_t node = user_side ? u : i;
    double wsum = 0, bsum = 0, same_w = 0, same = 0;
    for (const auto& [v, wt] : adj[static_cast<size_t>(node)]) {
      wsum += wt;
      bsum += wt * side_bias[static_cast<size_t>(v)];
      if (const double* r = user_side ? residual.residual(v, i) : residual.residual(u, v))
        same_w += wt, same += wt * *r;
    }
    if (wsum > 0) f_bias[e] = bsum / wsum, ++w.covered;
    f_same[e] = same / (1.0 + same_w);
  }
  // Cross-fitted on the two halves (even and odd positions).
  std::vector<double> with(n), reference(n);
  for (int half = 0; half < 2; ++half) {
    std::vector<double> fb, fs, r;
    double mean = 0;
    for (size_t e = 0; e < n; ++e)
      if (static_cast<int>(e % 2) != half)
        fb.push_back(f_bias[e]), fs.push_back(f_same[e]), r.push_back(res[e]);
    for (const double x : r) mean += x / static_cast<double>(std::max<size_t>(1, r.size()));
    double c = 0, a = 0, bb = 0;
    fit_weights(fb, fs, r, c, a, bb);
    for (size_t e = static_cast<size_t>(half); e < n; e += 2) {
      with[e] = c + a * f_bias[e] + bb * f_same[e];
      reference[e] = mean;
    }
  }
  w.error_reference = n ? eval::rating_error(eval::differences(reference, res)) : 0.0;
  w.error_graph = n ? eval::rating_error(eval::differences(with, res)) : 0.0;
  double c = 0;
  fit_weights(f_bias, f_same, res, c, w.weight_bias, w.weight_same);
  return w;
}

}  // namespace

std::vector<GraphWorth> weigh_graphs(const Dataset& ds, const BaselineConfig& cfg,
                                     const models::ShrinkageChoice* cv) {
  std::vector<GraphWorth> out;
  const bool user = ds.users.graph_origin != GraphOrigin::Identity && ds.users.graph.size() > 0;
  const bool item = ds.items.graph_origin != GraphOrigin::Identity && ds.items.graph.size() > 0;
  if (ds.validation.size() < kMinCombinationRatings || (!user && !item)) return out;
  // The baseline as train.auto's combination fits it, under the run's shrinkage choice.
  if (!cv) throw std::logic_error("weigh_graphs: no shrinkage choice of the training ratings");
  const models::Shrinkage s = cv->best;
  const models::Biases b = models::fit_biases(ds.train, ds.users.count, ds.items.count, s, cfg.sweeps);
  // The training residuals (models/baseline/neighbour_residuals.h, no graph of its own).
  const models::NeighbourResiduals residual(ds.train, b, {}, {});
  for (const bool user_side : {true, false})
    if (user_side ? user : item) out.push_back(measure(ds, user_side, b, residual));
  return out;
}

std::string describe(const GraphWorth& w) {
  return "train.auto: the " + w.side + " graph (" + w.origin + ", " + std::to_string(w.edges) +
         " edges) predicts the bias baseline's validation residuals to " + rating_label() + " " +
         fixed(w.error_graph, 4) + " against " + fixed(w.error_reference, 4) + " without it (worth " +
         fixed(w.worth(), 4) + "; " + std::to_string(w.covered) + " validation ratings with a neighbour)";
}

nlohmann::json graph_json(const std::vector<GraphWorth>& worths) {
  nlohmann::json out = nlohmann::json::object();
  for (const GraphWorth& w : worths)
    out[w.side] = {{"origin", w.origin},
                   {"edges", w.edges},
                   {"validation_ratings_with_a_neighbour", w.covered},
                   {rating_figure("val") + "_residual_reference", w.error_reference},
                   {rating_figure("val") + "_residual_graph", w.error_graph},
                   {"worth", w.worth()},
                   {"weights", {{"neighbour_bias", w.weight_bias}, {"same_item_residual", w.weight_same}}}};
  return out;
}

}  // namespace symgnn::fitting
