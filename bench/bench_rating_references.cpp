// The rating references of issue 62, run on the split `symgnn train` makes of the same data
// (load_dataset: the same training, validation and test ratings): the bias baseline, the
// baseline plus the item k-NN member alone (models/baseline/similar_items.h), a biased SVD
// and SVD++ (Koren, KDD 2008), each tuned on the validation ratings and refitted on training
// + validation for its test figure, as the default's final model is. Prints figures;
// asserts nothing.
//
//   build/bench/bench_rating_references --data ../shared/data/ml-100k --set data.split=u1
//   build/bench/bench_rating_references --data train.csv --set data.test_file=test.csv
//
// SGD as Surprise's SVD and SVDpp run it (learning rate 0.007 for SVD++ and 0.005 for SVD,
// factors initialised N(0, 0.1)), the users visited in a shuffled order and SVD++'s implicit
// factors y_j updated once per user by the sum of that user's per-rating steps (the same to
// first order in the learning rate, |R(u)| times cheaper); the grid is factors x
// regularisation, the epochs the best of at most 100 on validation.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "data_args.h"
#include "fit/member_selection.h"
#include "models/baseline/bias_fit.h"
#include "models/baseline/neighbour_residuals.h"
#include "symgnn/config.h"
#include "symgnn/dataset.h"
#include "symgnn/error.h"

namespace {

using symgnn::RatingList;

struct Factors {
  int64_t k = 0;
  double lr = 0.005, reg = 0.02;
  bool implicit = false;  // SVD++
};

/// A biased matrix factorisation, with SVD++'s implicit term where f.implicit.
class Svd {
 public:
  Svd(const Factors& f, int64_t n1, int64_t n2, double mu, uint32_t seed)
      : f_(f), n1_(n1), n2_(n2), mu_(mu), bu_(static_cast<size_t>(n1)), bi_(static_cast<size_t>(n2)) {
    std::mt19937 rng(seed);
    std::normal_distribution<double> init(0, 0.1);
    const auto fill = [&](std::vector<double>& v, int64_t rows) {
      v.resize(static_cast<size_t>(rows * f.k));
      for (double& x : v) x = init(rng);
    };
    fill(p_, n1), fill(q_, n2);
    if (f.implicit) fill(y_, n2);
  }

  /// One epoch over `by_user` (each user's (item, rating) list), users in `order`.
  void epoch(const std::vector<std::vector<std::pair<int64_t, float>>>& by_user,
             const std::vector<int64_t>& order) {
    const auto k = static_cast<size_t>(f_.k);
    std::vector<double> z(k), grad_y(k), pu(k);
    for (const int64_t u : order) {
      const auto& rated = by_user[static_cast<size_t>(u)];
      if (rated.empty()) continue;
      implicit_sum(rated, z);
      std::fill(grad_y.begin(), grad_y.end(), 0.0);
      const double norm = f_.implicit ? 1 / std::sqrt(static_cast<double>(rated.size())) : 0;
      double* p = &p_[static_cast<size_t>(u) * k];
      for (const auto& [i, r] : rated) {
        double* q = &q_[static_cast<size_t>(i) * k];
        double dot = 0;
        for (size_t d = 0; d < k; ++d) dot += (p[d] + z[d]) * q[d];
        const double e = r - (mu_ + bu_[static_cast<size_t>(u)] + bi_[static_cast<size_t>(i)] + dot);
        bu_[static_cast<size_t>(u)] += f_.lr * (e - f_.reg * bu_[static_cast<size_t>(u)]);
        bi_[static_cast<size_t>(i)] += f_.lr * (e - f_.reg * bi_[static_cast<size_t>(i)]);
        for (size_t d = 0; d < k; ++d) {
          const double pd = p[d], qd = q[d];
          p[d] += f_.lr * (e * qd - f_.reg * pd);
          q[d] += f_.lr * (e * (pd + z[d]) - f_.reg * qd);
          grad_y[d] += e * norm * qd;
        }
      }
      if (f_.implicit)
        for (const auto& [j, r] : rated) {
          double* y = &y_[static_cast<size_t>(j) * k];
          for (size_t d = 0; d < k; ++d)
            y[d] += f_.lr * (grad_y[d] - static_cast<double>(rated.size()) * f_.reg * y[d]);
        }
    }
  }

