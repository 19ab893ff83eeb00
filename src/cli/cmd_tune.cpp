// `symgnn tune`: a seeded random search over the config keys a search-space file names
// (src/tune/), each trial a `symgnn train` child process judged on validation RMSE;
// resumable, with trials.csv, summary.md and best.conf in --out.
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>

#include "cli/commands.h"
#include "symgnn/error.h"
#include "symgnn/metrics.h"
#include "tune/report.h"
#include "tune/search.h"
#include "tune/space.h"
#include "util/output_lock.h"
#include "util/text.h"

namespace fs = std::filesystem;

namespace symgnn::cli {
namespace {

struct TuneOptions {
  tune::SearchOptions search;
  std::string space_file;
};

int run_tune(TuneOptions o) {
  tune::SearchOptions& s = o.search;
  const tune::Space space = tune::load_space_file(o.space_file);
  if (!fs::is_regular_file(s.config_file)) throw UsageError(s.config_file + ": base config not found");
  // Absolute paths: a resumed search finds its trials from any working directory.
  s.config_file = fs::canonical(s.config_file).string();
  if (s.data != "synthetic") {
    if (!fs::exists(s.data)) throw UsageError(s.data + ": data not found");
    s.data = fs::canonical(s.data).string();
  }
  s.exe = fs::read_symlink("/proc/self/exe").string();
  s.log = [](const std::string& line) { std::cerr << line << "\n"; };
  tune::resolve_metric(s);
  tune::check_bounded(s);  // before the output folder is made
  std::optional<OutputLock> lock;
  if (!s.dry_run) {
    // One search per folder: a second would delete the trial folders the first is training.
    check_output_dir(s.out_dir, "--out");
    fs::create_directories(s.out_dir);
    lock.emplace(s.out_dir, "--out");
    // A tune killed while writing its own files (checksums.sha256, trials.csv) left their
    // temporaries; the trial folders clear theirs as each trial's train starts.
    remove_dead_writers_temporaries(s.out_dir);
  }
  const auto trials = tune::run_search(space, s);
  if (s.dry_run) return 0;
  const int b = tune::best_trial(trials);
  if (b < 0) {
    std::cerr << "tune: no trial finished; their logs are under " << s.out_dir << "/trials\n";
    return 1;
  }
  std::string values;
  for (const auto& [k, v] : trials[b].values) values += (values.empty() ? "" : ", ") + k + " = " + v;
  std::cout << "best of " << trials.size() << " trial(s): " << trials[b].name << ", " << s.metric << " "
            << fixed(trials[b].score, 4) << " (" << values << ")\n"
            << "wrote " << s.out_dir << "/{best.conf,trials.csv,summary.md}\n";
  return 0;
}

}  // namespace

void add_tune_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "tune",
      "random search over config keys, judged on a validation metric (--metric, default the config's\n"
      "train.select: val_rmse); writes best.conf (docs/tuning.md)\n"
      "  symgnn tune --data ../shared/data/monti/douban.mat --config configs/douban_lowrank.conf \\\n"
      "              --space configs/spaces/lowrank.space --budget 30 --out tune/douban\n"
      "  symgnn tune --data synthetic --config base.conf --space my.space --minutes 20 --jobs 2\n"
      "  symgnn train --data ../shared/data/monti/douban.mat --config tune/douban/best.conf --runs 5\n"
      "Space file lines: 'train.lr = loguniform 0.001 0.03', 'lowrank.hidden = choice 32|64',\n"
      "'lowrank.dropout = uniform 0 0.7', 'lowrank.layers = int 1 3'. Run again to resume: trials\n"
      "whose arguments and base config are unchanged are reused.");
  auto o = std::make_shared<TuneOptions>();
  tune::SearchOptions& s = o->search;
  cmd->add_option("--data", s.data, "dataset of every trial (as for train: synthetic, a directory or a file)")
      ->required();
  cmd->add_option("--config", s.config_file, "BASE config file every trial starts from")->required();
  cmd->add_option("--space", o->space_file, "search-space file ('key = choice|uniform|loguniform|int ...')")
      ->required();
  cmd->add_option("--budget", s.budget, "total number of trials")
      ->check(CLI::Range(int64_t{1}, int64_t{100000}));
  cmd->add_option("--minutes", s.minutes, "start no new trial after this many minutes (running ones finish)")
      ->check(finite_number(0));
  cmd->add_option("--out", s.out_dir, "output directory (default tune-out)");
  cmd->add_option("--seed", s.seed,
                  "seed of the search: trial i's values depend on (seed, i) only (default 1)");
  cmd->add_option("--jobs", s.jobs, "trials trained at once (default 1)")->check(CLI::Range(1, 64));
  cmd->add_option("--threads", s.threads, "threads per trial (default: cores / jobs)")
      ->check(CLI::Range(0, 1024));
  cmd->add_option("--split", s.split, "MovieLens-100K split of every trial (as for train)");
  cmd->add_option("--set", s.sets, "override a key of every trial, e.g. --set train.epochs=100 (repeatable)")
      ->type_name("KEY=VALUE");
  cmd->add_option("--metric", s.metric,
                  "validation metric the trials are judged on, a row of symgnn/metrics.h on val: val_rmse "
                  "or val_mae (lower is better), val_ndcg@10, val_recall@10, ... or their short names "
                  "ndcg@10, ... (higher is better; the trials must measure them: train.objective "
                  "ranking|joint or train.select on a ranking, or a closed-form ranking kind for "
                  "val_ndcg@10) (default: the BASE config's train.select)")
      ->check(CLI::IsMember(tune_metric_choices()));
  cmd->add_option("--runs", s.runs, "seeds per trial; the trial's score is their mean of --metric")
      ->check(CLI::Range(int64_t{1}, int64_t{1000}));
  cmd->add_flag("--dry-run", s.dry_run, "print the trials' commands; run nothing");
  cmd->callback([o, cmd] {
    o->search.command = "symgnn tune";
    for (const auto& opt : cmd->get_options()) {
      if (opt->count() == 0 || opt->get_name() == "--help") continue;
      for (const auto& v : opt->results())
        o->search.command += " " + opt->get_name() + (opt->get_expected_min() > 0 ? " " + v : "");
    }
    const int code = run_tune(*o);
    if (code != 0) throw CLI::RuntimeError(code);
  });
}

}  // namespace symgnn::cli
