// The "Sylv." completion baseline; the predictor and the selection protocol are in completion.h.
#include "models/sylvester/completion.h"

#include <ATen/ATen.h>
#include <unistd.h>

#include <cmath>
#include <limits>
#include <sstream>
#include <string>

#include "eval/errors.h"
#include "symgnn/error.h"
#include "symgnn/metrics.h"
#include "util/memory_check.h"
#include "util/strings.h"

namespace symgnn::models::sylvester {

std::vector<double> parse_alphas(const std::string& text, const std::string& key) {
  std::vector<double> out;
  for (const std::string& field : split(text, ',')) {
    const std::string f = trim(field);
    double a = 0.0;
    if (!parse_double(f, a) || !(a >= 0.0 && a < 1.0))
      throw ConfigError(key + " = '" + text + "': '" + f + "' is not a number in [0, 1)");
    out.push_back(a);
  }
  if (out.empty()) throw ConfigError(key + " is empty: give comma-separated values in [0, 1)");
  return out;
}

namespace {

at::Tensor index_tensor(const std::vector<int64_t>& v, const at::Device& device) {
  return at::tensor(at::ArrayRef<int64_t>(v), at::kLong).to(device);
}

at::Tensor value_tensor(const std::vector<float>& v, const at::Device& device) {
  return at::tensor(at::ArrayRef<float>(v), at::kFloat).to(device, at::kDouble);
}

std::vector<double> to_vector(const at::Tensor& t) {
  const at::Tensor c = t.to(at::kCPU, at::kDouble).contiguous();
  return std::vector<double>(c.data_ptr<double>(), c.data_ptr<double>() + c.numel());
}

double mean_of(const RatingList& r) {
  double s = 0.0;
  for (float v : r.value) s += v;
  return r.empty() ? 0.0 : s / static_cast<double>(r.size());
}

}  // namespace

/// The Sylv. baseline is dense by construction: the two priors, their two solutions and
/// the iterative solver's four work matrices are n1 x n2 doubles each. Refused up front,
/// with the size, when that cannot fit in this machine's memory (a 1.5M x 1.5M set would
/// otherwise ask the allocator for terabytes and die with a bare bad_alloc).
void check_dense_fits(int64_t n1, int64_t n2, const at::Device& device) {
  if (!device.is_cpu()) return;  // the CUDA allocator's own error names the size
  require_memory(8 * 8.0 * static_cast<double>(n1) * static_cast<double>(n2),
                 "sylvester: Eq. 1 on " + std::to_string(n1) + " users x " + std::to_string(n2) + " items",
                 "8 dense n1 x n2 matrices of doubles",
                 "The Sylv. baseline is dense; use the learned models (lowrank, base) for sets this large");
}

std::pair<at::Tensor, at::Tensor> prior_matrices(int64_t n1, int64_t n2,
                                                 const std::vector<const RatingList*>& ratings, double mean,
                                                 const at::Device& device) {
  check_dense_fits(n1, n2, device);
  const auto opt = at::TensorOptions().dtype(at::kDouble).device(device);
  at::Tensor hr = at::zeros({n1, n2}, opt);
  at::Tensor hm = at::zeros({n1, n2}, opt);
  for (const RatingList* list : ratings) {
    if (list->empty()) continue;
    const at::Tensor u = index_tensor(list->user, device);
    const at::Tensor i = index_tensor(list->item, device);
    hr.index_put_({u, i}, value_tensor(list->value, device) - mean);
    hm.index_put_({u, i}, at::ones({static_cast<int64_t>(list->size())}, opt));
  }
  return {hr, hm};
}

/// mu + Xr / (Xm + lambda (1 - a)) for every entry; mu where no rating reaches (as below).
static at::Tensor predict_all(const at::Tensor& xr, const at::Tensor& xm, double mean, double alpha,
                              double shrinkage) {
  const at::Tensor den = xm + shrinkage * (1.0 - alpha);
  const at::Tensor reached = den > 1e-12;
  return at::where(reached, xr / at::where(reached, den, at::ones_like(den)), at::zeros_like(den)) + mean;
}

at::Tensor predict_entries(const at::Tensor& xr, const at::Tensor& xm, const RatingList& at_entries,
                           double mean, double alpha, double shrinkage, double rating_min,
                           double rating_max) {
  const at::Device device = xr.device();
  const at::Tensor u = index_tensor(at_entries.user, device);
  const at::Tensor i = index_tensor(at_entries.item, device);
  const at::Tensor num = xr.index({u, i});
  const at::Tensor den = xm.index({u, i}) + shrinkage * (1.0 - alpha);
  // Entries no rating reaches (den at rounding level) keep the mean rather than 0/0.
  const at::Tensor reached = den > 1e-12;
  const at::Tensor ratio =
      at::where(reached, num / at::where(reached, den, at::ones_like(den)), at::zeros_like(den));
  return (ratio + mean).clamp(rating_min, rating_max);
}

double rating_error(const at::Tensor& prediction, const RatingList& truth) {
  return eval::rating_error(eval::differences(to_vector(prediction), truth.value));
}

CompletionResult fit_completion(const Dataset& ds, const graph::SparseMatrix& at1,
                                const graph::SparseMatrix& at2, const CompletionOptions& opts,
                                const at::Device& device,
                                const std::function<void(const std::string&)>& log) {
  if (ds.validation.empty())
    throw ConfigError("train --model sylvester: '" + ds.name +
                      "' has no validation ratings to choose a on; set data.val_fraction > 0");
  if (ds.train.empty()) throw DataError(ds.source, 0, "no training ratings to build the prior H from");
  if (opts.alphas.empty() || opts.shrinkage.empty()) throw ConfigError("sylvester: no candidate a or lambda");
  const double t0 = detail::now_seconds();
  const double lo = ds.rating_min, hi = ds.rating_max;
  CompletionResult res;
  res.mean = mean_of(ds.train);

  // Eigenbases are shared by every a and prior: decompose once when solving exactly.
  EigenBasis e1, e2;
  if (opts.solver == "exact") {
    e1 = eigen_basis(at1, device);
    e2 = eigen_basis(at2, device);
  }
  auto solve_prior = [&](const at::Tensor& h, double a, const std::string& prior) {
    SolverOptions so;
    so.alpha = a;
    so.tol = opts.tol;
    so.max_iter = opts.max_iter;
    SolverResult r =
        opts.solver == "exact" ? solve_exact(e1, e2, at1, at2, h, so) : solve(opts.solver, at1, at2, h, so);
    res.solves.push_back(
        {a, prior, r.iterations, r.operator_applications, r.relative_residual, r.seconds, r.converged});
    return r.x;
  };

  const auto [hr, hm] = prior_matrices(ds.users.count, ds.items.count, {&ds.train}, res.mean, device);
  const at::Tensor mean_val = at::full({static_cast<int64_t>(ds.validation.size())}, res.mean, hr.options());
  const at::Tensor mean_test = at::full({static_cast<int64_t>(ds.test.size())}, res.mean, hr.options());
  res.mean_val_error = rating_error(mean_val.clamp(lo, hi), ds.validation);
  res.mean_test_error = rating_error(mean_test.clamp(lo, hi), ds.test);

  double best = std::numeric_limits<double>::infinity();
  at::Tensor best_val, best_test, best_xr, best_xm;
  for (const double a : opts.alphas) {
    const at::Tensor xr = solve_prior(hr, a, "ratings");
    const at::Tensor xm = solve_prior(hm, a, "mask");
    for (const double lambda : opts.shrinkage) {
      CandidateScore c{a, lambda, 0.0, 0.0};
      const at::Tensor val = predict_entries(xr, xm, ds.validation, res.mean, a, lambda, lo, hi);
      const at::Tensor test = predict_entries(xr, xm, ds.test, res.mean, a, lambda, lo, hi);
      c.val_error = rating_error(val, ds.validation);
      c.test_error = rating_error(test, ds.test);
      res.table.push_back(c);
      if (c.val_error < best) {
        best = c.val_error;
        res.alpha = a;
        res.shrinkage = lambda;
        res.val_error = c.val_error;
        res.test_error_train_only = c.test_error;
        best_val = val;
        best_test = test;
        best_xr = xr;
        best_xm = xm;
      }
    }
    // The literal reading: X itself, centred, as the prediction (Xm not used).
    auto literal = [&](const RatingList& l) {
      const at::Tensor u = index_tensor(l.user, device), i = index_tensor(l.item, device);
      return rating_error((xr.index({u, i}) + res.mean).clamp(lo, hi), l);
    };
    res.centred_table.push_back({a, 0.0, literal(ds.validation), literal(ds.test)});
    if (log) {
      double a_best = std::numeric_limits<double>::infinity(), a_lambda = 0.0;
      for (const auto& c : res.table)
        if (c.alpha == a && c.val_error < a_best) a_best = c.val_error, a_lambda = c.shrinkage;
      std::ostringstream msg;
      msg.precision(4);
      msg << std::fixed << "a = " << a << "  val " << rating_label() << " " << a_best << " (lambda "
          << a_lambda << ")  centred " << res.centred_table.back().val_error << "  ["
          << res.solves[res.solves.size() - 2].iterations << " + " << res.solves.back().iterations
          << " iterations, " << res.solves[res.solves.size() - 2].seconds + res.solves.back().seconds
          << " s]";
      log(msg.str());
    }
  }

  res.test_error = res.test_error_train_only;
  if (opts.refit && !ds.test.empty()) {
    // Final fit: the chosen (a, lambda) with every rating outside the test split in H.
    RatingList pooled = ds.train;
    for (size_t k = 0; k < ds.validation.size(); ++k)
      pooled.add(ds.validation.user[k], ds.validation.item[k], ds.validation.value[k]);
    const double mu = mean_of(pooled);
    const auto [hr_all, hm_all] = prior_matrices(ds.users.count, ds.items.count, {&pooled}, mu, device);
    const at::Tensor xr = solve_prior(hr_all, res.alpha, "ratings+val");
    const at::Tensor xm = solve_prior(hm_all, res.alpha, "mask+val");
    best_test = predict_entries(xr, xm, ds.test, mu, res.alpha, res.shrinkage, lo, hi);
    res.test_error = rating_error(best_test, ds.test);
    res.scores = predict_all(xr, xm, mu, res.alpha, res.shrinkage).to(at::kCPU, at::kFloat);
  } else if (best_xr.defined()) {
    res.scores = predict_all(best_xr, best_xm, res.mean, res.alpha, res.shrinkage).to(at::kCPU, at::kFloat);
  }
  res.val_prediction = to_vector(best_val);
  res.test_prediction = to_vector(best_test);
  res.seconds = detail::now_seconds() - t0;
  return res;
}

}  // namespace symgnn::models::sylvester
