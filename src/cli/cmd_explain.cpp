// `symgnn explain`: why a model scores an item for a user, in the parts of its inputs
// (symgnn/explain.h; docs/explain.md).
#include <cstdio>
#include <iostream>
#include <sstream>

#include "cli/commands.h"
#include "data/item_names.h"
#include "data/parsers.h"
#include "data/text_reader.h"
#include "runtime/runtime.h"
#include "symgnn/error.h"
#include "symgnn/explain.h"
#include "symgnn/trained_model.h"
#include "util/memory_check.h"
#include "util/text.h"

namespace symgnn::cli {
namespace {

struct ExplainCliOptions {
  std::string model_dir;
  std::string user;
  std::string item;
  std::string item_names;
  std::string format = "text";
  int64_t threads = -1;
  std::string device = "cpu";
  ExplainOptions explain;
  NewNodeFiles new_nodes;
};

void print_text(std::ostream& os, const Explanation& e, const std::string& item_name) {
  os << "why " << (item_name.empty() ? "" : item_name + " (") << "item '" << e.item_id << "'"
     << (item_name.empty() ? "" : ")") << " for user '" << e.user_id
     << "': " << (e.target == "list" ? "list score " : "predicted rating ") << fixed(e.score, 4) << " ("
     << e.model << (e.exact ? "; exact: the parts sum to it" : "; occlusion") << ")\n";
  os << "  " << e.method << "\n";
  if (!e.sentence.empty()) os << "  in a sentence: " << e.sentence << "\n";
  for (const ExplanationPart& p : e.parts) {
    char line[64];
    std::snprintf(line, sizeof line, "  %+10.4f %5.0f%%  ", p.value, 100 * p.share);
    os << line << p.text << "\n";
  }
  if (e.parts.empty()) os << "  (no input of the model reaches this pair)\n";
}

int run_explain(const ExplainCliOptions& o) {
  runtime::set_compute_threads(o.threads);
  const TrainedModel model = TrainedModel::load(o.model_dir, o.device, o.new_nodes);
  if (!model.data_note().empty()) std::cerr << model.data_note() << "\n";
  if (const std::string added = new_nodes_summary(model.new_ratings()); !added.empty())
    std::cerr << "explain: " << o.model_dir << added << "\n";
  const Dataset& ds = model.dataset();
  const int64_t u = data::id_index(ds.users).find(o.user);
  if (u < 0) throw DataError("--user " + data::quote(o.user) + " is no user of the model");
  const int64_t i = data::id_index(ds.items).find(o.item);
  if (i < 0) throw DataError("--item " + data::quote(o.item) + " is no item of the model");
  ExplainOptions opt = o.explain;
  const data::ItemNames names = data::model_item_names(o.model_dir, o.item_names, model.config().data.source);
  opt.item_name = [&](int64_t item) {
    const auto it = names.find(ds.items.id_of(item));
    return it == names.end() ? std::string() : "'" + it->second + "'";
  };
  const Explanation e = explain(model, u, i, opt);
  if (o.format == "json")
    std::cout << explanation_json(e).dump() << "\n";
  else
    print_text(std::cout, e, opt.item_name(i));
  return 0;
}

}  // namespace

void add_explain_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "explain",
      "why the model scores an item for a user: the parts its inputs contribute\n"
      "  symgnn explain --model runs/ml100k --user 42 --item 50\n"
      "  symgnn explain --model runs/douban --user 7 --item 120 --target rating --format json\n"
      "Exact for the kinds linear in their inputs (EASE, ItemKNN, the item-based ranker, both Sylv.\n"
      "kinds: the parts sum to the score); by occlusion for the learned kinds (each part is the\n"
      "score's drop when that one rating or graph edge is taken out). docs/explain.md.");
  auto o = std::make_shared<ExplainCliOptions>();
  cmd->add_option("--model", o->model_dir, "directory written by `symgnn train --out`")->required();
  cmd->add_option("--user", o->user, "the user (original id)")->required();
  cmd->add_option("--item", o->item, "the item (original id)")->required();
  cmd->add_option(
         "--target", o->explain.target,
         "list (default: the score the lists rank by, the ranker's where the model has one) or rating "
         "(the predicted rating)")
      ->check(CLI::IsMember({"list", "rating"}));
  cmd->add_option("--top", o->explain.top, "parts shown (default 5); the others are summed")
      ->check(CLI::Range(int64_t{1}, int64_t{1000}));
  cmd->add_option("--candidates", o->explain.candidates,
                  "occlusion: the most inputs recomputed, one forward pass each (default 24)")
      ->check(CLI::Range(int64_t{1}, int64_t{100000}));
  cmd->add_option("--item-names", o->item_names,
                  "file of item names, id,name per line (default: those the model directory kept, or the "
                  "data source's)");
  cmd->add_option("--format", o->format, "text (default) or json")->check(CLI::IsMember({"text", "json"}));
  cmd->add_option("--threads", o->threads, "threads (default: one per core)")
      ->check(config_value_check("train.threads"));
  cmd->add_option("--device", o->device, "cpu (default), cuda or cuda:N");
  add_new_node_options(cmd, o->new_nodes);
  cmd->callback([o] { with_memory_context("explaining", [&] { run_explain(*o); }); });
}

}  // namespace symgnn::cli
