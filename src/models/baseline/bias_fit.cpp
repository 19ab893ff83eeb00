// The bias predictor's fit and its choice of shrinkage (bias_fit.h).
#include "models/baseline/bias_fit.h"

#include <ATen/Parallel.h>

#include <algorithm>
#include <chrono>
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

/// One side's ratings grouped by that side's node: the other side's index and the value, node
/// k's ratings at [start[k], start[k + 1]). A stable counting sort, so each node's ratings keep
/// their order in the list and its sum below adds in the same order as a pass over the list.
/// Read twice per sweep in order (12 bytes a rating where the list is 20), and each node's
/// sum belongs to one thread.
struct GroupedRatings {
  std::vector<size_t> start;    // [nodes + 1]
  std::vector<uint32_t> other;  // [ratings]
  std::vector<float> value;     // [ratings]
};

/// The rating lists a fit reads, in order: a fit of them is the fit of their concatenation,
/// without making it (train_and_validation's copy was the top of the 5 M set's peak).
using Lists = std::vector<const RatingList*>;
using Ids = std::vector<int64_t> RatingList::*;

/// Calls fn(e, list, i) for rating i of each list, e counting through the lists in order.
template <class Fn>
void for_each_rating(const Lists& lists, Fn&& fn) {
  size_t e = 0;
  for (const RatingList* r : lists)
    for (size_t i = 0; i < r->size(); ++i) fn(e++, *r, i);
}

/// `side`'s grouping of the ratings e of `lists` with keep(e).
template <class Keep>
GroupedRatings group_by(const Lists& lists, Ids side, Ids other, size_t nodes, size_t other_nodes,
                        Keep&& keep) {
  if (other_nodes > std::numeric_limits<uint32_t>::max())
    throw DataError("baseline: " + std::to_string(other_nodes) + " nodes on one side: at most 2^32 - 1");
  GroupedRatings g;
  g.start.assign(nodes + 1, 0);
  for_each_rating(lists, [&](size_t e, const RatingList& r, size_t i) {
    if (keep(e)) ++g.start[static_cast<size_t>((r.*side)[i]) + 1];
  });
  for (size_t k = 0; k < nodes; ++k) g.start[k + 1] += g.start[k];
  g.other.resize(g.start[nodes]);
  g.value.resize(g.start[nodes]);
  std::vector<size_t> next(g.start.begin(), g.start.end() - 1);
  for_each_rating(lists, [&](size_t e, const RatingList& r, size_t i) {
    if (!keep(e)) return;
    const size_t at = next[static_cast<size_t>((r.*side)[i])]++;
    g.other[at] = static_cast<uint32_t>((r.*other)[i]);
    g.value[at] = r.value[i];
  });
  return g;
}

/// The ratings of a fit, grouped both ways.
struct FitRatings {
  GroupedRatings by_item, by_user;
  float lo = 0, hi = 0;  // the values' range
  double mu = 0;         // their mean
  size_t size = 0;
};

template <class Keep>
FitRatings fit_ratings(const Lists& lists, size_t n1, size_t n2, Keep&& keep) {
  FitRatings f;
  f.by_item = group_by(lists, &RatingList::item, &RatingList::user, n2, n1, keep);
  f.by_user = group_by(lists, &RatingList::user, &RatingList::item, n1, n2, keep);
  double sum = 0;  // in the lists' order, as the mean of the kept ratings would be
  f.lo = std::numeric_limits<float>::infinity();  // read only where some rating is kept
  f.hi = -f.lo;
  for_each_rating(lists, [&](size_t e, const RatingList& r, size_t i) {
    if (!keep(e)) return;
    sum += r.value[i];
    f.lo = std::min(f.lo, r.value[i]);
    f.hi = std::max(f.hi, r.value[i]);
    ++f.size;
  });
  f.mu = f.size > 0 ? sum / static_cast<double>(f.size) : 0.0;
  return f;
}

FitRatings fit_ratings(const Lists& lists, size_t n1, size_t n2) {
  return fit_ratings(lists, n1, n2, [](size_t) { return true; });
}

