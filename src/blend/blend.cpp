// Fitting, applying and scoring the blend (see blend.h).
#include "blend/blend.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "symgnn/error.h"

namespace symgnn::blend {

Weights fit_weights(const Matrix& x, const std::vector<double>& y, bool intercept) {
  Weights out;
  if (!intercept) {
    out.w = nnls(x, y);
    return out;
  }
  const double n = static_cast<double>(x.rows);
  std::vector<double> mean_x(x.cols, 0.0);
  double mean_y = 0.0;
  for (size_t r = 0; r < x.rows; ++r) {
    for (size_t j = 0; j < x.cols; ++j) mean_x[j] += x(r, j) / n;
    mean_y += y[r] / n;
  }
  Matrix xc = x;
  std::vector<double> yc = y;
  for (size_t r = 0; r < x.rows; ++r) {
    for (size_t j = 0; j < x.cols; ++j) xc(r, j) -= mean_x[j];
    yc[r] -= mean_y;
  }
  out.w = nnls(xc, yc);
  out.intercept = mean_y;
  for (size_t j = 0; j < x.cols; ++j) out.intercept -= mean_x[j] * out.w[j];
  return out;
}

std::vector<double> apply_weights(const Matrix& x, const Weights& weights, double lo, double hi) {
  std::vector<double> p(x.rows);
  for (size_t r = 0; r < x.rows; ++r) {
    double v = weights.intercept;
    for (size_t j = 0; j < x.cols; ++j) v += x(r, j) * weights.w[j];
    p[r] = std::clamp(v, lo, hi);
  }
  return p;
}

double rmse(const std::vector<double>& prediction, const std::vector<double>& truth) {
  if (truth.empty()) return std::numeric_limits<double>::quiet_NaN();
  double se = 0.0;
  for (size_t r = 0; r < truth.size(); ++r) se += (prediction[r] - truth[r]) * (prediction[r] - truth[r]);
  return std::sqrt(se / static_cast<double>(truth.size()));
}

namespace {

std::vector<double> column(const Matrix& x, size_t j) {
  std::vector<double> c(x.rows);
  for (size_t r = 0; r < x.rows; ++r) c[r] = x(r, j);
  return c;
}

// NaN is not JSON: an empty test split gives null.
nlohmann::json number(double v) {
  return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr);
}

}  // namespace

BlendResult blend_models(const std::vector<ModelPredictions>& models, bool intercept) {
  if (models.size() < 2)
    throw UsageError("blend: give at least 2 model directories (got " + std::to_string(models.size()) + ")");
  BlendResult res;
  res.intercept = intercept;
  res.rating_min = models[0].rating_min;
  res.rating_max = models[0].rating_max;
  std::vector<const std::vector<data::PredictionRow>*> val, test;
  std::vector<std::string> val_names, test_names;
  for (const ModelPredictions& m : models) {
    if (m.rating_min != res.rating_min || m.rating_max != res.rating_max)
      throw DataError(m.dir + "/metrics.json", 0,
                      "rating range differs from that of " + models[0].dir + "/metrics.json");
    val.push_back(&m.val);
    test.push_back(&m.test);
    val_names.push_back(m.val_file);
    test_names.push_back(m.test_file);
  }
  res.val = align_split(val, val_names);
  res.test = align_split(test, test_names);
  if (res.val.truth.empty())
    throw DataError(models[0].val_file, 0, "no validation ratings to fit the blend's weights on");

  // The weights see the validation split only; the test split is scored afterwards.
  res.weights = fit_weights(res.val.x, res.val.truth, intercept);
  res.val_prediction = apply_weights(res.val.x, res.weights, res.rating_min, res.rating_max);
  res.test_prediction = apply_weights(res.test.x, res.weights, res.rating_min, res.rating_max);
  res.val_rmse = rmse(res.val_prediction, res.val.truth);
  res.test_rmse = rmse(res.test_prediction, res.test.truth);
  for (size_t m = 0; m < models.size(); ++m) {
    res.models.push_back({models[m].dir, rmse(column(res.val.x, m), res.val.truth),
                          rmse(column(res.test.x, m), res.test.truth), res.weights.w[m]});
    if (res.models[m].val_rmse < res.models[res.best_single].val_rmse) res.best_single = m;
  }
  return res;
}

nlohmann::json blend_json(const BlendResult& r) {
  nlohmann::json j;
  j["model"] = "blend";
  j["fitted_on"] = "validation split: non-negative least squares (src/blend/nnls.h)";
  j["intercept"] = r.intercept ? nlohmann::json(r.weights.intercept) : nlohmann::json(nullptr);
  j["val_rmse"] = number(r.val_rmse);
  j["val_rmse_in_sample"] = true;
  j["test_rmse"] = number(r.test_rmse);
  j["note"] =
      "the blend's validation predictions and val_rmse are in-sample (the weights were fitted on "
      "them); only test_rmse is out of sample";
  j["rating_min"] = r.rating_min;
  j["rating_max"] = r.rating_max;
  j["validation_ratings"] = r.val.truth.size();
  j["test_ratings"] = r.test.truth.size();
  j["best_single"] = r.models[r.best_single].dir;
  for (const ModelScore& m : r.models)
    j["models"].push_back({{"dir", m.dir},
                           {"weight", m.weight},
                           {"val_rmse", number(m.val_rmse)},
                           {"test_rmse", number(m.test_rmse)}});
  return j;
}

}  // namespace symgnn::blend
