// `symgnn graph`: the graphs of a trained model edited without retraining
// (symgnn/graph_edit.h, docs/graph_edits.md): `edit` journals a batch of edge changes in the
// model directory, which every later load replays; `compact` folds the journal into a new
// self-contained directory.
#include <iostream>
#include <sstream>

#include "cli/commands.h"
#include "infer/graph_journal.h"
#include "runtime/runtime.h"
#include "symgnn/error.h"
#include "symgnn/graph_edit.h"
#include "symgnn/model_dir.h"
#include "symgnn/trained_model.h"
#include "symgnn/update.h"
#include "util/memory_check.h"
#include "util/output_lock.h"

namespace symgnn::cli {
namespace {

struct GraphEditCliOptions {
  std::string model_dir;
  std::vector<std::string> add_user, remove_user, add_item, remove_item;
  std::string device = "cpu";
  int64_t threads = -1;
  bool create = false;
  std::vector<std::string> features;
};

/// The comma-separated fields of an option's value.
std::vector<std::string> fields_of(const std::string& text) {
  std::vector<std::string> f;
  std::stringstream in(text);
  for (std::string part; std::getline(in, part, ',');) f.push_back(part);
  return f;
}

/// `field` as a whole number text, else false.
bool number_of(const std::string& field, double& value) {
  size_t used = 0;
  try {
    value = std::stod(field, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  return used > 0 && used == field.size();
}

/// "a,b" or "a,b,w" of option `flag` as an edit of `side`.
Delta::Edge edge_of(const std::string& text, const std::string& side, const std::string& op,
                    const std::string& flag) {
  const std::vector<std::string> f = fields_of(text);
  const bool weighted = op == "add" && f.size() == 3;
  if (f.size() != 2 && !weighted)
    throw UsageError(flag + " " + text + ": must be " + (op == "add" ? "A,B or A,B,WEIGHT" : "A,B") +
                     " (original ids)");
  Delta::Edge e = graph_edit(side, op, f[0], f[1]);
  if (weighted && !number_of(f[2], e.weight))
    throw UsageError(flag + " " + text + ": the weight is not a number");
  return e;
}

int run_graph_edit(const GraphEditCliOptions& o) {
  std::vector<Delta::Edge> edits;
  for (const auto& t : o.add_user) edits.push_back(edge_of(t, "user", "add", "--add-user-edge"));
  for (const auto& t : o.remove_user) edits.push_back(edge_of(t, "user", "remove", "--remove-user-edge"));
  for (const auto& t : o.add_item) edits.push_back(edge_of(t, "item", "add", "--add-item-edge"));
  for (const auto& t : o.remove_item) edits.push_back(edge_of(t, "item", "remove", "--remove-item-edge"));
  for (Delta::Edge& e : edits) e.create = o.create && e.op == EdgeOp::add;
  for (const std::string& text : o.features) {
    // "ID,f1,...": the features of the node ID an edit creates (its first edit naming it as A).
    const std::vector<std::string> f = fields_of(text);
    if (!o.create || f.size() < 2)
      throw UsageError("--features " + text + ": must be ID,F1,... with --create");
    const auto edit = std::find_if(edits.begin(), edits.end(),
                                   [&](const Delta::Edge& e) { return e.create && e.a == f[0]; });
    if (edit == edits.end())
      throw UsageError("--features " + text + ": no added edge names " + f[0] + " first (A of A,B)");
    if (!edit->features.empty())
      throw UsageError("--features " + text + ": the features of " + f[0] +
                       " are given twice (once per node)");
    for (size_t c = 1; c < f.size(); ++c) {
      double v = 0;
      if (!number_of(f[c], v)) throw UsageError("--features " + text + ": " + f[c] + " is not a number");
      edit->features.push_back(v);
    }
  }
  if (edits.empty())
    throw UsageError(
        "graph edit: no edit given (--add-user-edge, --remove-user-edge, --add-item-edge, "
        "--remove-item-edge)");
  runtime::set_compute_threads(o.threads);
  // One writer of the directory at a time (a running `symgnn serve` edits through its POST
  // /v1/graph/edges instead, docs/graph_edits.md).
  OutputLock lock(o.model_dir, "--model");
  const auto [model, known] = infer::load_with_journal_count<TrainedModel>(
      o.model_dir, [&] { return TrainedModel::load(o.model_dir, o.device); });
  Delta delta;  // the edits as the door takes them (symgnn/update.h)
  delta.edges = edits;
  check(model, delta);  // before anything is written
  // Checked again, under the journal's lock, after any record a running server appended
  // since the load (infer/graph_journal.h): nothing is written that could not be replayed.
  const int64_t record =
      infer::append_graph_journal(o.model_dir, edits, known, [&](const std::vector<Delta::Edge>& unseen) {
        if (!unseen.empty()) check(infer::replay_unseen(model, unseen, o.model_dir), delta);
      });
  std::cerr << "graph edit: " << edits.size() << " edit(s) journalled as record " << record << " of "
            << infer::graph_journal_path(o.model_dir)
            << "; every load of the directory replays them (a running server: POST /v1/admin/reload)\n";
  return 0;
}

struct GraphCompactCliOptions {
  std::string model_dir, out;
  std::string device = "cpu";
};

int run_graph_compact(const GraphCompactCliOptions& o) {
  const int64_t records = compact_model_dir(o.model_dir, o.out, o.device);
  std::cerr << "graph compact: " << records << " journal record(s) of " << o.model_dir << " folded into "
            << o.out << " (its dataset.bin holds the edited graphs; no journal)\n";
  return 0;
}

}  // namespace

void add_graph_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "graph",
      "edit a trained model's user or item graph without retraining (docs/graph_edits.md)\n"
      "  symgnn graph edit --model runs/douban --add-user-edge 12,40 --remove-user-edge 12,7\n"
      "  symgnn graph compact --model runs/douban --out runs/douban-edited");
  cmd->require_subcommand(1);
  auto* edit = cmd->add_subcommand(
      "edit",
      "journal a batch of edge changes in the model directory (graph_journal.jsonl); every later load of\n"
      "the directory (recommend, predict, evaluate, serve, Python) replays the journal and recomputes the\n"
      "model's node representations on the edited graphs. Graphs stay symmetric: A,B is both (A,B) and\n"
      "(B,A). The batch is checked whole first: an unknown id (without --create), a self-loop, a\n"
      "weight that is not finite and positive, the removal of an edge that is not there, or a graph the\n"
      "model does not use is one line and exit 2, and nothing is written.");
  auto e = std::make_shared<GraphEditCliOptions>();
  edit->add_option("--model", e->model_dir, "directory written by `symgnn train --out`")->required();
  edit->add_option("--add-user-edge", e->add_user,
                   "A,B[,WEIGHT]: add (or re-weight) a user-user edge (repeatable)");
  edit->add_option("--remove-user-edge", e->remove_user, "A,B: remove a user-user edge (repeatable)");
  edit->add_option("--add-item-edge", e->add_item,
                   "A,B[,WEIGHT]: add (or re-weight) an item-item edge (repeatable)");
  edit->add_option("--remove-item-edge", e->remove_item, "A,B: remove an item-item edge (repeatable)");
  edit->add_flag(
      "--create", e->create,
      "an end of an added edge that is no node of its side becomes a new user or item, joining by\n"
      "its edges alone (no ratings; side features from --features, else zeros): a new item linked to\n"
      "catalogue items appears in their `serve` /v1/similar and, where the model ranks it high, in lists");
  edit->add_option("--features", e->features,
                   "ID,F1,...: with --create, the side features of the node ID the edits create (the\n"
                   "first added edge naming it as A); without: zeros (repeatable)");
  edit->add_option("--device", e->device, "cpu (default), cuda or cuda:N: where the batch is checked");
  edit->add_option("--threads", e->threads, "threads (default: one per core)")
      ->check(config_value_check("train.threads"));
  edit->callback([e] { with_memory_context("editing the graph", [&] { run_graph_edit(*e); }); });
  auto* compact = cmd->add_subcommand(
      "compact",
      "write a new self-contained model directory whose data hold the edited graphs (the journal folded\n"
      "in, none beside it); the old directory is left as it is");
  auto c = std::make_shared<GraphCompactCliOptions>();
  compact->add_option("--model", c->model_dir, "directory with a graph journal")->required();
  compact->add_option("--out", c->out, "the new directory (must not exist, or be empty)")->required();
  compact->add_option("--device", c->device,
                      "cpu (default), cuda or cuda:N: where the new directory is checked");
  compact->callback(
      [c] { with_memory_context("compacting the graph journal", [&] { run_graph_compact(*c); }); });
}

}  // namespace symgnn::cli
