#include "fit/baseline_guard.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "eval/errors.h"
#include "symgnn/graph.h"
#include "symgnn/metrics.h"
#include "util/text.h"

namespace symgnn::fitting {
namespace {

/// The rating figure of clipped predictions against the validation ratings.
double error_of(const std::vector<double>& pred, const std::vector<float>& y) {
  return eval::rating_error(eval::differences(pred, y));
}

std::vector<double> predictions(const models::Biases& b, const RatingList& r, float lo, float hi) {
  std::vector<double> out(r.size());
  for (size_t e = 0; e < r.size(); ++e)
    out[e] = std::clamp(b.predict(r.user[e], r.item[e]), double{lo}, double{hi});
  return out;
}

/// A neighbour member (a graph's side, or item k-NN) at each validation rating, at the
/// shrinkage of the grid whose member alone predicts the residuals `t` best on the
/// cross-fitted folds.
struct SideMember {
  bool present = false;
  double shrinkage = 1;
  double error = std::numeric_limits<double>::infinity();  // alone on the folds, at that shrinkage
  std::vector<double> values;
};

enum class Member { user_graph, item_graph, item_knn };

SideMember side_member(const models::NeighbourResiduals& idx, Member which, const RatingList& val,
                       const std::vector<double>& grid, const std::vector<double>& t, int64_t folds) {
  SideMember m;
  const bool has = which == Member::user_graph   ? idx.has_user_graph()
                   : which == Member::item_graph ? idx.has_item_graph()
                                                 : idx.has_similar_items();
  if (!has || grid.empty()) return m;
  std::vector<models::NeighbourSum> sums(val.size());
  bool any = false;
  for (size_t e = 0; e < val.size(); ++e) {
    const int64_t u = val.user[e], i = val.item[e];
    sums[e] = which == Member::user_graph   ? idx.user_sum(u, i)
              : which == Member::item_graph ? idx.item_sum(u, i)
                                            : idx.knn_sum(u, i);
    any = any || sums[e].count > 0;
  }
  if (!any) return m;
  double best = std::numeric_limits<double>::infinity();
  for (const double lambda : grid) {
    std::vector<double> v(val.size());
    for (size_t e = 0; e < val.size(); ++e) v[e] = sums[e].term(lambda);
    const std::vector<double> err = fold_errors({&v}, t, folds);
    double mean = 0;
    for (const double x : err) mean += x / static_cast<double>(err.size());
    if (mean < best) best = mean, m.shrinkage = lambda, m.values = std::move(v);
  }
  m.present = true;
  m.error = best;
  return m;
}

/// The directions baseline.link_direction tries on a side whose directed links are `links`
/// (undefined: an undirected graph, read both ways).
std::vector<models::LinkDirection> directions_to_try(const std::string& policy,
                                                     const graph::SparseMatrix& links) {
  using models::LinkDirection;
  if (!links.row_ptr.defined() || policy == "both") return {LinkDirection::both};
  if (policy == "out") return {LinkDirection::out};
  if (policy == "in") return {LinkDirection::in};
  return {LinkDirection::both, LinkDirection::out, LinkDirection::in};
}

/// A graph's member in the direction of `directions` whose member alone predicts the
/// residuals best on the folds (the first on ties: both before either way); `tried` gets each
/// direction's figure where the side has links ("both 0.8520, out 0.8512"). `idx` reads
/// both ways as built, and is left reading the last direction tried (no caller reads a graph
/// member from it after).
SideMember directed_member(models::NeighbourResiduals& idx, Member which, const graph::SparseMatrix& at,
                           const graph::SparseMatrix& links,
                           const std::vector<models::LinkDirection>& directions, const RatingList& val,
                           const std::vector<double>& grid, const std::vector<double>& t, int64_t folds,
                           models::LinkDirection& chosen, std::string& tried) {
  SideMember best;
  chosen = directions.front();
  for (const models::LinkDirection d : directions) {
    // both is what idx was built with: no graph built again (the common, undirected case).
    if (d != models::LinkDirection::both) {
      models::NeighbourGraph g = models::neighbour_graph(at, links, d);
      if (which == Member::user_graph)
        idx.set_user_graph(std::move(g));
      else
        idx.set_item_graph(std::move(g));
    }
    SideMember m = side_member(idx, which, val, grid, t, folds);
    if (links.row_ptr.defined())
      tried += std::string(tried.empty() ? "" : ", ") + symgnn::to_string(d) + " " +
               (m.present ? fixed(m.error, 4) : std::string("none"));
    if (m.present && (!best.present || m.error < best.error)) best = std::move(m), chosen = d;
  }
  return best;
}

/// A graph's member's name in the verdict and metrics.json's members.
std::string member_name(bool user_side, models::LinkDirection d) {
  using models::LinkDirection;
  if (d == LinkDirection::both)
    return user_side ? "the user graph's neighbours" : "the item graph's neighbours";
  if (user_side)
    return d == LinkDirection::out ? "the user graph's out-links (the people each user follows)"
                                   : "the user graph's in-links (the people who follow each user)";
  return d == LinkDirection::out ? "the item graph's out-links" : "the item graph's in-links";
}

/// baseline.combination = members: the members chosen on cross-fitted folds (member_selection.h).
void choose_members(BaselineGuard& g, const std::vector<double>& val_model, const Dataset& ds,
                    const BaselineConfig& cfg, const models::Biases& on_train) {
  const RatingList& val = ds.validation;
  std::vector<double> t(val.size());
  for (size_t e = 0; e < t.size(); ++e) t[e] = val.value[e] - g.val_baseline[e];
  std::vector<MemberColumn> columns;
  MemberColumn net{"the network", std::vector<double>(t.size())};
  for (size_t e = 0; e < t.size(); ++e) net.values[e] = val_model[e] - g.val_baseline[e];
  columns.push_back(std::move(net));
  // The graphs the network reads, as the saved model's context holds them (both directions
  // of a directed edge, without self-loops; the identity gives a side no member).
  // The item k-NN member's neighbourhoods come from the same training residuals.
  // A directed graph file's member may read one direction of its links instead
  // (baseline.link_direction), chosen on the same folds.
  const graph::SparseMatrix at1 = graph::normalized_adjacency(ds.users),
                            at2 = graph::normalized_adjacency(ds.items);
  const graph::SparseMatrix links1 = graph::directed_links(ds.users),
                            links2 = graph::directed_links(ds.items);
  models::NeighbourResiduals idx(ds.train, on_train, models::neighbour_graph(at1),
                                 models::neighbour_graph(at2), cfg.knn_neighbours);
  const std::vector<double> grid =
      models::parse_shrinkages(cfg.neighbour_shrinkages, "baseline.neighbour_shrinkages");
  models::LinkDirection user_direction = models::LinkDirection::both,
                        item_direction = models::LinkDirection::both;
  const SideMember user_member =
      directed_member(idx, Member::user_graph, at1, links1, directions_to_try(cfg.link_direction, links1),
                      val, grid, t, cfg.combination_folds, user_direction, g.user_directions);
  const SideMember item_member =
      directed_member(idx, Member::item_graph, at2, links2, directions_to_try(cfg.link_direction, links2),
                      val, grid, t, cfg.combination_folds, item_direction, g.item_directions);
  const SideMember knn_member = side_member(idx, Member::item_knn, val, grid, t, cfg.combination_folds);
  if (user_member.present) columns.push_back({member_name(true, user_direction), user_member.values});
  if (item_member.present) columns.push_back({member_name(false, item_direction), item_member.values});
  if (knn_member.present) columns.push_back({kKnnMemberName, knn_member.values});
  g.folds = cfg.combination_folds;
  g.selection = select_members(columns, t, cfg.combination_folds);
  g.c = 0;
  g.a = g.selection.members[0].weight;
  g.b = 1 - g.a;
  size_t k = 1;
  // A member not kept reads both ways: the saved model then has the form of one without links.
  if (user_member.present) {
    g.neighbours.user = g.selection.members[k++].weight;
    g.neighbours.user_shrinkage = user_member.shrinkage;
    if (g.neighbours.user != 0) g.neighbours.user_direction = user_direction;
  }
  if (item_member.present) {
    g.neighbours.item = g.selection.members[k++].weight;
    g.neighbours.item_shrinkage = item_member.shrinkage;
    if (g.neighbours.item != 0) g.neighbours.item_direction = item_direction;
  }
  if (knn_member.present) {
    g.neighbours.knn = g.selection.members[k++].weight;
    g.neighbours.knn_shrinkage = knn_member.shrinkage;
  }
  g.knn_neighbours = knn_member.present ? cfg.knn_neighbours : 0;
  g.val_neighbours.assign(t.size(), 0.0);
  for (size_t e = 0; e < t.size(); ++e) {
    if (user_member.present) g.val_neighbours[e] += g.neighbours.user * user_member.values[e];
    if (item_member.present) g.val_neighbours[e] += g.neighbours.item * item_member.values[e];
    if (knn_member.present) g.val_neighbours[e] += g.neighbours.knn * knn_member.values[e];
  }
}

}  // namespace

void fit_weights(const std::vector<double>& model, const std::vector<double>& baseline,
                 const std::vector<double>& y, double& c, double& a, double& b) {
  // Least squares over the columns (1, model, baseline) with a, b >= 0 and c free: the
  // active sets of two weights, each solved centred (the intercept separates) and the
  // feasible one of least squared error kept. Two predictors of one rating are nearly
  // collinear, and unconstrained weights then extrapolate along their difference
  // (-3.4 x model + 4.5 x baseline was seen on validation): non-negative weights keep the
  // combination between them, and (0, 1, 0), (0, 0, 1) stay feasible.
  const auto n = static_cast<double>(y.size());
  double mm = 0, mb = 0, my = 0;
  for (size_t e = 0; e < y.size(); ++e) {
    mm += model[e];
    mb += baseline[e];
    my += y[e];
  }
  mm /= n;
  mb /= n;
  my /= n;
  double sxx = 0, sxz = 0, szz = 0, sxy = 0, szy = 0, syy = 0;
  for (size_t e = 0; e < y.size(); ++e) {
    const double x = model[e] - mm, z = baseline[e] - mb, t = y[e] - my;
    sxx += x * x;
    sxz += x * z;
    szz += z * z;
    sxy += x * t;
    szy += z * t;
    syy += t * t;
  }
  const double ridge = 1e-9 * (sxx + szz) + 1e-12;
  sxx += ridge;
  szz += ridge;
  // Squared error of (wa, wb) on the centred data.
  const auto sse = [&](double wa, double wb) {
    return syy - 2 * (wa * sxy + wb * szy) + wa * wa * sxx + 2 * wa * wb * sxz + wb * wb * szz;
  };
  double best_a = 0, best_b = 0, best = sse(0, 0);
  const auto consider = [&](double wa, double wb) {
    if (wa < 0 || wb < 0) return;
    const double e = sse(wa, wb);
    if (e < best) best = e, best_a = wa, best_b = wb;
  };
  const double det = sxx * szz - sxz * sxz;
  consider((sxy * szz - szy * sxz) / det, (szy * sxx - sxy * sxz) / det);
  consider(sxy / sxx, 0);
  consider(0, szy / szz);
  a = best_a;
  b = best_b;
  c = my - a * mm - b * mb;
}

BaselineGuard fit_baseline_guard(const std::vector<double>& val_model, const Dataset& ds,
                                 const BaselineConfig& cfg, const models::ShrinkageChoice* cv,
                                 bool final_on_all) {
  BaselineGuard g;
  if (ds.validation.size() < kMinCombinationRatings || val_model.size() != ds.validation.size()) {
    g.note = "train.auto: " + std::to_string(ds.validation.size()) +
             " validation ratings, too few to weigh the model against the bias baseline (at least " +
             std::to_string(kMinCombinationRatings) + "): the model's predictions as trained";
    return g;
  }
  if (!cv) throw std::logic_error("fit_baseline_guard: no shrinkage choice of the training ratings");
  const float lo = ds.rating_min, hi = ds.rating_max;
  g.shrinkage = cv->best;
  const models::Biases on_train =
      models::fit_biases(ds.train, ds.users.count, ds.items.count, g.shrinkage, cfg.sweeps);
  g.val_baseline = predictions(on_train, ds.validation, lo, hi);
  g.final_biases = final_on_all ? models::fit_final_biases(ds, g.shrinkage, cfg.sweeps) : on_train;

  std::vector<double> y(ds.validation.value.begin(), ds.validation.value.end());
  g.mode = cfg.combination;
  if (g.mode == "weights")
    fit_weights(val_model, g.val_baseline, y, g.c, g.a, g.b);
  else
    choose_members(g, val_model, ds, cfg, on_train);
  std::vector<double> combined(y.size());
  for (size_t e = 0; e < y.size(); ++e)
    combined[e] = std::clamp(g.combine(e, val_model[e], g.val_baseline[e]), double{lo}, double{hi});
  g.val_model = error_of(val_model, ds.validation.value);
  g.val_baseline_error = error_of(g.val_baseline, ds.validation.value);
  g.val_combined = error_of(combined, ds.validation.value);
  g.val_ratings = static_cast<int64_t>(y.size());
  g.applied = true;
  return g;
}

std::string describe(const BaselineGuard& g) {
  if (!g.applied) return g.note;
  if (g.mode == "members") {
    std::string form = "baseline";
    if (g.a > 0) form += " + " + fixed(g.a, 3) + " x (network - baseline)";
    const auto links = [](models::LinkDirection d) {
      return d == models::LinkDirection::both ? std::string("neighbours")
                                              : std::string(symgnn::to_string(d)) + "-links";
    };
    if (g.neighbours.user > 0)
      form += " + " + fixed(g.neighbours.user, 3) + " x user graph's " + links(g.neighbours.user_direction) +
              " (lambda " + fixed(g.neighbours.user_shrinkage, 0) + ")";
    if (g.neighbours.item > 0)
      form += " + " + fixed(g.neighbours.item, 3) + " x item graph's " + links(g.neighbours.item_direction) +
              " (lambda " + fixed(g.neighbours.item_shrinkage, 0) + ")";
    // Where a graph file is directed: each direction's member alone on the folds.
    std::string directions;
    if (!g.user_directions.empty()) directions += "; the user graph's links alone: " + g.user_directions;
    if (!g.item_directions.empty()) directions += "; the item graph's links alone: " + g.item_directions;
    if (!directions.empty()) directions += " (the baseline with each alone, mean RMSE over the folds)";
    if (g.neighbours.knn > 0)
      form += " + " + fixed(g.neighbours.knn, 3) + " x item k-NN (" + std::to_string(g.knn_neighbours) +
              " similar items, lambda " + fixed(g.neighbours.knn_shrinkage, 0) + ")";
    return "train.auto: validation " + rating_label() + " " + fixed(g.val_model, 4) + " (network), " +
           fixed(g.val_baseline_error, 4) + " (bias baseline), " + fixed(g.val_combined, 4) + " (" + form +
           "; members kept where they gain on " + std::to_string(g.folds) + " cross-fitted folds of the " +
           std::to_string(g.val_ratings) + " validation ratings by more than their spread" + directions + ")";
  }
  const double best_single = std::min(g.val_model, g.val_baseline_error);
  return "train.auto: validation " + rating_label() + " " + fixed(g.val_model, 4) + " (model), " +
         fixed(g.val_baseline_error, 4) + " (bias baseline), " + fixed(g.val_combined, 4) + " (combination " +
         fixed(g.c, 3) + " + " + fixed(g.a, 3) + " x model + " + fixed(g.b, 3) + " x baseline, fitted to " +
         std::to_string(g.val_ratings) + " validation ratings): " +
         (g.val_model <= g.val_baseline_error
              ? "the model beats the baseline by " + fixed(g.val_baseline_error - g.val_model, 4)
              : "the baseline beats the model by " + fixed(g.val_model - g.val_baseline_error, 4)) +
         ", the combination gains " + fixed(best_single - g.val_combined, 4) + " over the better of the two";
}

std::string verdict(const BaselineGuard& g) {
  if (!g.applied || g.mode != "members") return "";
  // Each gain is the cross-fitted validation figure the member took off (rating_label()).
  const std::string unit = " validation " + rating_label();
  std::string kept, dropped;
  for (const MemberChoice& m : g.selection.members) {
    if (m.kept)
      kept += " + " + m.name + " (weight " + fixed(m.weight, 2) + ", -" + fixed(m.gain, 4) + unit + ")";
    else
      dropped += std::string(dropped.empty() ? "" : ", ") + m.name + " (" + fixed(-m.gain_alone, 4) + unit +
                 " alone)";
  }
  std::string out = kept.empty() ? "kept: the bias baseline alone, as nothing beat it on validation"
                                 : "kept: the bias baseline" + kept;
  if (!dropped.empty()) out += "; not kept: " + dropped;
  return out;
}

nlohmann::json guard_json(const BaselineGuard& g, double model_test, double model_test_std) {
  if (!g.applied) return {{"applied", false}, {"note", g.note}};
  const std::string val = rating_figure("val"), test = rating_figure("test");
  if (g.mode == "members") {
    nlohmann::json members = nlohmann::json::array();
    for (const MemberChoice& m : g.selection.members)
      members.push_back({{"name", m.name},
                         {"kept", m.kept},
                         {"weight", m.weight},
                         {"gain_alone", m.gain_alone},
                         {"gain", m.gain},
                         {"gain_spread", m.gain_spread}});
    nlohmann::json out = {{"applied", true},
                          {"mode", "members"},
                          {"members", members},
                          {"weights",
                           {{"intercept", g.c},
                            {"model", g.a},
                            {"baseline", g.b},
                            {"user_neighbours", g.neighbours.user},
                            {"item_neighbours", g.neighbours.item},
                            {"item_knn", g.neighbours.knn}}},
                          {"neighbour_shrinkage",
                           {{"user", g.neighbours.user_shrinkage},
                            {"item", g.neighbours.item_shrinkage},
                            {"item_knn", g.neighbours.knn_shrinkage}}},
                          {"knn_neighbours", g.knn_neighbours},
                          {"folds", g.folds},
                          {"validation_ratings", g.val_ratings},
                          {val + "_model", g.val_model},
                          {val + "_baseline", g.val_baseline_error},
                          {val + "_combination", g.val_combined},
                          {val + "_combination_crossfit", g.selection.error_crossfit},
                          {"baseline_shrinkage", {{"user", g.shrinkage.user}, {"item", g.shrinkage.item}}},
                          {test + "_model", model_test},
                          {test + "_model_std", model_test_std}};
    // Where a graph file is directed: the links each graph's member reads, and each
    // direction alone on the folds.
    if (!g.user_directions.empty() || !g.item_directions.empty())
      out["link_direction"] = {{"user", symgnn::to_string(g.neighbours.user_direction)},
                               {"item", symgnn::to_string(g.neighbours.item_direction)},
                               {"user_tried", g.user_directions},
                               {"item_tried", g.item_directions}};
    return out;
  }
  return {{"applied", true},
          {"weights", {{"intercept", g.c}, {"model", g.a}, {"baseline", g.b}}},
          {"validation_ratings", g.val_ratings},
          {val + "_model", g.val_model},
          {val + "_baseline", g.val_baseline_error},
          {val + "_combination", g.val_combined},
          {"baseline_shrinkage", {{"user", g.shrinkage.user}, {"item", g.shrinkage.item}}},
          {test + "_model", model_test},
          {test + "_model_std", model_test_std}};
}

}  // namespace symgnn::fitting