  /// RMSE of `list`, predictions clipped to [lo, hi].
  double rmse(const RatingList& list, const std::vector<std::vector<std::pair<int64_t, float>>>& by_user,
              float lo, float hi) const {
    const auto k = static_cast<size_t>(f_.k);
    std::vector<double> z(k);
    int64_t last = -1;
    double sse = 0;
    for (size_t e = 0; e < list.size(); ++e) {
      const int64_t u = list.user[e], i = list.item[e];
      double pred = mu_;
      if (u < n1_) pred += bu_[static_cast<size_t>(u)];
      if (i < n2_) pred += bi_[static_cast<size_t>(i)];
      if (u < n1_ && i < n2_) {
        if (u != last) implicit_sum(by_user[static_cast<size_t>(u)], z), last = u;
        for (size_t d = 0; d < k; ++d)
          pred += (p_[static_cast<size_t>(u) * k + d] + z[d]) * q_[static_cast<size_t>(i) * k + d];
      }
      const double diff = std::clamp(pred, double{lo}, double{hi}) - list.value[e];
      sse += diff * diff;
    }
    return std::sqrt(sse / static_cast<double>(list.size()));
  }

 private:
  void implicit_sum(const std::vector<std::pair<int64_t, float>>& rated, std::vector<double>& z) const {
    std::fill(z.begin(), z.end(), 0.0);
    if (!f_.implicit || rated.empty()) return;
    const auto k = static_cast<size_t>(f_.k);
    const double norm = 1 / std::sqrt(static_cast<double>(rated.size()));
    for (const auto& [j, r] : rated)
      for (size_t d = 0; d < k; ++d) z[d] += norm * y_[static_cast<size_t>(j) * k + d];
  }