/// One exact step of one side: b_k = sum (r - mu - b_other) / (lambda + count) for the biases
/// from index `first` on (those before it stay fixed). Returns the largest change of a bias.
/// The same at any thread count: each node's sum is one thread's, in its ratings' order.
double solve_side(const GroupedRatings& g, double mu, const std::vector<double>& b_other, double lambda,
                  std::vector<double>& b, size_t first = 0) {
  const auto nodes = static_cast<int64_t>(b.size());
  if (static_cast<int64_t>(first) >= nodes) return 0.0;
  // About 64k ratings a task: a small fit runs on the calling thread alone.
  const int64_t grain = 1 + static_cast<int64_t>(65536.0 * static_cast<double>(nodes) /
                                                 static_cast<double>(std::max<size_t>(1, g.other.size())));
  return at::parallel_reduce(
      static_cast<int64_t>(first), nodes, grain, 0.0,
      [&](int64_t lo, int64_t hi, double moved) {
        for (int64_t k = lo; k < hi; ++k) {
          const auto node = static_cast<size_t>(k);
          double acc = 0.0;
          for (size_t e = g.start[node]; e < g.start[node + 1]; ++e)
            acc += g.value[e] - mu - b_other[g.other[e]];
          const double denominator = lambda + static_cast<double>(g.start[node + 1] - g.start[node]);
          const double next = denominator > 0 ? acc / denominator : 0.0;  // no rating: b = 0
          moved = std::max(moved, std::abs(next - b[node]));
          b[node] = next;
        }
        return moved;
      },
      [](double a, double c) { return std::max(a, c); });
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
void alternate(const FitRatings& ratings, Biases& b, size_t first_user, size_t first_item, Shrinkage s,
               int64_t sweeps) {
  const double tol = 1e-6 * std::max(1.0, static_cast<double>(ratings.hi - ratings.lo));
  for (b.sweeps = 1; b.sweeps <= sweeps; ++b.sweeps) {
    const double moved_item = solve_side(ratings.by_item, b.mu, b.user, s.item, b.item, first_item);
    const double moved_user = solve_side(ratings.by_user, b.mu, b.item, s.user, b.user, first_user);
    if (std::max(moved_item, moved_user) < tol) break;
  }
  b.sweeps = std::min(b.sweeps, sweeps);
}

/// fit_biases on ratings already grouped.
Biases fit_grouped(const FitRatings& ratings, int64_t n1, int64_t n2, Shrinkage s, int64_t sweeps,
                   const Biases* start) {
  Biases b;
  const auto u1 = static_cast<size_t>(n1), u2 = static_cast<size_t>(n2);
  b.user.assign(u1, 0.0);
  b.item.assign(u2, 0.0);
  if (ratings.size == 0) return b;
  b.mu = ratings.mu;
  if (start && start->user.size() == u1 && start->item.size() == u2) {
    b.user = start->user;
    b.item = start->item;
  }
  alternate(ratings, b, 0, 0, s, sweeps);
  return b;
}

/// Runs fn(lambda_u index, lambda_i index, fit) over the grid, each fit warm-started from
/// the one before it (neighbouring shrinkages have nearby solutions: a few sweeps each).
template <class Fn>
void over_grid(const FitRatings& train, int64_t n1, int64_t n2, const ShrinkageGrid& grid, Fn&& fn) {
  Biases previous;
  for (size_t a = 0; a < grid.users.size(); ++a)
    for (size_t b = 0; b < grid.items.size(); ++b) {
      Biases fit = fit_grouped(train, n1, n2, {grid.users[a], grid.items[b]}, grid.sweeps,
                               previous.user.empty() ? nullptr : &previous);
      fn(a, b, fit);
      previous = std::move(fit);
    }
}

}  // namespace

Biases fit_biases(const RatingList& ratings, int64_t n1, int64_t n2, Shrinkage s, int64_t sweeps,
                  const Biases* start) {
  return fit_grouped(fit_ratings({&ratings}, static_cast<size_t>(n1), static_cast<size_t>(n2)), n1, n2, s,
                     sweeps, start);
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
  alternate(fit_ratings({&ratings}, u1, u2), b, first_user, first_item, s, sweeps);
  return b;
}

