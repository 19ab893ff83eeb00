// Fitting, applying and scoring the blend (see blend.h).
#include "blend/blend.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "eval/measure.h"
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

/// Every prediction row on validation and test; NaN (null in JSON) for an empty split.
eval::Figures figures_of(const std::vector<double>& val, const AlignedSplit& v,
                         const std::vector<double>& test, const AlignedSplit& t) {
  eval::Figures f;
  for (const MetricRow& row : kMetrics)
    if (row.needs == MetricNeeds::predictions)
      for (const char* split : {"val", "test"}) f[metric_figure(split, row)] = std::nan("");
  eval::add_errors(f, "val", eval::differences(val, v.truth));
  eval::add_errors(f, "test", eval::differences(test, t.truth));
  return f;
}

void put_figures(nlohmann::json& j, const eval::Figures& f) {
  for (const auto& [name, value] : f) j[name] = number(value);
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
  res.figures = figures_of(res.val_prediction, res.val, res.test_prediction, res.test);
  const std::string chooser = rating_figure("val");
  for (size_t m = 0; m < models.size(); ++m) {
    res.models.push_back({models[m].dir,
                          figures_of(column(res.val.x, m), res.val, column(res.test.x, m), res.test),
                          res.weights.w[m]});
    if (res.models[m].figures.at(chooser) < res.models[res.best_single].figures.at(chooser))
      res.best_single = m;
  }
  return res;
}

nlohmann::json blend_json(const BlendResult& r) {
  nlohmann::json j;
  j["model"] = "blend";
  j["fitted_on"] = "validation split: non-negative least squares (src/blend/nnls.h)";
  j["intercept"] = r.intercept ? nlohmann::json(r.weights.intercept) : nlohmann::json(nullptr);
  put_figures(j, r.figures);
  j[kValInSampleKey] = true;
  j["note"] =
      "the blend's validation predictions and figures (val_*) are in-sample (the weights were fitted on "
      "them); only the test figures are out of sample";
  j["rating_min"] = r.rating_min;
  j["rating_max"] = r.rating_max;
  j["validation_ratings"] = r.val.truth.size();
  j["test_ratings"] = r.test.truth.size();
  j["best_single"] = r.models[r.best_single].dir;
  for (const ModelScore& m : r.models) {
    nlohmann::json row = {{"dir", m.dir}, {"weight", m.weight}};
    put_figures(row, m.figures);
    j["models"].push_back(row);
  }
  return j;
}

}  // namespace symgnn::blend
