// `symgnn data info <source>`: what a dataset holds once loaded and its graphs resolved.
#include <iostream>

#include "cli/commands.h"
#include "symgnn/dataset.h"
#include "symgnn/graph.h"
#include "train/dataset_stats.h"
#include "util/json_text.h"

namespace symgnn::cli {

void add_data_command(CLI::App& app) {
  auto* data = app.add_subcommand("data", "inspect datasets");
  data->require_subcommand(1);
  auto* info = data->add_subcommand(
      "info",
      "load a dataset and print users, items, ratings, rating levels, split sizes, graphs and features\n"
      "  symgnn data info synthetic\n"
      "  symgnn data info ../shared/data/ml-100k --split u2 --json\n"
      "  symgnn data info ../shared/data/monti/douban.mat\n"
      "  symgnn data info ratings.csv --set data.user_graph_file=friends.csv");
  auto opts = std::make_shared<CommonOptions>();
  auto json = std::make_shared<bool>(false);
  info->add_option("source", opts->data,
                   "'synthetic', a MovieLens-100K/1M directory, a Monti .mat file or a ratings CSV/TSV")
      ->required();
  info->add_flag("--json", *json, "print the statistics as JSON");
  add_common_options(info, *opts, /*with_data_flag=*/false);
  info->callback([=] {
    RunConfig cfg = make_config(*opts);
    apply_runtime(cfg);
    Dataset ds = load_dataset(cfg.data);
    graph::resolve_graphs(ds, cfg.graph);
    if (*json)
      std::cout << json_text(train::dataset_stats(ds), 2) << "\n";
    else
      std::cout << train::dataset_stats_text(ds);
  });
}

}  // namespace symgnn::cli
