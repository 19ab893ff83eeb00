// `symgnn data info <source>`: what a dataset holds once loaded and its graphs resolved.
// `symgnn data generate`: a large synthetic set in the CSV loader's files (data/generate.h).
#include <cstdio>
#include <iostream>

#include "cli/commands.h"
#include "data/generate.h"
#include "symgnn/dataset.h"
#include "symgnn/error.h"
#include "symgnn/graph.h"
#include "train/dataset_stats.h"
#include "util/json_text.h"

namespace symgnn::cli {

namespace {

void add_generate_command(CLI::App* data) {
  auto* gen = data->add_subcommand(
      "generate",
      "write a large synthetic rating set (streamed: any size fits in memory) as the files the CSV\n"
      "loader reads: DIR/ratings.csv (training, 'user,item,rating' with a header), DIR/test.csv\n"
      "(exactly round(F x R) held-out ratings), DIR/user_graph.csv and DIR/item_graph.csv\n"
      "(edge lists 'a,b') and DIR/data.conf (absolute paths) for `symgnn train --config`.\n"
      "Model: power-law user degrees and item popularity (Zipf with exponents --user-exponent,\n"
      "--item-exponent), ratings = mean + user and item biases + low-rank community factors +\n"
      "noise, rounded to 1..5 stars (mean about 3.5); each node is linked to --graph-k nodes of its\n"
      "latent community. Exactly R distinct (user, item) pairs in all; every user and item has a\n"
      "training rating. Same arguments and seed: byte-identical files. Files are written\n"
      "atomically; progress goes to stderr. docs/scale.md has timings.\n"
      "  symgnn data generate --preset ml10m-like --out /tmp/ml10m\n"
      "  symgnn train --config /tmp/ml10m/data.conf\n"
      "  symgnn data generate --users 2000 --items 500 --ratings 50000 --seed 7 --out /tmp/small");
  auto spec = std::make_shared<data::GenerateSpec>();
  auto preset = std::make_shared<std::string>();
  spec->users = spec->items = spec->ratings = -1;  // -1: from the preset, else required
  gen->add_option("--preset", *preset,
                  "sizes of a known set: ml10m-like (69,878 users x 10,677 items, 10 M ratings) or "
                  "netflix-like (480,189 x 17,770, 100 M); --users/--items/--ratings override them");
  gen->add_option("--users", spec->users, "number of users N");
  gen->add_option("--items", spec->items, "number of items M");
  gen->add_option("--ratings", spec->ratings, "number of ratings R, training and test together (R <= N x M)");
  gen->add_option("--out", spec->out_dir, "folder to write (created if missing)")->required();
  gen->add_option("--seed", spec->seed, "random seed (default 1)");
  gen->add_option("--test-fraction", spec->test_fraction,
                  "share F of the ratings held out in test.csv (default 0.1)");
  gen->add_option("--graph-k", spec->graph_k,
                  "links per node in the graph files; 0 writes no graphs (default 10)");
  gen->add_option("--user-exponent", spec->user_exponent, "Zipf exponent of the user degrees (default 1)");
  gen->add_option("--item-exponent", spec->item_exponent, "Zipf exponent of the item popularity (default 1)");
  gen->add_flag("--overwrite", spec->overwrite, "replace the set already in --out");
  gen->callback([=] {
    data::GenerateSpec s = *spec;
    data::GenerateSpec sizes;
    if (!preset->empty() && !data::generate_preset(*preset, sizes))
      throw UsageError("--preset " + *preset + ": must be one of ml10m-like|netflix-like");
    for (auto [value, preset_value, option] :
         {std::tuple<int64_t*, int64_t, const char*>{&s.users, sizes.users, "--users"},
          {&s.items, sizes.items, "--items"},
          {&s.ratings, sizes.ratings, "--ratings"}})
      if (*value == -1) {
        if (preset->empty()) throw UsageError(std::string(option) + " is required (or give --preset)");
        *value = preset_value;
      }
    const data::GenerateSummary r =
        data::generate_dataset(s, [](const std::string& line) { std::cerr << line << std::endl; });
    char buf[512];
    std::snprintf(buf, sizeof buf,
                  "generated %lld training + %lld test ratings (mean %.3f, max user degree %lld, max item "
                  "degree %lld), %lld + %lld graph lines, %.1f MB in %.1f s: %s/data.conf",
                  static_cast<long long>(r.train), static_cast<long long>(r.test), r.mean_rating,
                  static_cast<long long>(r.max_user_degree), static_cast<long long>(r.max_item_degree),
                  static_cast<long long>(r.user_edges), static_cast<long long>(r.item_edges),
                  static_cast<double>(r.bytes) / 1e6, r.seconds, s.out_dir.c_str());
    std::cerr << buf << "\n";
  });
}

}  // namespace

void add_data_command(CLI::App& app) {
  auto* data = app.add_subcommand("data", "inspect datasets, generate large synthetic ones");
  data->require_subcommand(1);
  add_generate_command(data);
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
    Dataset ds = load_dataset(cfg.data, /*need_test=*/false);  // a set is described as it is, split or not
    for (const std::string& note : graph::resolve_graphs(ds, cfg.graph)) std::cerr << note << "\n";
    if (*json)
      std::cout << json_text(train::dataset_stats(ds), 2) << "\n";
    else
      std::cout << train::dataset_stats_text(ds);
  });
}

}  // namespace symgnn::cli
