// `symgnn recommend`: the top-k items of users from a model saved by `symgnn train`.
#include <chrono>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/commands.h"
#include "data/parsers.h"
#include "data/text_reader.h"
#include "infer/cold_lists.h"
#include "runtime/runtime.h"
#include "symgnn/error.h"
#include "symgnn/item_filter.h"
#include "symgnn/recommend.h"
#include "util/atomic_file.h"
#include "util/json_text.h"
#include "util/memory_check.h"
#include "util/output_lock.h"

namespace symgnn::cli {

void write_list(std::ostream& os, const std::string& format, const std::string& user,
                const UserRecommendations& r, const Dataset& ds, const std::string& ranked_by) {
  if (format == "csv") {
    for (size_t k = 0; k < r.items.size(); ++k) {
      os << user << ',' << ds.items.id_of(r.items[k]) << ',';
      if (!ds.implicit()) os << r.scores[k] << ',';
      os << k + 1 << '\n';
    }
    return;
  }
  nlohmann::json j;
  j["user"] = user;
  j["items"] = nlohmann::json::array();
  for (const int64_t i : r.items) j["items"].push_back(ds.items.id_of(i));
  if (!ds.implicit()) j["predictions"] = r.scores;
  if (!ranked_by.empty()) j["ranked_by"] = ranked_by;
  if (r.candidates >= 0) j["candidates"] = r.candidates;  // fewer than k: a shorter list
  os << json_text(j) << '\n';
}

std::string list_header(const std::string& format, const Dataset& ds) {
  if (format != "csv") return "";
  return ds.implicit() ? "user,item,rank\n" : "user,item,prediction,rank\n";
}

namespace {

struct RecommendCliOptions {
  std::string model_dir;
  int64_t k = 10;
  std::string user;
  std::string users_file;
  bool all = false;
  std::string out;
  bool include_seen = false;
  std::string format = "csv";
  int64_t threads = -1;
  std::string device = "cpu";
  NewNodeFiles new_nodes;
  std::string exclude_file, items_file, attributes_file;
  std::vector<std::string> where;
};

/// The filters of `o` (symgnn/item_filter.h) against `model`.
ItemFilter filter_of(const RecommendCliOptions& o, const TrainedModel& model) {
  ItemFilterSpec spec;
  if (!o.exclude_file.empty()) read_exclusions(o.exclude_file, spec);
  if (!o.items_file.empty()) read_candidates(o.items_file, spec);
  for (const std::string& w : o.where) add_where(w, spec);
  spec.where_name = "--where";
  ItemAttributes attributes;
  if (!o.attributes_file.empty()) attributes = read_item_attributes(o.attributes_file);
  if (!o.attributes_file.empty() && o.where.empty())
    throw ConfigError("--item-attributes " + o.attributes_file +
                      ": give --where key=value to filter by them");
  return make_item_filter(model, spec, &attributes);
}

/// Checked before any work: an output path must not be a directory and its folder must exist.
std::vector<int64_t> chosen_users(const RecommendCliOptions& o, const Dataset& ds) {
  const data::IdIndex index = data::id_index(ds.users);
  if (!o.user.empty()) {
    const int64_t u = index.find(o.user);
    if (u < 0) throw ConfigError("--user '" + o.user + "' is not in the model's training data");
    return {u};
  }
  if (!o.users_file.empty())
    return data::parse_user_list_text(data::read_text_file(o.users_file), o.users_file, index);
  std::vector<int64_t> all(static_cast<size_t>(ds.users.count));
  for (int64_t u = 0; u < ds.users.count; ++u) all[static_cast<size_t>(u)] = u;
  return all;
}

int run_recommend(const RecommendCliOptions& o) {
  if (o.k < 1) throw ConfigError("--k must be at least 1, got " + std::to_string(o.k));
  if (static_cast<int>(!o.user.empty()) + static_cast<int>(!o.users_file.empty()) + static_cast<int>(o.all) !=
      1)
    throw ConfigError("give exactly one of --user ID, --users FILE or --all");
  if (!o.out.empty()) check_output_file(o.out, "--out");
  runtime::set_compute_threads(o.threads);
  const auto t0 = std::chrono::steady_clock::now();
  const TrainedModel model = TrainedModel::load(o.model_dir, o.device, o.new_nodes);
  if (!model.data_note().empty()) std::cerr << model.data_note() << "\n";
  const Dataset& ds = model.dataset();
  const std::vector<int64_t> users = chosen_users(o, ds);

  RecommendOptions ro;
  ro.k = o.k;
  ro.include_seen = o.include_seen;
  ro.filter = filter_of(o, model);
  std::ostringstream os;
  os.precision(std::numeric_limits<float>::max_digits10);  // round-trips the float exactly
  os << list_header(o.format, ds);
  // Users without ratings whose lists come from the people linked to them (infer/cold_lists.h).
  size_t cold = 0, linked = 0;
  std::vector<std::string> short_lists;  // users with fewer than k candidates
  recommend_each(model, users, ro, [&](const UserRecommendations& r) {
    write_list(os, o.format, ds.users.id_of(r.user), r, ds, model.ranked_by(r.user));
    if (r.candidates >= 0)
      short_lists.push_back(short_list_note(r, ds.users.id_of(r.user), o.k, ro.filter.what));
    if (model.cold_listed(r.user)) {
      ++cold;
      linked += model.cold_lists().rated_neighbours(r.user).empty() ? 0 : 1;
    }
  });
  if (o.out.empty())
    std::cout << os.str();
  else
    write_text_atomic(o.out, os.str(), Integrity::none);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!short_lists.empty())
    std::cerr << "note: " << short_lists.size() << " list(s) shorter than k = " << o.k << ": "
              << short_lists.front()
              << (short_lists.size() > 1 ? " (and " + std::to_string(short_lists.size() - 1) + " more)" : "")
              << "\n";
  std::cerr
      << "recommend: " << users.size() << " user(s), top " << o.k << " of " << model.items() << " items ("
      << (o.include_seen ? "rated items included" : "rated items excluded")
      << (ro.filter.what.empty() ? "" : "; filtered by " + ro.filter.what) << "), " << model.name()
      << new_nodes_summary(model.new_ratings()) << ", " << std::fixed << std::setprecision(1) << secs << " s"
      << (o.out.empty() ? "" : ", wrote " + o.out)
      << (model.ranks_by_rating()
              ? "; ranked by predicted rating: this model was not trained for ranking (train.objective = "
                "joint or model = ease give better lists, docs/recommend.md)"
              : "")
      << (model.ranker().empty() ? "" : "; ranked by the " + model.ranker() + " ranker beside the model")
      << (cold == 0 ? ""
                    : "; " + std::to_string(cold) +
                          " user(s) without ratings ranked by what the people linked to "
                          "them rated (" +
                          std::to_string(linked) + ") or by popularity (" + std::to_string(cold - linked) +
                          "), infer/cold_lists.h")
      << "\n";
  return 0;
}

}  // namespace

