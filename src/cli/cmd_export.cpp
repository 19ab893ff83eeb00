// `symgnn export`: a model's factors, biases and representations as NumPy arrays, with the
// formula that scores from them (symgnn/export.h, docs/export.md).
#include <iostream>

#include "cli/commands.h"
#include "runtime/runtime.h"
#include "symgnn/error.h"
#include "symgnn/export.h"
#include "symgnn/trained_model.h"
#include "util/memory_check.h"
#include "util/output_lock.h"

namespace symgnn::cli {
namespace {

struct ExportCliOptions {
  std::string model_dir;
  std::string out;
  int64_t threads = -1;
};

int run_export(const ExportCliOptions& o) {
  check_output_dir(o.out, "--out");
  runtime::set_compute_threads(o.threads);
  const TrainedModel model = TrainedModel::load(o.model_dir);
  if (!model.data_note().empty()) std::cerr << model.data_note() << "\n";
  const ExportSummary s = export_model(model, o.out);
  std::cerr << "export: " << model.name()
            << (model.ranker().empty() ? "" : " (ranked by " + model.ranker() + ")") << ", " << model.users()
            << " users x " << model.items() << " items: "
            << (s.factored ? "scores = the exported factors (" + s.meaning + ")"
                           : "scores are no product of factors (score with symgnn); representations exported")
            << "; wrote " << o.out << "/{";
  for (size_t k = 0; k < s.files.size(); ++k) std::cerr << (k ? "," : "") << s.files[k];
  std::cerr << "}\n";
  return 0;
}

}  // namespace

void add_export_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "export",
      "a model's scores as NumPy arrays for a vector index or another scorer (docs/export.md)\n"
      "  symgnn export --model runs/ml100k --out runs/ml100k-export\n"
      "Writes users.txt and items.txt (ids in row order), the factors and biases with which\n"
      "score(u, j) = user_factors[u] . item_factors[j] + user_bias[u] + item_bias[j] + offset equals\n"
      "recommend's score of every item u has not rated (EASE: its matrix, item_weights.npy), the\n"
      "rated items (seen_*.npy), the node representations, scoring.txt and export.json.\n"
      "Kinds whose scores are no such product (the graph kinds' decoders) export representations only.");
  auto o = std::make_shared<ExportCliOptions>();
  cmd->add_option("--model", o->model_dir, "directory written by `symgnn train --out` (or its model.pt)")
      ->required();
  cmd->add_option("--out", o->out, "folder to write the arrays into (created)")->required();
  cmd->add_option("--threads", o->threads, "threads (default: one per core)")
      ->check(config_value_check("train.threads"));
  cmd->callback([o] { with_memory_context("exporting", [&] { run_export(*o); }); });
}

}  // namespace symgnn::cli
