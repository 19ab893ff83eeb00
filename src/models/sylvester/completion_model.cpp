// The Sylv. baseline's model kind: fit_completion (completion.h) in one call, its final
// scores kept as the model's state.
#include "models/sylvester/completion_model.h"

#include <ATen/ATen.h>

#include <sstream>

#include "models/sylvester/completion.h"
#include "models/sylvester/path_weights.h"
#include "symgnn/error.h"
#include "symgnn/graph.h"
#include "symgnn/metrics.h"
#include "util/text.h"

namespace symgnn::models {
namespace sylvester {

CompletionModel::CompletionModel(const SylvesterConfig& cfg, const ModelContext& ctx) : cfg_(cfg) {
  check_dense_fits(ctx.n1, ctx.n2, ctx.train_values.device());
  const auto opts = at::TensorOptions().dtype(at::kFloat).device(ctx.train_values.device());
  scores_ = register_buffer("scores", at::zeros({ctx.n1, ctx.n2}, opts));
  chosen_ = register_buffer("chosen", at::zeros({0}, opts.dtype(at::kDouble)));
}

at::Tensor CompletionModel::forward(const at::Tensor& users, const at::Tensor& items) {
  return scores_.index({users, items});
}

ClosedFormFit CompletionModel::fit(const Dataset& ds, const at::Device& device,
                                   const std::function<void(const std::string&)>& log) {
  CompletionOptions opts;
  opts.solver = cfg_.solver;
  opts.tol = cfg_.tol;
  opts.max_iter = cfg_.max_iter;
  opts.alphas = parse_alphas(cfg_.alphas);
  const graph::SparseMatrix at1 = graph::normalized_adjacency(ds.users).to(device);
  const graph::SparseMatrix at2 = graph::normalized_adjacency(ds.items).to(device);
  std::ostringstream tol;
  tol << opts.tol;
  if (log)
    log("Sylv. baseline on " + ds.name + " (" + std::to_string(ds.users.count) + " x " +
        std::to_string(ds.items.count) + ", user graph " + to_string(ds.users.graph_origin) +
        ", item graph " + to_string(ds.items.graph_origin) + ", solver " + opts.solver + ", tol " +
        tol.str() + ")");
  const CompletionResult r = fit_completion(ds, at1, at2, opts, device, [&](const std::string& l) {
    if (log) log("  " + l);
  });
  {
    at::NoGradGuard no_grad;
    scores_.copy_(r.scores.to(scores_.device(), at::kFloat));
    // What the final scores came from (fit_completion): H of training + validation and their
    // mean where it refitted, else training alone.
    const bool pooled = opts.refit && !ds.test.empty();
    double sum = 0;
    size_t count = 0;
    for (const RatingList* list : {&ds.train, &ds.validation}) {
      if (list == &ds.validation && !pooled) break;
      for (const float v : list->value) sum += v;
      count += list->size();
    }
    const double mu = count ? sum / static_cast<double>(count) : 0.0;
    chosen_.set_(at::tensor({r.alpha, r.shrinkage, mu, pooled ? 1.0 : 0.0}, chosen_.options()));
  }

  ClosedFormFit out;
  out.val_predictions = r.val_prediction;
  out.test_predictions = r.test_prediction;
  nlohmann::json& j = out.details;
  j["alpha"] = r.alpha;
  j["shrinkage"] = r.shrinkage;
  const std::string val = rating_figure("val"), test = rating_figure("test");
  j[test + "_train_only"] = r.test_error_train_only;
  j["mean_rating"] = r.mean;
  j["mean_rating_" + std::string(rating_metric().name)] = {{"val", r.mean_val_error},
                                                           {"test", r.mean_test_error}};
  j["predictor"] = "mu + Xr / (Xm + lambda (1-a)), clipped (models/sylvester/completion.h)";
  for (const auto& c : r.table)
    j["candidates"].push_back(
        {{"alpha", c.alpha}, {"shrinkage", c.shrinkage}, {val, c.val_error}, {test, c.test_error}});
  for (const auto& c : r.centred_table)
    j["centred_literal"].push_back({{"alpha", c.alpha}, {val, c.val_error}, {test, c.test_error}});
  for (const auto& s : r.solves)
    j["solves"].push_back({{"alpha", s.alpha},
                           {"prior", s.prior},
                           {"iterations", s.iterations},
                           {"operator_applications", s.operator_applications},
                           {"relative_residual", s.relative_residual},
                           {"seconds", s.seconds},
                           {"converged", s.converged}});
  j["seconds"] = r.seconds;
  j["device"] = device.str();
  out.summary = {"chosen a = " + fixed(r.alpha, 4) + ", lambda = " + fixed(r.shrinkage, 4),
                 "val " + rating_label() + "  " + fixed(r.val_error, 4) +
                     "   (mean rating alone: " + fixed(r.mean_val_error, 4) + ")",
                 "test " + rating_label() + " " + fixed(r.test_error, 4) +
                     "   (refit on train + validation; train only: " + fixed(r.test_error_train_only, 4) +
                     "; mean rating alone: " + fixed(r.mean_test_error, 4) + ")",
                 "time " + fixed(r.seconds, 1) + " s"};
  return out;
}

ScoreTerms CompletionModel::score_terms(int64_t user, int64_t item, const Dataset& ds) {
  if (chosen_.size(0) != 4)
    throw ConfigError(
        "sylvester: this model directory was written before the kind kept its chosen a and lambda, "
        "so its predictions cannot be split by rating; fit it again");
  const at::Tensor c = chosen_.to(at::kCPU);
  const double alpha = c[0].item<double>(), lambda = c[1].item<double>(), mu = c[2].item<double>();
  Dataset h_of = ds;  // only the ratings the final H held
  if (c[3].item<double>() == 0) h_of.validation = {};
  const RatingList h = distinct_ratings(h_of);
  const std::vector<double> g =
      path_weights(graph::normalized_adjacency(ds.users), graph::normalized_adjacency(ds.items), alpha, user,
                   item, h.user, h.item);
  double mass = 0;
  for (const double w : g) mass += w;
  const double den = mass + lambda * (1.0 - alpha);
  ScoreTerms out;
  out.method =
      "sylvester: r = mu + sum over the ratings (v, i) of G_vi (r_vi - mu) / (sum G + lambda (1-a)), "
      "G_vi = (1-a) sum_k a^k (At1^k)_uv (At2^k)_ji; a = " +
      std::to_string(alpha) + ", lambda = " + std::to_string(lambda);
  out.terms.push_back({-1, -1, mu, "the mean rating"});
  if (den > 1e-12)  // else no rating reaches the pair, and it keeps the mean (completion.cpp)
    for (size_t e = 0; e < g.size(); ++e)
      if (g[e] != 0) out.terms.push_back({h.user[e], h.item[e], g[e] * (h.value[e] - mu) / den, ""});
  at::NoGradGuard no_grad;
  out.score = scores_[user][item].item<double>();
  return out;
}

std::string CompletionModel::pin_chosen_setting(RunConfig&, const nlohmann::json&,
                                                const std::string& dir) const {
  throw ConfigError(dir +
                    ": model = sylvester cannot be blended for ranking (its validation fit is not rebuilt " +
                    "here); blend a rating model's directory trained by the trainer, or ease");
}

}  // namespace sylvester

/// The `sylvester` row of symgnn/model_kinds.h (models/registry.cpp).
std::shared_ptr<RatingModel> make_sylvester_model(const RunConfig& cfg, const ModelContext& ctx) {
  return std::make_shared<sylvester::CompletionModel>(cfg.sylvester, ctx);
}

}  // namespace symgnn::models