void add_recommend_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "recommend",
      "the top-k items of users, from a trained model\n"
      "  symgnn recommend --model runs/ml100k --user 42 --k 10\n"
      "  symgnn recommend --model runs/ml100k --all --k 10 --out top10.csv\n"
      "Items a user rated in training are left out unless --include-seen. Output (original ids):\n"
      "CSV 'user,item,prediction,rank' with a header ('user,item,rank' for a model of interactions, "
      "which predicts no rating), or one JSON object per user (--format jsonl).");
  auto o = std::make_shared<RecommendCliOptions>();
  cmd->add_option("--model", o->model_dir, "directory written by `symgnn train --out` (or its model.pt)")
      ->required();
  cmd->add_option("--k", o->k, "items per user (default 10)");
  cmd->add_option("--user", o->user, "one user (original id)");
  cmd->add_option("--users", o->users_file, "file of user ids, one per line");
  cmd->add_flag("--all", o->all, "every user of the training data");
  cmd->add_option("--out", o->out, "output file (default: standard output)");
  cmd->add_flag("--include-seen", o->include_seen, "also rank the items the user rated in training");
  cmd->add_option("--exclude", o->exclude_file,
                  "file of items never to show: lines \"item\" (to anyone) or \"user,item\" (to that user)");
  cmd->add_option("--items", o->items_file,
                  "file of candidate item ids, one per line: lists hold only these");
  cmd->add_option(
      "--item-attributes", o->attributes_file,
      "item attributes for --where: lines \"id,key=value,...\" or a table with a header (id first)");
  cmd->add_option("--where", o->where,
                  "key=value an item's attributes must hold (repeatable: all must hold)");
  cmd->add_option("--format", o->format, "csv (default) or jsonl")->check(CLI::IsMember({"csv", "jsonl"}));
  cmd->add_option("--threads", o->threads, "threads (default: one per core)")
      ->check(config_value_check("train.threads"));
  cmd->add_option("--device", o->device, "cpu (default), cuda or cuda:N");
  add_new_node_options(cmd, o->new_nodes);
  cmd->callback([o] { with_memory_context("recommending", [&] { run_recommend(*o); }); });
}

}  // namespace symgnn::cli
