// `symgnn refresh`: a new model directory with ratings given after the fit folded in
// (symgnn/model_dir.h, docs/recommend.md "Refreshing a model directory").
#include <chrono>
#include <iomanip>
#include <iostream>

#include "cli/commands.h"
#include "runtime/runtime.h"
#include "symgnn/error.h"
#include "symgnn/model_dir.h"
#include "symgnn/trained_model.h"
#include "util/memory_check.h"

namespace symgnn::cli {
namespace {

struct RefreshCliOptions {
  std::string model_dir;
  std::string out;
  int64_t threads = -1;
  std::string device = "cpu";
  NewNodeFiles new_nodes;
};

int run_refresh(const RefreshCliOptions& o) {
  runtime::set_compute_threads(o.threads);
  const auto t0 = std::chrono::steady_clock::now();
  const RefreshSummary s = refresh_model_dir(o.model_dir, o.new_nodes, o.out, o.device);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::cerr << "refresh: " << o.out << " holds " << o.model_dir << "'s model" << new_nodes_summary(s.added)
            << " (" << s.users << " users x " << s.items << " items; " << s.refreshes
            << " refresh(es) folded in, applied on every load), " << std::fixed << std::setprecision(1)
            << secs << " s\n";
  return 0;
}

}  // namespace

void add_refresh_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "refresh",
      "a new model directory with ratings given after the fit folded in (docs/recommend.md)\n"
      "  symgnn refresh --model runs/ml100k --ratings todays_ratings.csv --out runs/ml100k-today\n"
      "  symgnn recommend --model runs/ml100k-today --user 42   # = recommend --model runs/ml100k\n"
      "                                                         #   --user 42 --new-ratings "
      "todays_ratings.csv\n"
      "--ratings holds 'user,item,rating' lines (the --new-ratings format of recommend): fresh ratings\n"
      "of known users and the ratings of new users (or items). No weight is trained: the model computes\n"
      "the representations from the ratings, as --new-ratings does. --out is a new, self-contained model\n"
      "directory (the model as fitted, its data, and refresh/<k>/ with each refresh's files, checksummed,\n"
      "applied in turn on every load), written beside its place and renamed into it when complete;\n"
      "a refreshed directory refreshes again. --out must not exist or be an empty directory.");
  auto o = std::make_shared<RefreshCliOptions>();
  cmd->add_option("--model", o->model_dir, "directory written by `symgnn train --out` or `symgnn refresh`")
      ->required();
  cmd->add_option("--ratings", o->new_nodes.ratings,
                  "'user,item,rating' file of the ratings to fold in (recommend's --new-ratings format)")
      ->required();
  cmd->add_option("--out", o->out, "the new model directory (must not exist, or be empty)")->required();
  cmd->add_option(
      "--new-user-graph", o->new_nodes.user_graph_file,
      "edges 'a,b[,w]' of the new users (as recommend's), for a model whose user graph came from a file");
  cmd->add_option("--new-item-graph", o->new_nodes.item_graph_file, "the same for new items");
  cmd->add_option("--new-user-features", o->new_nodes.user_features_file,
                  "'id,f1,...' rows of the new users (as recommend's; zeros without)");
  cmd->add_option("--new-item-features", o->new_nodes.item_features_file, "the same for new items");
  cmd->add_option("--threads", o->threads, "threads (default: one per core)")
      ->check(config_value_check("train.threads"));
  cmd->add_option("--device", o->device,
                  "cpu (default), cuda or cuda:N: where the model is loaded to check it");
  cmd->callback([o] { with_memory_context("refreshing", [&] { run_refresh(*o); }); });
}

}  // namespace symgnn::cli
