// `symgnn reproduce`: every table and figure of the paper's experiments in one command
// (src/reproduce/): runs the sweep as `symgnn train` child processes, resumable, then
// writes results.md with the tables, the figures and the training curves.
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <optional>
#include <utility>
#include <vector>

#include "cli/commands.h"
#include "ranking_blend/ranking_blend.h"
#include "reproduce/plan.h"
#include "reproduce/report.h"
#include "reproduce/runner.h"
#include "symgnn/error.h"
#include "symgnn/run_metrics.h"
#include "util/atomic_file.h"
#include "util/checksum.h"
#include "util/output_lock.h"
#include "util/strings.h"
#include "util/text.h"

namespace fs = std::filesystem;

namespace symgnn::cli {
namespace {

/// What a blend of `ease` and `members` was made from: each input cell's metrics.json by its
/// SHA-256, and the runs blended. A cell trained again writes a new metrics.json.
std::string blend_inputs(const std::string& ease,
                         const std::vector<std::pair<std::string, int64_t>>& members) {
  std::string out;
  const auto add = [&out](const std::string& cell, int64_t run) {
    out += sha256_hex(read_text_file(cell + "/metrics.json")) + "  " + fs::path(cell).filename().string() +
           " run " + std::to_string(run) + "\n";
  };
  add(ease, 0);
  for (const auto& [member, run] : members) add(member, run);
  return out;
}

/// The mean test NDCG@10 of the blend in `dir` where it was made from `inputs` (its
/// inputs.txt) and reads back as every model directory does (its checksums checked); none
/// otherwise, and the blend is made again.
std::optional<double> kept_blend_ndcg(const std::string& dir, const std::string& inputs) {
  const std::string stamp = dir + "/inputs.txt";
  if (!fs::exists(stamp) || read_text_file(stamp) != inputs) return std::nullopt;
  try {
    return RunMetrics::read(dir).ranking_at_10.at("ndcg").get<double>();
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

/// EASE's cell `ease` blended with each (directory, run) of `members`, weights on validation
/// NDCG@10, written to `dir` where the report reads it; says the mean test NDCG@10 of the
/// blends, or why there is none (the report then shows a dash). A blend already in `dir` of
/// the same inputs (dir/inputs.txt) is kept: rewriting the report blends nothing again.
void blend_with_ease(const std::string& bench, const std::string& ease,
                     const std::vector<std::pair<std::string, int64_t>>& members, const std::string& dir,
                     const std::string& what) {
  if (members.empty()) return;
  try {
    const std::string inputs = blend_inputs(ease, members);
    double mean = 0;
    std::string made = "made before from the same cells";
    if (const std::optional<double> kept = kept_blend_ndcg(dir, inputs)) {
      mean = *kept;
    } else {
      std::vector<ranking_blend::RankingBlendResult> blends;
      for (const auto& [member, run] : members) {
        ranking_blend::RankingBlendOptions ro;
        ro.run = run;
        blends.push_back(ranking_blend::blend_for_ranking({ease, member}, ro));
      }
      fs::remove_all(dir);
      ranking_blend::write_ranking_blend(blends, dir);
      write_text_atomic(dir + "/inputs.txt", inputs);
      for (const auto& r : blends) mean += r.test_ndcg / static_cast<double>(blends.size());
      made = "mean of " + std::to_string(blends.size()) + " run(s)";
    }
    std::cerr << "reproduce: " << bench << ": ranking blend of EASE and " << what << ", test NDCG@10 " << mean
              << " (" << made << ")\n";
  } catch (const std::exception& e) {
    std::cerr << "reproduce: " << bench << ": no ranking blend of EASE and " << what << ": " << e.what()
              << "\n";
  }
}

/// The ranking part's blends (docs/blending.md, "Blending for ranking"): EASE's cell with
/// the cell of SyMGNN trained for ranking (one blend per run of it) and with each seed's
/// cell of the item-based ranker (reproduce/plan.h, elsa_cell), written where the report
/// reads them (ranking_blend_dir, elsa_blend_dir). Made again where an input cell changed (each
/// refits EASE on training: seconds to a minute).
void blend_ranking_cells(const std::string& runs_dir, int seeds) {
  const auto has_metrics = [](const std::string& dir) { return fs::exists(dir + "/metrics.json"); };
  for (const std::string& bench : reproduce::ranking_benchmarks()) {
    const std::string ease = runs_dir + "/" + reproduce::cell_name(bench, "ease", "");
    if (!has_metrics(ease)) continue;
    std::vector<std::pair<std::string, int64_t>> elsa;
    for (int seed = 1; seed <= seeds; ++seed)
      if (const std::string d = runs_dir + "/" + reproduce::elsa_cell(bench, seed); has_metrics(d))
        elsa.emplace_back(d, 0);
    blend_with_ease(bench, ease, elsa, runs_dir + "/" + reproduce::elsa_blend_dir(bench),
                    "the item-based ranker");
    const std::string learned = runs_dir + "/" + reproduce::ranking_cell(bench);
    if (!has_metrics(learned)) continue;
    // One blend per seed of the learned cell, as its own figures are over its seeds.
    std::vector<std::pair<std::string, int64_t>> runs;
    for (int64_t k = 0; k == 0 || fs::is_regular_file(learned + "/run" + std::to_string(k) + "/model.pt");
         ++k)
      runs.emplace_back(learned, k);
    blend_with_ease(bench, ease, runs, runs_dir + "/" + reproduce::ranking_blend_dir(bench),
                    "SyMGNN for ranking");
  }
}

struct ReproduceOptions {
  bool quick = false;
  std::string data_dir;
  std::string out;
  std::string configs;
  std::string only;
  bool only_given = false;  // --only "" is an error, not "everything"
  int seeds = 0;
  int jobs = 1;
  int threads = 0;
  std::string device;
  bool force = false;
  bool dry_run = false;
  bool report_only = false;
  std::string publish;
  std::string gnuplot = "gnuplot";
  std::string command;
};

std::string default_data_dir() {
  if (const char* env = std::getenv("SYMGNN_DATA_DIR"); env && *env) return env;
  return "../shared/data";
}

std::string default_configs() {
  if (fs::exists("configs")) return "configs";
  return std::string(SYMGNN_SOURCE_DIR) + "/configs";
}

void publish(const std::string& out, const std::string& dest) {
  fs::create_directories(dest + "/results");
  const auto opts = fs::copy_options::overwrite_existing | fs::copy_options::recursive;
  fs::copy(out + "/results", dest + "/results", opts);
  const std::string tmp = dest + "/results.md.tmp";
  fs::copy_file(out + "/results.md", tmp, fs::copy_options::overwrite_existing);
  fs::rename(tmp, dest + "/results.md");
  std::cerr << "reproduce: published " << dest << "/results.md and " << dest << "/results/\n";
}

int run_reproduce(const ReproduceOptions& o) {
  reproduce::PlanOptions p;
  p.data_dir = o.data_dir.empty() ? default_data_dir() : o.data_dir;
  p.config_dir = o.configs.empty() ? default_configs() : o.configs;
  p.quick = o.quick;
  p.device = o.device;
  p.seeds = o.seeds > 0 ? o.seeds : (o.quick ? 1 : 5);
  for (const auto& part : split(o.only, ','))
    if (!trim(part).empty()) p.only.push_back(trim(part));
  if (o.only_given && p.only.empty())
    throw ConfigError("--only '" + o.only +
                      "': name at least one part (table2, table3, table4, fig2, fig3, ranking)");
  if (!fs::is_directory(p.data_dir))
    throw UsageError(p.data_dir + ": data directory not found (use --data-dir or SYMGNN_DATA_DIR)");
  p.data_dir = fs::canonical(p.data_dir).string();
  p.config_dir = fs::absolute(p.config_dir).lexically_normal().string();
  const reproduce::Plan plan = reproduce::make_plan(p);
  for (const auto& a : plan.absent) std::cerr << "reproduce: skipped, data absent: " << a << "\n";
  if (plan.cells.empty()) throw UsageError(p.data_dir + ": none of the benchmark files is there");

  const std::string out = o.out.empty() ? (o.quick ? "out/reproduce-quick" : "out/reproduce") : o.out;
  reproduce::RunnerOptions r;
  r.runs_dir = out + "/runs";
  r.exe = fs::read_symlink("/proc/self/exe").string();
  r.jobs = o.jobs;
  r.threads = o.threads;
  r.force = o.force;
  r.dry_run = o.dry_run || o.report_only;
  r.log = [](const std::string& line) { std::cerr << line << "\n"; };
  check_output_dir(out, "--out");
  fs::create_directories(r.runs_dir);
  // One reproduce per folder: a second one would rerun (and delete) the cells the first is
  // training. Its cells' `train` children lock their own folders and die with this process.
  const OutputLock lock(out, "--out");
  const auto outcomes = reproduce::run_plan(plan, r);
  if (o.dry_run) return 0;
  if (!o.report_only) blend_ranking_cells(r.runs_dir, p.seeds);

  reproduce::ReportOptions ro;
  ro.out_dir = out;
  ro.runs_dir = r.runs_dir;
  ro.command = o.command;
  ro.gnuplot = o.gnuplot;
  ro.quick = o.quick;
  ro.seeds = p.seeds;
  // --only limits what runs, not what is reported: the report shows every part, from
  // the cells finished now or by earlier invocations ("not run" where none is).
  reproduce::PlanOptions all = p;
  all.only.clear();
  const auto files = reproduce::write_report(reproduce::make_plan(all), outcomes, ro);
  std::cerr << "reproduce: wrote " << out << "/" << files.front() << " and " << files.size() - 1
            << " files in " << out << "/results/\n";
  if (!o.publish.empty()) publish(out, o.publish);
  int failed = 0;
  for (const auto& c : outcomes) failed += c.status == "failed";
  if (failed > 0) {
    std::cerr << "reproduce: " << failed << " cell(s) failed; their logs are under " << r.runs_dir << "\n";
    return 1;
  }
  return 0;
}

}  // namespace

void add_reproduce_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "reproduce",
      "run the paper's experiments (Tables 2-4, Figures 2-3) and write results.md with plots\n"
      "  symgnn reproduce --quick                 # 1 seed, 3 epochs: checks the whole pipeline\n"
      "  symgnn reproduce --publish docs          # the full sweep (5 seeds), then docs/results.md\n"
      "  symgnn reproduce --only table4,fig2      # some parts only\n"
      "Interrupted sweeps resume: finished cells (runs/<cell>/metrics.json) are reused when\n"
      "their arguments and configs are unchanged.");
  auto o = std::make_shared<ReproduceOptions>();
  cmd->add_flag("--quick", o->quick,
                "1 seed, 3 epochs, one a for the Sylvester baseline, one penalty for EASE and the bias "
                "baseline's shrinkage on one fold of its cross-validation: checks that every table and "
                "figure is made (for CI), not their figures");
  cmd->add_option(
      "--data-dir", o->data_dir,
      "benchmark data: monti/*.mat, ml-100k/, ml-1m/ (default $SYMGNN_DATA_DIR or ../shared/data)");
  cmd->add_option("--out", o->out,
                  "output directory (default out/reproduce, out/reproduce-quick with --quick)");
  cmd->add_option("--configs", o->configs, "directory of the tuned configs (default ./configs)");
  cmd->add_option(
      "--only", o->only,
      "comma-separated parts to run: table2, table3, table4, fig2, fig3, ranking (default all; the report "
      "shows every part)");
  cmd->add_option("--seeds", o->seeds, "seeds per cell (default 5, 1 with --quick)")
      ->check(CLI::Range(1, 100));
  cmd->add_option("--jobs", o->jobs, "cells trained at once (default 1)")->check(CLI::Range(1, 64));
  cmd->add_option("--threads", o->threads, "threads per cell (default: cores / jobs)")
      ->check(CLI::Range(0, 1024));
  cmd->add_option("--device", o->device, "--device of every cell: cpu (default) or cuda[:N]");
  cmd->add_flag("--force", o->force, "run every cell again, even when its results are there");
  cmd->add_flag("--dry-run", o->dry_run, "print the plan and the commands; run nothing");
  cmd->add_flag("--report-only", o->report_only, "run nothing; write the report from the finished cells");
  cmd->add_option("--publish", o->publish,
                  "also copy results.md and results/ into this directory (e.g. docs)");
  cmd->add_option("--gnuplot", o->gnuplot, "the gnuplot executable (default gnuplot)");
  cmd->callback([o, cmd] {
    o->command = "symgnn reproduce";
    o->only_given = cmd->count("--only") > 0;
    for (const auto& opt : cmd->get_options()) {
      if (opt->count() == 0 || opt->get_name() == "--help") continue;
      o->command += " " + opt->get_name();
      if (opt->get_expected_min() > 0)
        for (const auto& v : opt->results()) o->command += " " + v;
    }
    const int code = run_reproduce(*o);
    if (code != 0) throw CLI::RuntimeError(code);
  });
}

}  // namespace symgnn::cli
