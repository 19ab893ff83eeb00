// `symgnn train --model sylvester`: load, resolve graphs, run the baseline, report.
#include "cli/train_sylvester.h"

#include <ATen/ATen.h>
#include <torch/cuda.h>

#include <cmath>
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/commands.h"
#include "data/prediction_file.h"
#include "models/sylvester/completion.h"
#include "models/sylvester/completion_model.h"
#include "symgnn/dataset.h"
#include "symgnn/error.h"
#include "symgnn/recommend.h"
#include "train/checkpoint.h"
#include "train/dataset_stats.h"
#include "util/atomic_file.h"
#include "util/json_text.h"

namespace symgnn::cli {

namespace syl = models::sylvester;

at::Device sylvester_device(const RunConfig& cfg) {
  const std::string& name = cfg.train.device;
  if (name != "cpu" && name.rfind("cuda", 0) != 0)
    throw ConfigError("train.device = '" + name + "': must be cpu, cuda or cuda:N");
  try {
    const at::Device device(name);
    if (device.is_cuda() && !torch::cuda::is_available())
      throw ConfigError("train.device = '" + name + "': no CUDA device is available");
    return device;
  } catch (const c10::Error&) {
    throw ConfigError("train.device = '" + name + "': must be cpu, cuda or cuda:N");
  }
}

std::pair<graph::SparseMatrix, graph::SparseMatrix> normalized_graphs(const Dataset& ds,
                                                                      const at::Device& device) {
  return {graph::normalized_adjacency(ds.users).to(device), graph::normalized_adjacency(ds.items).to(device)};
}

int train_sylvester(const RunConfig& cfg_in, const std::string& out_dir, const std::string& metrics_out,
                    bool quiet) {
  RunConfig cfg = cfg_in;
  const at::Device device = sylvester_device(cfg);
  syl::CompletionOptions opts;
  opts.solver = cfg.sylvester.solver;
  opts.tol = cfg.sylvester.tol;
  opts.max_iter = cfg.sylvester.max_iter;
  opts.alphas = syl::parse_alphas(cfg.sylvester.alphas);

  Dataset ds = load_dataset(cfg.data);
  graph::resolve_graphs(ds, cfg.graph);
  const auto [at1, at2] = normalized_graphs(ds, device);
  auto log = [&](const std::string& line) {
    if (!quiet) std::cout << "  " << line << std::endl;
  };
  if (!quiet)
    std::cout << "Sylv. baseline on " << ds.name << " (" << ds.users.count << " x " << ds.items.count
              << ", user graph " << to_string(ds.users.graph_origin) << ", item graph "
              << to_string(ds.items.graph_origin) << ", solver " << opts.solver << ", tol " << opts.tol
              << ")\n";
  const syl::CompletionResult r = syl::fit_completion(ds, at1, at2, opts, device, log);

  if (!quiet) {
    std::cout << std::fixed << std::setprecision(4) << "chosen a = " << r.alpha
              << ", lambda = " << r.shrinkage << "\nval RMSE  " << r.val_rmse
              << "   (mean rating alone: " << r.mean_val_rmse << ")"
              << "\ntest RMSE " << r.test_rmse
              << "   (refit on train + validation; train only: " << r.test_rmse_train_only
              << "; mean rating alone: " << r.mean_test_rmse << ")\n"
              << std::setprecision(1) << "time " << r.seconds << " s\n";
    std::cout.unsetf(std::ios::floatfield);
  }

  if (!out_dir.empty() || !metrics_out.empty()) {
    nlohmann::json j;
    j["model"] = "sylvester";
    j["test_rmse"] = r.test_rmse;
    j["val_rmse"] = r.val_rmse;
    j["alpha"] = r.alpha;
    j["shrinkage"] = r.shrinkage;
    j["test_rmse_train_only"] = r.test_rmse_train_only;
    j["mean_rating"] = r.mean;
    j["mean_rating_rmse"] = {{"val", r.mean_val_rmse}, {"test", r.mean_test_rmse}};
    j["predictor"] = "mu + Xr / (Xm + lambda (1-a)), clipped (models/sylvester/completion.h)";
    for (const auto& c : r.table)
      j["candidates"].push_back({{"alpha", c.alpha},
                                 {"shrinkage", c.shrinkage},
                                 {"val_rmse", c.val_rmse},
                                 {"test_rmse", c.test_rmse}});
    for (const auto& c : r.centred_table)
      j["centred_literal"].push_back(
          {{"alpha", c.alpha}, {"val_rmse", c.val_rmse}, {"test_rmse", c.test_rmse}});
    for (const auto& s : r.solves)
      j["solves"].push_back({{"alpha", s.alpha},
                             {"prior", s.prior},
                             {"iterations", s.iterations},
                             {"operator_applications", s.operator_applications},
                             {"relative_residual", s.relative_residual},
                             {"seconds", s.seconds},
                             {"converged", s.converged}});
    j["seconds"] = r.seconds;
    // The keys every model's metrics.json has (train/metrics.cpp): one deterministic "run".
    j["test_rmse_std"] = 0.0;
    j["val_rmse_std"] = 0.0;
    j["train_seconds"] = r.seconds;
    j["runs"] = nlohmann::json::array(
        {{{"run", 0}, {"test_rmse", r.test_rmse}, {"val_rmse", r.val_rmse}, {"train_seconds", r.seconds}}});
    if (!ds.test.empty()) {
      double ae = 0;
      for (size_t k = 0; k < ds.test.size(); ++k) ae += std::abs(r.test_prediction[k] - ds.test.value[k]);
      j["test_mae"] = ae / static_cast<double>(ds.test.size());
      j["test_mae_std"] = 0.0;
    }
    j["device"] = device.str();
    j["dataset"] = train::dataset_stats(ds);
    j["config"] = to_text(cfg);
    if (!out_dir.empty()) {
      // model.pt: the final fit's scores of every pair, for predict / recommend / evaluate.
      models::sylvester::CompletionModel model(r.scores);
      train::save_model(model, to_text(cfg), out_dir + "/model.pt");
      if (!ds.test.empty()) {
        EvaluateOptions eo;
        eo.ks = {10};
        const TrainedModel m = TrainedModel::load(out_dir);
        const Evaluation ev = evaluate(m, eo);
        j["evaluation"] = evaluation_json(ev);
        j["evaluation"]["of"] = "the saved model, test ratings";
        j["ranking_at_10"] = ranking_summary({ev}, evaluate_popularity(m, eo));
      }
      write_text_atomic(out_dir + "/metrics.json", json_text(j, 2) + "\n");
      data::write_predictions_csv(out_dir + "/predictions/val.csv", ds, ds.validation, r.val_prediction);
      data::write_predictions_csv(out_dir + "/predictions/test.csv", ds, ds.test, r.test_prediction);
      if (!quiet)
        std::cout << "wrote " << out_dir << "/{model.pt,metrics.json,config.txt,predictions/*.csv}\n";
    }
    if (!metrics_out.empty()) {
      write_text_atomic(metrics_out, json_text(j, 2) + "\n");
      if (!quiet) std::cout << "metrics written to " << metrics_out << "\n";
    }
  }
  return 0;
}

}  // namespace symgnn::cli
