// `symgnn predict`: ratings for (user, item) pairs from a model saved by `symgnn train`.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <sstream>

#include "cli/commands.h"
#include "data/parsers.h"
#include "infer/unseen_test.h"
#include "runtime/runtime.h"
#include "symgnn/error.h"
#include "symgnn/trained_model.h"
#include "util/atomic_file.h"
#include "util/memory_check.h"
#include "util/output_lock.h"
#include "util/strings.h"

namespace fs = std::filesystem;

namespace symgnn::cli {
namespace {

struct PredictOptions {
  std::string model_dir;
  std::string pairs;
  std::string out;
  std::string unknown = "error";
  NewNodeFiles new_nodes;
  int64_t threads = -1;
};

int run_predict(const PredictOptions& o) {
  runtime::set_compute_threads(o.threads);
  if (!o.out.empty()) check_output_file(o.out, "--out");
  const TrainedModel model = TrainedModel::load(o.model_dir, "cpu", o.new_nodes);
  if (!model.data_note().empty()) std::cerr << model.data_note() << "\n";
  const Dataset& ds = model.dataset();
  if (ds.implicit())
    throw ConfigError(o.model_dir + " was trained on interactions (data.feedback = " + ds.feedback +
                      "): it ranks items and predicts no rating; use recommend, rank or evaluate");
  const data::IdIndex users = data::id_index(ds.users), items = data::id_index(ds.items);
  // The pairs file is read as the training loader reads its files (data/parsers.h).
  const std::string text = data::read_text_file(o.pairs);
  std::vector<std::string> uid, iid;
  std::vector<int64_t> ui, ii;
  for (const data::RawPair& pair : data::parse_pairs_text(text, o.pairs)) {
    const std::string u(pair.user), i(pair.item);
    if (uid.empty() && users.find(u) < 0 && data::is_user_column_name(u)) continue;
    const int64_t uu = users.find(u), it = items.find(i);
    if ((uu < 0 || it < 0) && o.unknown == "error")
      throw DataError(o.pairs, pair.line,
                      std::string("unknown ") +
                          (uu < 0 ? "user " + data::quote(u) : "item " + data::quote(i)) +
                          " (not in the training data; see --new-ratings, or --unknown for a fallback)");
    uid.push_back(u);
    iid.push_back(i);
    ui.push_back(uu);
    ii.push_back(it);
  }
  if (ui.empty()) throw DataError(o.pairs + ": no pairs to predict");

  // Pairs with an id the model knows nothing about take the --unknown fallback.
  std::vector<int64_t> ku, ki;
  std::vector<size_t> where;
  for (size_t k = 0; k < ui.size(); ++k)
    if (ui[k] >= 0 && ii[k] >= 0) {
      ku.push_back(ui[k]);
      ki.push_back(ii[k]);
      where.push_back(k);
    }
  const std::vector<float> known = model.predict(ku, ki);
  std::vector<float> p(ui.size());
  if (where.size() < ui.size()) {
    const infer::Fallback fallback(model.dataset(), model.global_mean(), o.unknown);
    for (size_t k = 0; k < ui.size(); ++k) p[k] = fallback(ui[k], ii[k]);
  }
  for (size_t k = 0; k < where.size(); ++k) p[where[k]] = known[k];
  std::cerr << "predict: " << ui.size() << " pair(s) by " << model.name()
            << new_nodes_summary(model.new_ratings());
  std::cerr << "; " << ui.size() - where.size() << " pair(s) with an unknown id took the fallback ("
            << (o.unknown == "error" ? "none" : o.unknown) << ")\n";
  std::ostringstream os;
  os << "user,item,prediction\n";
  os.precision(std::numeric_limits<float>::max_digits10);  // round-trips the float exactly
  for (size_t k = 0; k < uid.size(); ++k) os << uid[k] << "," << iid[k] << "," << p[k] << "\n";
  if (o.out.empty())
    std::cout << os.str();
  else
    write_text_atomic(o.out, os.str(), Integrity::none);
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
  cmd->add_option(
         "--unknown", o->unknown,
         "pairs with an id the model knows nothing about: error (default), known-mean (the item's mean "
         "training rating, else the user's, else the global mean), item-mean (the item's, else the "
         "global mean), user-mean, global-mean; mean = global-mean")
      ->check(CLI::IsMember({"error", "mean", "global-mean", "item-mean", "user-mean", "known-mean"}));
  add_new_node_options(cmd, o->new_nodes);
  cmd->add_option("--threads", o->threads, "intra-op threads (default: one per core)")
      ->check(config_value_check("train.threads"));
  cmd->callback([o] { with_memory_context("predicting", [&] { run_predict(*o); }); });
}

}  // namespace symgnn::cli
