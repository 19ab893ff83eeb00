// The bias predictor's fit and its choice of shrinkage (bias_fit.h).
#include "models/baseline/bias_fit.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <stdexcept>

#include "eval/errors.h"
#include "symgnn/error.h"
#include "symgnn/metrics.h"
#include "util/strings.h"

namespace symgnn::models {
namespace {

/// One exact step of one side: b_side = sum (r - mu - b_other) / (lambda + count), for the
/// biases from index `first` on (those before it stay fixed). Returns the largest change of
/// a bias.
double solve_side(const std::vector<int64_t>& side, const std::vector<int64_t>& other, const RatingList& r,
                  double mu, const std::vector<double>& b_other, const std::vector<double>& count,
                  double lambda, std::vector<double>& b, std::vector<double>& acc, size_t first = 0) {
  std::fill(acc.begin(), acc.end(), 0.0);
  for (size_t e = 0; e < r.size(); ++e)
    acc[static_cast<size_t>(side[e])] += r.value[e] - mu - b_other[static_cast<size_t>(other[e])];
  double moved = 0;
  for (size_t k = first; k < b.size(); ++k) {
    const double denominator = lambda + count[k];
    const double next = denominator > 0 ? acc[k] / denominator : 0.0;  // no rating: b = 0
    moved = std::max(moved, std::abs(next - b[k]));
    b[k] = next;
  }
  return moved;
}

std::pair<float, float> value_range(const RatingList& r) {
  const auto [lo, hi] = std::minmax_element(r.value.begin(), r.value.end());
  return {*lo, *hi};
}

/// Adds the differences of the biases' clipped predictions of `list` to `sums`.
void add_differences(const Biases& b, const RatingList& list, double lo, double hi, eval::ErrorSums& sums) {
  for (size_t e = 0; e < list.size(); ++e)
    sums.add(std::clamp(b.predict(list.user[e], list.item[e]), lo, hi) - list.value[e]);
}

/// The rating figure (symgnn/metrics.h, rating_metric()) of each grid point's sums.
std::vector<std::vector<double>> figures_of(const std::vector<std::vector<eval::ErrorSums>>& sums) {
  std::vector<std::vector<double>> out;
  for (const auto& row : sums) {
    out.emplace_back();
    for (const eval::ErrorSums& s : row) out.back().push_back(s.value(rating_metric()));
  }
  return out;
}

/// Runs fn(lambda_u index, lambda_i index, fit) over the grid, each fit warm-started from
/// the one before it (neighbouring shrinkages have nearby solutions: a few sweeps each).
template <class Fn>
void over_grid(const RatingList& train, int64_t n1, int64_t n2, const ShrinkageGrid& grid, Fn&& fn) {
  Biases previous;
  for (size_t a = 0; a < grid.users.size(); ++a)
    for (size_t b = 0; b < grid.items.size(); ++b) {
      Biases fit = fit_biases(train, n1, n2, {grid.users[a], grid.items[b]}, grid.sweeps,
                              previous.user.empty() ? nullptr : &previous);
      fn(a, b, fit);
      previous = std::move(fit);
    }
}

ShrinkageChoice best_of(const ShrinkageGrid& grid, std::vector<std::vector<double>> table) {
  ShrinkageChoice c;
  c.figure = std::numeric_limits<double>::infinity();
  for (size_t a = 0; a < table.size(); ++a)
    for (size_t b = 0; b < table[a].size(); ++b)
      if (table[a][b] < c.figure) {  // strict: ties keep the first (smallest) pair
        c.figure = table[a][b];
        c.best = {grid.users[a], grid.items[b]};
      }
  c.table = std::move(table);
  return c;
}

void check_grid(const ShrinkageGrid& grid) {
  if (grid.users.empty() || grid.items.empty())
    throw ConfigError(
        "baseline: the shrinkage grid is empty (baseline.user_shrinkages, baseline.item_shrinkages)");
}

/// The alternating exact steps on b's biases from index first_user (users) and first_item
/// (items) on, those before them fixed: the items' step, then the users', until no bias
/// moves by more than 1e-6 of the rating range, or `sweeps` sweeps (b.sweeps: how many).
void alternate(const RatingList& ratings, Biases& b, size_t first_user, size_t first_item, Shrinkage s,
               int64_t sweeps) {
  std::vector<double> count_user(b.user.size(), 0.0), count_item(b.item.size(), 0.0);
  for (size_t e = 0; e < ratings.size(); ++e) {
    count_user[static_cast<size_t>(ratings.user[e])] += 1;
    count_item[static_cast<size_t>(ratings.item[e])] += 1;
  }
  const auto [lo, hi] = value_range(ratings);
  const double tol = 1e-6 * std::max(1.0, static_cast<double>(hi - lo));
  std::vector<double> acc_user(b.user.size()), acc_item(b.item.size());
  for (b.sweeps = 1; b.sweeps <= sweeps; ++b.sweeps) {
    const double moved_item = solve_side(ratings.item, ratings.user, ratings, b.mu, b.user, count_item,
                                         s.item, b.item, acc_item, first_item);
    const double moved_user = solve_side(ratings.user, ratings.item, ratings, b.mu, b.item, count_user,
                                         s.user, b.user, acc_user, first_user);
    if (std::max(moved_item, moved_user) < tol) break;
  }
  b.sweeps = std::min(b.sweeps, sweeps);
}

}  // namespace

Biases fit_biases(const RatingList& ratings, int64_t n1, int64_t n2, Shrinkage s, int64_t sweeps,
                  const Biases* start) {
  Biases b;
  const auto u1 = static_cast<size_t>(n1), u2 = static_cast<size_t>(n2);
  b.user.assign(u1, 0.0);
  b.item.assign(u2, 0.0);
  if (ratings.empty()) return b;
  double sum = 0;
  for (float v : ratings.value) sum += v;
  b.mu = sum / static_cast<double>(ratings.size());
  if (start && start->user.size() == u1 && start->item.size() == u2) {
    b.user = start->user;
    b.item = start->item;
  }
  alternate(ratings, b, 0, 0, s, sweeps);
  return b;
}

Biases extend_biases(const RatingList& ratings, const Biases& trained, int64_t n1, int64_t n2, Shrinkage s,
                     int64_t sweeps) {
  const auto u1 = static_cast<size_t>(n1), u2 = static_cast<size_t>(n2);
  const size_t first_user = trained.user.size(), first_item = trained.item.size();
  if (u1 < first_user || u2 < first_item)
    throw std::logic_error("extend_biases: fewer users or items than the trained biases");
  Biases b = trained;
  b.user.resize(u1, 0.0);
  b.item.resize(u2, 0.0);
  b.sweeps = 0;
  if (ratings.empty() || (u1 == first_user && u2 == first_item)) return b;
  // Only the added biases move: a new user's rating of a new item couples the two sides.
  alternate(ratings, b, first_user, first_item, s, sweeps);
  return b;
}

ShrinkageChoice choose_shrinkage_cv(const RatingList& ratings, int64_t n1, int64_t n2,
                                    const ShrinkageGrid& grid, int64_t folds, uint64_t seed) {
  check_grid(grid);
  const size_t n = ratings.size();
  if (folds < 2 || n < static_cast<size_t>(folds))
    throw DataError("baseline: " + std::to_string(n) + " training ratings cannot make " +
                    std::to_string(folds) + " cross-validation folds (baseline.folds)");
  // Fold of each rating: a Fisher-Yates shuffle of the positions, dealt round-robin (written
  // out rather than std::shuffle, whose order differs between standard libraries).
  std::vector<size_t> order(n);
  for (size_t e = 0; e < n; ++e) order[e] = e;
  std::mt19937_64 rng(seed);
  for (size_t e = n; e > 1; --e) std::swap(order[e - 1], order[rng() % e]);
  std::vector<int64_t> fold(n);
  for (size_t k = 0; k < n; ++k) fold[order[k]] = static_cast<int64_t>(k % static_cast<size_t>(folds));

  const auto [lo, hi] = value_range(ratings);
  // Each grid point's differences over every fold, pooled: one figure per point.
  std::vector<std::vector<eval::ErrorSums>> sums(grid.users.size(),
                                                 std::vector<eval::ErrorSums>(grid.items.size()));
  for (int64_t f = 0; f < folds; ++f) {
    RatingList train, held;
    for (size_t e = 0; e < n; ++e)
      (fold[e] == f ? held : train).add(ratings.user[e], ratings.item[e], ratings.value[e]);
    over_grid(train, n1, n2, grid,
              [&](size_t a, size_t b, const Biases& fit) { add_differences(fit, held, lo, hi, sums[a][b]); });
  }
  ShrinkageChoice c = best_of(grid, figures_of(sums));
  c.how = std::to_string(folds) + "-fold cross-validation on " + std::to_string(n) + " training ratings";
  return c;
}

ShrinkageChoice choose_shrinkage_on(const RatingList& train, const RatingList& validation, int64_t n1,
                                    int64_t n2, const ShrinkageGrid& grid) {
  check_grid(grid);
  if (train.empty() || validation.empty())
    throw DataError("baseline: choosing the shrinkage on validation needs training and validation ratings");
  const auto [lo, hi] = value_range(train);
  std::vector<std::vector<eval::ErrorSums>> sums(grid.users.size(),
                                                 std::vector<eval::ErrorSums>(grid.items.size()));
  over_grid(train, n1, n2, grid, [&](size_t a, size_t b, const Biases& fit) {
    add_differences(fit, validation, lo, hi, sums[a][b]);
  });
  ShrinkageChoice c = best_of(grid, figures_of(sums));
  c.how = "the " + rating_label() + " of " + std::to_string(validation.size()) + " validation ratings";
  return c;
}

ShrinkageGrid shrinkage_grid(const BaselineConfig& cfg) {
  ShrinkageGrid g;
  g.users = parse_shrinkages(cfg.user_shrinkages, "baseline.user_shrinkages");
  g.items = parse_shrinkages(cfg.item_shrinkages, "baseline.item_shrinkages");
  g.sweeps = cfg.sweeps;
  return g;
}

ShrinkageChoice choose_shrinkage_cv(const Dataset& ds, const BaselineConfig& cfg) {
  return choose_shrinkage_cv(ds.train, ds.users.count, ds.items.count, shrinkage_grid(cfg), cfg.folds,
                             static_cast<uint64_t>(cfg.seed));
}

ShrinkageChoice choose_shrinkage(const Dataset& ds, const BaselineConfig& cfg, const ShrinkageChoice* cv) {
  if (cfg.select == "validation" && !ds.validation.empty())
    return choose_shrinkage_on(ds.train, ds.validation, ds.users.count, ds.items.count, shrinkage_grid(cfg));
  return cv ? *cv : choose_shrinkage_cv(ds, cfg);
}

RatingList train_and_validation(const Dataset& ds) {
  RatingList all = ds.train;
  for (size_t e = 0; e < ds.validation.size(); ++e)
    all.add(ds.validation.user[e], ds.validation.item[e], ds.validation.value[e]);
  return all;
}

Biases fit_final_biases(const Dataset& ds, Shrinkage s, int64_t sweeps) {
  return fit_biases(train_and_validation(ds), ds.users.count, ds.items.count, s, sweeps);
}

std::vector<double> parse_shrinkages(const std::string& text, const std::string& key) {
  std::vector<double> out;
  for (const std::string& s : split(text, ',')) {
    const std::string t = trim(s);
    double v = 0;
    if (!parse_double(t, v) || !(v >= 0) || !std::isfinite(v))
      throw ConfigError(key + " = '" + text + "': '" + t + "' is not a non-negative number");
    out.push_back(v);
  }
  if (out.empty()) throw ConfigError(key + " is empty: give at least one non-negative number");
  return out;
}

}  // namespace symgnn::models