ShrinkageChoice choose_shrinkage_cv(const RatingList& ratings, int64_t n1, int64_t n2,
                                    const ShrinkageGrid& grid, int64_t folds, uint64_t seed,
                                    const CvProgress* progress) {
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
  // The folds in turn until their held-out ratings reach grid.max_held (0: every fold).
  // Fold f holds the positions k = f, f + folds, ... of the shuffle: n / folds ratings, one
  // more for the first n % folds folds.
  const auto fold_size = [&](int64_t f) {
    return n / static_cast<size_t>(folds) + (static_cast<size_t>(f) < n % static_cast<size_t>(folds) ? 1 : 0);
  };
  const auto enough = [&](size_t held) {
    return grid.max_held > 0 && held >= static_cast<size_t>(grid.max_held);
  };
  int64_t to_use = 0;
  for (size_t held = 0; to_use < folds && !enough(held);) held += fold_size(to_use++);
  const auto start = std::chrono::steady_clock::now();
  bool saying = false;
  int64_t used = 0;
  size_t held_so_far = 0;
  for (int64_t f = 0; f < folds && !enough(held_so_far); ++f, ++used) {
    RatingList held;
    for (size_t e = 0; e < n; ++e)
      if (fold[e] == f) held.add(ratings.user[e], ratings.item[e], ratings.value[e]);
    held_so_far += held.size();
    const FitRatings train = fit_ratings({&ratings}, static_cast<size_t>(n1), static_cast<size_t>(n2),
                                         [&](size_t e) { return fold[e] != f; });
    over_grid(train, n1, n2, grid,
              [&](size_t a, size_t b, const Biases& fit) { add_differences(fit, held, lo, hi, sums[a][b]); });
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    saying = saying || (progress && progress->say && f == 0 && seconds >= progress->after_seconds);
    if (saying)
      progress->say("bias baseline: fold " + std::to_string(f + 1) + " of " + std::to_string(to_use) +
                    " fitted (" + std::to_string(static_cast<int64_t>(std::lround(seconds))) + " s; " +
                    std::to_string(grid.users.size() * grid.items.size()) + " shrinkage pairs a fold)");
  }
  ShrinkageChoice c = best_of(grid, figures_of(sums));
  c.how = (used < folds ? std::to_string(used) + " of the " + std::to_string(folds) + " folds of " +
                              std::to_string(folds) + "-fold cross-validation (baseline.cv_max_held)"
                        : std::to_string(folds) + "-fold cross-validation") +
          " on " + std::to_string(n) + " training ratings";
  return c;
}

ShrinkageChoice choose_shrinkage_on(const RatingList& train, const RatingList& validation, int64_t n1,
                                    int64_t n2, const ShrinkageGrid& grid) {
  check_grid(grid);
  if (train.empty() || validation.empty())
    throw DataError("baseline: choosing the shrinkage on validation needs training and validation ratings");
  const FitRatings grouped = fit_ratings({&train}, static_cast<size_t>(n1), static_cast<size_t>(n2));
  std::vector<std::vector<eval::ErrorSums>> sums(grid.users.size(),
                                                 std::vector<eval::ErrorSums>(grid.items.size()));
  over_grid(grouped, n1, n2, grid, [&](size_t a, size_t b, const Biases& fit) {
    add_differences(fit, validation, grouped.lo, grouped.hi, sums[a][b]);
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
  g.max_held = cfg.cv_max_held;
  return g;
}

ShrinkageChoice choose_shrinkage_cv(const Dataset& ds, const BaselineConfig& cfg,
                                    const CvProgress* progress) {
  return choose_shrinkage_cv(ds.train, ds.users.count, ds.items.count, shrinkage_grid(cfg), cfg.folds,
                             static_cast<uint64_t>(cfg.seed), progress);
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
  const int64_t n1 = ds.users.count, n2 = ds.items.count;
  return fit_grouped(
      fit_ratings({&ds.train, &ds.validation}, static_cast<size_t>(n1), static_cast<size_t>(n2)), n1, n2, s,
      sweeps, nullptr);
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