  Factors f_;
  int64_t n1_, n2_;
  double mu_;
  std::vector<double> bu_, bi_, p_, q_, y_;
};

std::vector<std::vector<std::pair<int64_t, float>>> by_user(const std::vector<const RatingList*>& lists,
                                                            int64_t n1) {
  std::vector<std::vector<std::pair<int64_t, float>>> out(static_cast<size_t>(n1));
  for (const RatingList* l : lists)
    for (size_t e = 0; e < l->size(); ++e)
      out[static_cast<size_t>(l->user[e])].emplace_back(l->item[e], l->value[e]);
  return out;
}

double mean_of(const std::vector<const RatingList*>& lists) {
  double s = 0, n = 0;
  for (const RatingList* l : lists)
    for (const float v : l->value) s += v, n += 1;
  return s / n;
}

/// Trains `f` for at most `epochs` epochs on `train`, returning the RMSE of `judge` after each.
std::vector<double> run(const Factors& f, const symgnn::Dataset& ds,
                        const std::vector<const RatingList*>& train, const RatingList& judge,
                        int64_t epochs) {
  const auto rows = by_user(train, ds.users.count);
  Svd model(f, ds.users.count, ds.items.count, mean_of(train), 7);
  std::vector<int64_t> order(static_cast<size_t>(ds.users.count));
  std::iota(order.begin(), order.end(), 0);
  std::mt19937 rng(11);
  std::vector<double> out;
  for (int64_t ep = 0; ep < epochs; ++ep) {
    std::shuffle(order.begin(), order.end(), rng);
    model.epoch(rows, order);
    out.push_back(model.rmse(judge, rows, ds.rating_min, ds.rating_max));
  }
  return out;
}

/// The grid's best on validation (factors, regularisation, epochs), then its test RMSE
/// refitted on training + validation for those epochs.
void tune_and_test(const char* name, bool implicit, const symgnn::Dataset& ds) {
  const auto t0 = std::chrono::steady_clock::now();
  Factors best;
  int64_t best_epochs = 0;
  double best_val = 1e9;
  for (const int64_t k : {10, 50, 100})
    for (const double reg : {0.02, 0.05, 0.1, 0.2}) {
      const Factors f{k, implicit ? 0.007 : 0.005, reg, implicit};
      const std::vector<double> curve = run(f, ds, {&ds.train}, ds.validation, 100);
      const auto at = std::min_element(curve.begin(), curve.end());
      std::printf("  %s k = %lld, reg = %.2f: validation RMSE %.4f at epoch %lld\n", name,
                  static_cast<long long>(k), reg, *at, static_cast<long long>(at - curve.begin() + 1));
      if (*at < best_val) best_val = *at, best = f, best_epochs = at - curve.begin() + 1;
    }
  const std::vector<double> test = run(best, ds, {&ds.train, &ds.validation}, ds.test, best_epochs);
  std::printf("%s: k = %lld, reg = %.2f, %lld epochs: validation RMSE %.4f, test RMSE %.4f (%.0f s)\n", name,
              static_cast<long long>(best.k), best.reg, static_cast<long long>(best_epochs), best_val,
              test.back(), std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
}

/// The bias baseline, and the baseline plus the item k-NN member alone: its shrinkage and
/// weight chosen on validation as train.auto chooses them, its test figure from the
/// baseline and neighbourhoods of training + validation.
void baseline_and_knn(const symgnn::Dataset& ds, const symgnn::BaselineConfig& cfg) {
  using namespace symgnn::models;
  const Shrinkage s = choose_shrinkage_cv(ds.train, ds.users.count, ds.items.count, shrinkage_grid(cfg),
                                          cfg.folds, static_cast<uint64_t>(cfg.seed))
                          .best;
  const auto rmse = [&](const RatingList& list, const Biases& b, const NeighbourResiduals* idx, double w,
                        double lambda) {
    double sse = 0;
    for (size_t e = 0; e < list.size(); ++e) {
      double pred = b.predict(list.user[e], list.item[e]);
      if (idx) pred += w * idx->knn_sum(list.user[e], list.item[e]).term(lambda);
      const double d = std::clamp(pred, double{ds.rating_min}, double{ds.rating_max}) - list.value[e];
      sse += d * d;
    }
    return std::sqrt(sse / static_cast<double>(list.size()));
  };
  const Biases on_train = fit_biases(ds.train, ds.users.count, ds.items.count, s, cfg.sweeps);
  const NeighbourResiduals val_idx(ds.train, on_train, {}, {}, cfg.knn_neighbours);
  std::vector<double> t(ds.validation.size());
  for (size_t e = 0; e < t.size(); ++e)
    t[e] = ds.validation.value[e] - on_train.predict(ds.validation.user[e], ds.validation.item[e]);
  double best_lambda = 1, best_w = 0, best = 1e9;
  for (const double lambda : parse_shrinkages(cfg.neighbour_shrinkages, "baseline.neighbour_shrinkages")) {
    std::vector<double> m(t.size());
    for (size_t e = 0; e < t.size(); ++e)
      m[e] = val_idx.knn_sum(ds.validation.user[e], ds.validation.item[e]).term(lambda);
    const symgnn::fitting::MemberSelection sel =
        symgnn::fitting::select_members({{"knn", m}}, t, cfg.combination_folds);
    if (sel.error_crossfit < best)
      best = sel.error_crossfit, best_lambda = lambda, best_w = sel.members[0].weight;
  }
  RatingList all = ds.train;
  for (size_t e = 0; e < ds.validation.size(); ++e)
    all.add(ds.validation.user[e], ds.validation.item[e], ds.validation.value[e]);
  const Biases final_b = fit_biases(all, ds.users.count, ds.items.count, s, cfg.sweeps);
  const NeighbourResiduals test_idx(all, final_b, {}, {}, cfg.knn_neighbours);
  std::printf("bias baseline: validation RMSE %.4f, test RMSE %.4f\n",
              rmse(ds.validation, on_train, nullptr, 0, 1), rmse(ds.test, final_b, nullptr, 0, 1));
  std::printf(
      "baseline + item k-NN alone (k = %lld, lambda %.2f, weight %.3f): validation RMSE %.4f (cross-fitted "
      "%.4f), test RMSE %.4f\n",
      static_cast<long long>(cfg.knn_neighbours), best_lambda, best_w,
      rmse(ds.validation, on_train, &val_idx, best_w, best_lambda), best,
      rmse(ds.test, final_b, &test_idx, best_w, best_lambda));
}

}  // namespace

int main(int argc, char** argv) {
  using namespace symgnn;
  RunConfig cfg = preset_config("recommended");
  bool given = false;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!bench::apply_data_arg(cfg, argv[i], argv[i + 1])) {
      std::fprintf(stderr,
                   "bench_rating_references: unknown option %s (--config FILE, --data SOURCE, --set k=v)\n",
                   argv[i]);
      return 2;
    }
    given = true;
  }
  if (!given) {
    std::fprintf(stderr,
                 "bench_rating_references: give --data SOURCE (and --set key=value as for symgnn train)\n");
    return 2;
  }
  try {
    const Dataset ds = load_dataset(cfg.data);
    std::printf("%s: %zu training, %zu validation, %zu test ratings\n", cfg.data.source.c_str(),
                ds.train.size(), ds.validation.size(), ds.test.size());
    baseline_and_knn(ds, cfg.baseline);
    tune_and_test("SVD", false, ds);
    tune_and_test("SVD++", true, ds);
  } catch (const Error& e) {
    std::fprintf(stderr, "bench_rating_references: %s\n", e.what());
    return 2;
  }
  return 0;
}
