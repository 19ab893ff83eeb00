// The Sylv. baseline's model kind: fit_completion (completion.h) in one call, its final
// scores kept as the model's state.
#include "models/sylvester/completion_model.h"

#include <ATen/ATen.h>

#include <sstream>

#include "models/sylvester/completion.h"
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
  log("Sylv. baseline on " + ds.name + " (" + std::to_string(ds.users.count) + " x " +
      std::to_string(ds.items.count) + ", user graph " + to_string(ds.users.graph_origin) + ", item graph " +
      to_string(ds.items.graph_origin) + ", solver " + opts.solver + ", tol " + tol.str() + ")");
  const CompletionResult r =
      fit_completion(ds, at1, at2, opts, device, [&](const std::string& l) { log("  " + l); });
  {
    at::NoGradGuard no_grad;
    scores_.copy_(r.scores.to(scores_.device(), at::kFloat));
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
