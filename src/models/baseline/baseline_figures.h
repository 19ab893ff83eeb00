/// @file
/// The bias baseline's test figures on a dataset (the fit of baseline_model.h, without a
/// model directory): what train's summary and `symgnn evaluate` print beside a model's RMSE,
/// as the popularity baseline stands beside its ranking figures.
#pragma once

#include <string>

#include "eval/errors.h"
#include "symgnn/config.h"
#include "symgnn/dataset.h"

namespace symgnn::models {

struct ShrinkageChoice;  // bias_fit.h

struct BaselineFigures {
  eval::Figures test;  // "test_rmse", "test_mae": over ds.test, the final fit's (training + validation)
  double user_shrinkage = 0, item_shrinkage = 0;
  std::string chosen_by;  // ShrinkageChoice::how
};

/// The bias baseline of `ds` under `cfg` (the `baseline` kind's protocol). DataError when
/// ds has no test ratings. `cv`, where given, is the cross-validated shrinkage already made
/// on ds.train (choose_shrinkage's).
BaselineFigures baseline_figures(const Dataset& ds, const BaselineConfig& cfg,
                                 const ShrinkageChoice* cv = nullptr);

/// Whether a run of `cfg` shows the bias baseline beside its RMSE: every kind that predicts
/// ratings (whatever its training objective: a ranking-trained low-rank model still prints
/// an RMSE), except the baseline itself, and none on interactions (data.feedback = implicit
/// or counts, data/feedback.h: no rating is predicted). train's summary and `symgnn
/// evaluate` both ask here.
bool shows_bias_baseline(const RunConfig& cfg);

/// "bias baseline (mu + b_u + b_i, model = baseline): test RMSE 0.9441, MAE 0.7470"
std::string describe(const BaselineFigures& f);

}  // namespace symgnn::models
