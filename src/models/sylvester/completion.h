// symgnn: the "Sylv." completion baseline (paper Tables 2-3): Eq. 1 as a rating predictor.
//
// Eq. 1 (sylvester.h) maps a prior H (n1 x n2) to X = (1-a) sum_k a^k At1^k H At2^k. Read
// literally with H = the observed ratings (0 elsewhere), X is a rating predictor only up to
// an unknown, entry-dependent scale: an unobserved entry gets (1-a) a^k times the ratings k
// hops away, so X sinks towards 0 wherever ratings are sparse. We therefore solve Eq. 1
// twice with the same a and graphs:
//   Hr = r - mu on observed (i, j), 0 elsewhere   (mu: mean training rating)
//   Hm = 1 on observed (i, j), 0 elsewhere        (the observation mask)
//   Xr = Sylv(Hr),  Xm = Sylv(Hm)
//   prediction(i, j) = clip(mu + Xr_ij / (Xm_ij + lambda (1-a)), rating_min, rating_max)
// Xr_ij / Xm_ij is a weighted mean of the centred ratings, the weights (1-a) a^k
// (At1^k)_iu (At2^k)_jv >= 0 being exactly those Eq. 1 gives; lambda counts pseudo-ratings
// at the mean (an observed entry itself weighs (1-a)), shrinking entries with little
// graph support towards mu; unreachable entries (Xm = 0) get mu. Both a (cfg.alphas) and
// lambda are chosen on the validation split; the literal reading, prediction = mu + Xr
// ("centred"), is reported beside it for every a.
//
// Final model: the chosen (a, lambda) refitted with H built from training + validation
// ratings, then scored once on the test split (as GC-MC and IGMC retrain on all training
// pairs); the test RMSE of the train-only fit is reported too.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "models/sylvester/sylvester.h"
#include "symgnn/dataset.h"

namespace symgnn::models::sylvester {

struct CompletionOptions {
  std::string solver = "cg";
  double tol = 1e-8;
  int64_t max_iter = 10000;
  std::vector<double> alphas = {0.1, 0.3, 0.5, 0.7, 0.8, 0.9, 0.95, 0.99};
  std::vector<double> shrinkage = {0.0, 0.01, 0.03, 0.1, 0.3, 1.0, 3.0};  // lambda candidates
  bool refit = true;  // refit on training + validation for the test score
};

/// One (a, lambda) candidate scored on validation and test (test: train-only fit; never
/// used for selection, recorded so the table shows how well validation picked). The
/// figures here are the rating figure of symgnn/metrics.h (rating_metric()).
struct CandidateScore {
  double alpha = 0.0;
  double shrinkage = 0.0;
  double val_error = 0.0;
  double test_error = 0.0;
};

/// Statistics of one solve (X itself dropped).
struct SolveStats {
  double alpha = 0.0;
  std::string prior;  // "ratings" (Hr) or "mask" (Hm), with "+val" for the refit
  int64_t iterations = 0;
  int64_t operator_applications = 0;
  double relative_residual = 0.0;
  double seconds = 0.0;
  bool converged = false;
};

struct CompletionResult {
  double alpha = 0.0;      // chosen a
  double shrinkage = 0.0;  // chosen lambda
  double mean = 0.0;       // mu of the ratings H was built from (training)
  // The rating figure (symgnn/metrics.h, rating_metric()) on validation and test:
  double val_error = 0.0;
  double test_error = 0.0;             // refit on train + validation (or train only if !refit)
  double test_error_train_only = 0.0;  // the chosen (a, lambda) fitted on training only
  double mean_val_error = 0.0;         // predicting mu everywhere, for scale
  double mean_test_error = 0.0;
  std::vector<CandidateScore> table;          // every (a, lambda), normalised predictor
  std::vector<CandidateScore> centred_table;  // literal mu + Xr, one row per a (shrinkage 0)
  std::vector<SolveStats> solves;
  double seconds = 0.0;
  // Predictions at the chosen (a, lambda), one per rating in split order, for the prediction
  // files (data/prediction_file.h): validation from the train-only fit (no model that saw a
  // validation rating predicts it), test from the final fit that test_error scores.
  std::vector<double> val_prediction;
  std::vector<double> test_prediction;
  // The final fit's predictions of every (user, item) before clipping, n1 x n2 on the CPU:
  // what completion_model.h saves for predict / recommend / evaluate.
  at::Tensor scores;
};

/// ConfigError, with the size, when the baseline's dense n1 x n2 matrices cannot fit in this
/// machine's memory (on the CPU; the CUDA allocator's own error names the size).
void check_dense_fits(int64_t n1, int64_t n2, const at::Device& device);

/// "0.1,0.5,0.9" -> {0.1, 0.5, 0.9}; ConfigError (naming `key`) on bad numbers or a outside [0, 1).
std::vector<double> parse_alphas(const std::string& text, const std::string& key = "sylvester.alphas");

/// Hr (centred ratings) and Hm (mask), n1 x n2 float64 on `device`, from `ratings`
/// (each list's entries; later lists never repeat an earlier (i, j), as loaders promise).
std::pair<at::Tensor, at::Tensor> prior_matrices(int64_t n1, int64_t n2,
                                                 const std::vector<const RatingList*>& ratings, double mean,
                                                 const at::Device& device);

/// The predictor above at the given entries.
at::Tensor predict_entries(const at::Tensor& xr, const at::Tensor& xm, const RatingList& at_entries,
                           double mean, double alpha, double shrinkage, double rating_min, double rating_max);

/// The rating figure (eval/errors.h) of predictions against a list's ratings (NaN when the
/// list is empty).
double rating_error(const at::Tensor& prediction, const RatingList& truth);

/// Runs the baseline on ds with normalised adjacencies at1 (users), at2 (items), on
/// `device`. ConfigError when ds has no validation ratings. `log` gets one line per a.
CompletionResult fit_completion(const Dataset& ds, const graph::SparseMatrix& at1,
                                const graph::SparseMatrix& at2, const CompletionOptions& opts,
                                const at::Device& device,
                                const std::function<void(const std::string&)>& log = {});

}  // namespace symgnn::models::sylvester
