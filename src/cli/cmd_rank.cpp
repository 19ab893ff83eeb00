// `symgnn rank`: a given candidate list of one user in the model's ranking order (the
// second stage of a two-stage recommender: another system retrieves, symgnn orders).
#include <iostream>
#include <limits>
#include <sstream>

#include "cli/commands.h"
#include "data/parsers.h"
#include "data/text_reader.h"
#include "runtime/runtime.h"
#include "symgnn/error.h"
#include "symgnn/item_filter.h"
#include "symgnn/recommend.h"
#include "util/atomic_file.h"
#include "util/memory_check.h"
#include "util/output_lock.h"

namespace symgnn::cli {
namespace {

struct RankCliOptions {
  std::string model_dir;
  std::string user;
  std::string items_file;
  std::vector<std::string> items;
  std::string out;
  std::string format = "csv";
  int64_t threads = -1;
  std::string device = "cpu";
  NewNodeFiles new_nodes;
};

int run_rank(const RankCliOptions& o) {
  if (o.items_file.empty() == o.items.empty())
    throw ConfigError("give the candidates: --items FILE or --item ID ...");
  if (!o.out.empty()) check_output_file(o.out, "--out");
  runtime::set_compute_threads(o.threads);
  const TrainedModel model = TrainedModel::load(o.model_dir, o.device, o.new_nodes);
  if (!model.data_note().empty()) std::cerr << model.data_note() << "\n";
  const Dataset& ds = model.dataset();
  const int64_t u = data::id_index(ds.users).find(o.user);
  if (u < 0)
    throw ConfigError("--user '" + o.user + "' is not in the model's data (a new user: --new-ratings)");
  // The candidates by the --items format (symgnn/item_filter.h), or as given.
  ItemFilterSpec spec;
  if (!o.items_file.empty()) read_candidates(o.items_file, spec);
  const std::vector<std::string>& ids = o.items_file.empty() ? o.items : spec.items;
  const std::string from = o.items_file.empty() ? "--item" : o.items_file;
  const data::IdIndex index = data::id_index(ds.items);
  std::vector<int64_t> items;
  for (const std::string& id : ids) {
    const int64_t i = index.find(id);
    if (i < 0) throw DataError(from + ": " + data::quote(id) + " is no item of the model");
    items.push_back(i);
  }
  const UserRecommendations r = rank_items(model, u, items);
  std::ostringstream os;
  os.precision(std::numeric_limits<float>::max_digits10);
  os << list_header(o.format, ds);
  write_list(os, o.format, o.user, r, ds, model.ranked_by(u));
  if (o.out.empty())
    std::cout << os.str();
  else
    write_text_atomic(o.out, os.str(), Integrity::none);
  std::cerr << "rank: " << r.items.size() << " candidate(s) of user '" << o.user << "' ordered by "
            << (model.cold_listed(u)     ? model.ranked_by(u)
                : model.ranker().empty() ? model.name()
                                         : "the " + model.ranker() + " ranker beside the model")
            << new_nodes_summary(model.new_ratings()) << (o.out.empty() ? "" : ", wrote " + o.out) << "\n";
  return 0;
}

}  // namespace

void add_rank_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "rank",
      "a candidate list of one user in the model's order (re-ranking what another system retrieved)\n"
      "  symgnn rank --model runs/ml100k --user 42 --items candidates.txt\n"
      "  symgnn rank --model runs/ml100k --user 42 --item 50 --item 172 --item 181\n"
      "Every candidate is ranked (items the user rated included), the best first, ties to the lower\n"
      "index, as `recommend` orders its lists. Output: user,item,prediction,rank (csv) or one JSON line.");
  auto o = std::make_shared<RankCliOptions>();
  cmd->add_option("--model", o->model_dir, "directory written by `symgnn train --out` (or its model.pt)")
      ->required();
  cmd->add_option("--user", o->user, "the user (original id; a new one with --new-ratings)")->required();
  cmd->add_option("--items", o->items_file, "file of candidate item ids, one per line");
  cmd->add_option("--item", o->items, "a candidate item id (repeatable)");
  cmd->add_option("--out", o->out, "output file (default: standard output)");
  cmd->add_option("--format", o->format, "csv (default) or jsonl")->check(CLI::IsMember({"csv", "jsonl"}));
  cmd->add_option("--threads", o->threads, "threads (default: one per core)")
      ->check(config_value_check("train.threads"));
  cmd->add_option("--device", o->device, "cpu (default), cuda or cuda:N");
  add_new_node_options(cmd, o->new_nodes);
  cmd->callback([o] { with_memory_context("ranking", [&] { run_rank(*o); }); });
}

}  // namespace symgnn::cli
