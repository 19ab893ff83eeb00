// `symgnn predict`: ratings for (user, item) pairs from a model saved by `symgnn train`.
#include <torch/torch.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <unordered_map>

#include "cli/commands.h"
#include "symgnn/dataset.h"
#include "symgnn/error.h"
#include "symgnn/graph.h"
#include "symgnn/model.h"
#include "train/checkpoint.h"
#include "util/atomic_file.h"
#include "util/strings.h"

namespace fs = std::filesystem;

namespace symgnn::cli {
namespace {

struct PredictOptions {
  std::string model_dir;
  std::string pairs;
  std::string out;
  std::string unknown = "error";
  int64_t threads = -1;
};

std::unordered_map<std::string, int64_t> index_of(const NodeSet& side) {
  std::unordered_map<std::string, int64_t> m;
  for (int64_t i = 0; i < side.count; ++i) m.emplace(side.id_of(i), i);
  return m;
}

int run_predict(const PredictOptions& o) {
  const std::string model_path = fs::is_directory(o.model_dir) ? o.model_dir + "/model.pt" : o.model_dir;
  RunConfig cfg;
  load_config_text(cfg, train::read_model_config(model_path), model_path);
  if (o.threads >= 0) cfg.train.threads = o.threads;
  cfg.train.device = "cpu";
  apply_runtime(cfg);

  // The model is rebuilt from its recorded config over the same data (graphs and the
  // training prior are inputs of the forward pass), then its weights are loaded.
  Dataset ds = load_dataset(cfg.data);
  graph::resolve_graphs(ds, cfg.graph);
  const models::ModelContext ctx = models::make_context(ds);
  auto model = models::make_model(cfg, ctx);
  // Several weight sets when the run averaged its last checkpoints (train.average_last).
  const auto members = train::load_model_members(*model, model_path, at::Device(at::kCPU));
  model->eval();

  const auto users = index_of(ds.users), items = index_of(ds.items);
  std::ifstream in(o.pairs);
  if (!in) throw DataError(o.pairs + ": cannot open");
  std::vector<std::string> uid, iid;
  std::vector<int64_t> ui, ii;
  std::string line;
  long lineno = 0;
  while (std::getline(in, line)) {
    ++lineno;
    line = trim(line);
    if (line.empty() || line[0] == '#') continue;
    const char sep = line.find('\t') != std::string::npos ? '\t' : ',';
    auto f = split(line, sep);
    if (f.size() < 2) throw DataError(o.pairs, lineno, "expected 'user,item', got '" + line + "'");
    const std::string u = trim(f[0]), i = trim(f[1]);
    if (lineno == 1 && users.count(u) == 0 && (u == "user" || u == "user_id" || u == "userId")) continue;
    auto uu = users.find(u), it = items.find(i);
    if ((uu == users.end() || it == items.end()) && o.unknown == "error")
      throw DataError(o.pairs, lineno,
                      std::string("unknown ") + (uu == users.end() ? "user '" + u : "item '" + i) +
                          "' (not in the training data; --unknown mean predicts the global mean instead)");
    uid.push_back(u);
    iid.push_back(i);
    ui.push_back(uu == users.end() ? -1 : uu->second);
    ii.push_back(it == items.end() ? -1 : it->second);
  }
  if (ui.empty()) throw DataError(o.pairs + ": no pairs to predict");

  auto u_t = torch::tensor(ui, torch::kInt64), i_t = torch::tensor(ii, torch::kInt64);
  auto known = (u_t >= 0).logical_and(i_t >= 0);
  at::Tensor pred;
  {
    torch::NoGradGuard no_grad;
    for (const auto& m : members) {
      train::set_module_state(*model, m);
      const at::Tensor p =
          model->forward(u_t.clamp_min(0), i_t.clamp_min(0)).clamp(ctx.rating_min, ctx.rating_max);
      pred = pred.defined() ? pred + p : p;
    }
    pred = pred / static_cast<double>(members.size());
  }
  pred = torch::where(known, pred, torch::full_like(pred, ctx.global_mean)).contiguous();
  const float* p = pred.data_ptr<float>();
  std::ostringstream os;
  os << "user,item,prediction\n";
  os.precision(6);
  for (size_t k = 0; k < uid.size(); ++k) os << uid[k] << "," << iid[k] << "," << p[k] << "\n";
  if (o.out.empty())
    std::cout << os.str();
  else
    write_text_atomic(o.out, os.str());
  return 0;
}

}  // namespace

void add_predict_command(CLI::App& app) {
  auto* cmd =
      app.add_subcommand("predict",
                         "predict ratings for (user, item) pairs with a trained model\n"
                         "  symgnn predict --model runs/ml100k --pairs pairs.csv --out predictions.csv\n"
                         "pairs: one 'user,item' per line (comma or tab, original ids, optional header);\n"
                         "output: 'user,item,prediction', clipped to the rating range.");
  auto o = std::make_shared<PredictOptions>();
  cmd->add_option("--model", o->model_dir, "directory written by `symgnn train --out` (or its model.pt)")
      ->required();
  cmd->add_option("--pairs", o->pairs, "file of 'user,item' pairs (original ids)")->required();
  cmd->add_option("--out", o->out, "output CSV (default: standard output)");
  cmd->add_option("--unknown", o->unknown, "ids not seen in training: error (default) or mean (global mean)")
      ->check(CLI::IsMember({"error", "mean"}));
  cmd->add_option("--threads", o->threads, "intra-op threads (default: one per core)");
  cmd->callback([o] { run_predict(*o); });
}

}  // namespace symgnn::cli
