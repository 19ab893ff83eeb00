// The `symgnn` subcommands. Each cmd_*.cpp registers one subcommand on the CLI11 app;
// run() parses, dispatches and maps errors to exit codes, so tests can call it
// in-process exactly as main() does.
#pragma once

#include <CLI/CLI.hpp>
#include <iosfwd>
#include <limits>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "symgnn/config.h"

namespace symgnn::cli {

/// Options shared by every command that reads data or trains. make_config() applies
/// them in this order: the preset, --config file, the flags below, then --set (last wins).
struct CommonOptions {
  std::string preset;  // "" : the config file's, else default_preset()
  std::string data;
  std::string split;
  std::string config_file;
  std::vector<std::string> sets;
  int64_t threads = -1;
  std::string device;
  int64_t seed = -1;
};

/// A CLI11 check of an option that sets config key `key`: the value must be one the key
/// admits (set_config_value's rules, from the config's field list), else the one-line
/// error names the key and its range. An option given out of range is never replaced.
CLI::Validator config_value_check(const std::string& key);

/// A CLI11 check of a number that must be finite (nan and inf are refused) and, where
/// `above` is finite, greater than it.
CLI::Validator finite_number(double above = -std::numeric_limits<double>::infinity());

/// Adds --data (unless positional_source), --split, --config, --set, --threads, --device.
void add_common_options(CLI::App* cmd, CommonOptions& opts, bool with_data_flag = true);

/// Builds and checks the RunConfig of a command (throws ConfigError).
RunConfig make_config(const CommonOptions& opts, const std::string& model = "");

/// Applies the runtime settings of cfg (intra-op threads) before any tensor work.
void apply_runtime(const RunConfig& cfg);

}  // namespace symgnn::cli
namespace symgnn {
struct Dataset;
struct Evaluation;
struct NewNodeFiles;
struct NewRatingsSummary;
struct UserRecommendations;
}  // namespace symgnn
namespace symgnn::cli {

/// --new-ratings and the --new-{user,item}-{graph,features} files (predict, recommend).
void add_new_node_options(CLI::App* cmd, symgnn::NewNodeFiles& nodes);
/// ", with N new rating(s) of ..." for the summary line on stderr; "" without new nodes.
std::string new_nodes_summary(const symgnn::NewRatingsSummary& s);

void add_version_command(CLI::App& app);
void add_config_command(CLI::App& app);
void add_data_command(CLI::App& app);
void add_train_command(CLI::App& app);
void add_predict_command(CLI::App& app);
void add_recommend_command(CLI::App& app);
void add_rank_command(CLI::App& app);
void add_refresh_command(CLI::App& app);
void add_export_command(CLI::App& app);
void add_explain_command(CLI::App& app);
void add_graph_command(CLI::App& app);
/// One user's list as `recommend` and `rank` print it (cmd_recommend.cpp): CSV rows
/// user,item,prediction,rank (list_header's) or, for "jsonl", one JSON line, with
/// "ranked_by" (TrainedModel::ranked_by) where given. A model of interactions
/// (data/feedback.h) predicts no rating: its rows are user,item,rank, its lines without
/// "predictions".
void write_list(std::ostream& os, const std::string& format, const std::string& user,
                const symgnn::UserRecommendations& r, const symgnn::Dataset& ds,
                const std::string& ranked_by = "");
/// The CSV header of write_list's rows for `ds`'s model ("" for jsonl).
std::string list_header(const std::string& format, const symgnn::Dataset& ds);
void add_evaluate_command(CLI::App& app);
void add_sylvester_command(CLI::App& app);
void add_reproduce_command(CLI::App& app);
void add_tune_command(CLI::App& app);
void add_blend_command(CLI::App& app);
void add_serve_command(CLI::App& app);

/// Parses argv and runs the chosen subcommand. Exit codes: 0 success, 2 bad input or
/// usage (one line on stderr naming the file and place), 1 internal failure.
int run(int argc, const char* const* argv);

}  // namespace symgnn::cli
