#include "tune/search.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <thread>

#include "symgnn/config.h"
#include "symgnn/error.h"
#include "symgnn/metrics.h"
#include "symgnn/run_metrics.h"
#include "tune/report.h"
#include "util/atomic_file.h"
#include "util/checksum.h"
#include "util/child_run.h"
#include "util/json_text.h"
#include "util/process.h"
#include "util/strings.h"
#include "util/text.h"

namespace fs = std::filesystem;

namespace symgnn::tune {

std::string trial_name(int64_t number) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%04lld", static_cast<long long>(number));
  return buf;
}

std::vector<std::string> trial_args(const SearchOptions& o, const Values& values) {
  std::vector<std::string> a = {"--data", o.data, "--config", o.config_file};
  if (!o.split.empty()) a.insert(a.end(), {"--split", o.split});
  for (const auto& s : o.sets) a.insert(a.end(), {"--set", s});
  for (const auto& [k, v] : values) a.insert(a.end(), {"--set", k + "=" + v});  // last: they win
  if (o.runs > 0) a.insert(a.end(), {"--runs", std::to_string(o.runs)});
  // Only the model's own run: the synthetic-data comparison without graphs would double
  // the time and is not judged.
  a.push_back("--no-compare");
  return a;
}

std::string trial_spec(const SearchOptions& o, const Values& values) {
  std::ostringstream os;
  for (const auto& a : trial_args(o, values)) os << a << "\n";
  // The contents, not only the path: editing the BASE config reruns every trial.
  os << "--- " << o.config_file << "\n" << read_text_file(o.config_file);
  return os.str();
}

namespace {

using Clock = std::chrono::steady_clock;

/// The BASE config as every trial starts from it; checks what can be checked before any
/// trial runs.
RunConfig base_config(const Space& space, const SearchOptions& o) {
  check_bounded(o);
  if (o.exe.empty()) throw UsageError("tune: no symgnn executable to run");
  RunConfig cfg = start_config("", o.config_file);
  cfg.data.source = o.data;
  if (!o.split.empty()) set_config_value(cfg, "data.split", o.split, "--split");
  std::set<std::string> searched;
  for (const auto& p : space.params) searched.insert(p.key);
  for (const auto& s : o.sets) {
    apply_override(cfg, s);
    const std::string key = trim(s.substr(0, s.find('=')));
    if (searched.count(key))
      throw UsageError("--set " + s + ": " + key + " is searched by " + space.file + "; drop one of them");
  }
  check_config(cfg);
  if (cfg.data.val_fraction <= 0)
    throw UsageError("tune judges trials on the validation split: data.val_fraction must be above 0");
  return cfg;
}

double number(const nlohmann::json& j, const char* key) {
  return j.contains(key) && j[key].is_number() ? j[key].get<double>() : kNaN;
}

/// Reads the validation figures (and only those) of a finished trial; "" or why not.
std::string read_metrics(const std::string& dir, const std::string& metric, Trial& t) {
  RunMetrics m;
  try {
    m = RunMetrics::read(dir);
  } catch (const Error& e) {
    return "metrics.json unreadable (" + std::string(e.what()) + ")";
  }
  t.score = m.mean(metric);
  t.score_std = m.std_of(metric);
  t.loss = higher_is_better(metric) ? -t.score : t.score;
  t.best_epoch = number(m.figures, "best_epoch");
  if (!std::isfinite(t.score)) return "metrics.json has no " + metric;
  return "";
}

double recorded_seconds(const std::string& dir) {
  try {
    return number(nlohmann::json::parse(read_verified_file(dir + "/trial.json")), "seconds");
  } catch (const std::exception&) {
    return kNaN;
  }
}

/// The tail of a failed trial's log without the lines that report test figures ("test
/// RMSE", "test_ndcg@10": any row of symgnn/metrics.h, from runs that finished before the
/// failure): tune shows validation figures only.
std::vector<std::string> failure_tail(const std::string& log) {
  const auto keep = [](const std::string& l) {
    std::string lower = l;
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return std::tolower(c); });
    for (const MetricRow& m : kMetrics)
      for (const char* sep : {" ", "_"})
        if (lower.find(std::string("test") + sep + m.name) != std::string::npos) return false;
    return true;
  };
  return tail_lines(log, 5, keep);
}

std::string values_text(const Values& v) {
  std::string s;
  for (const auto& [k, x] : v) s += (s.empty() ? "" : ", ") + k + "=" + x;
  return s;
}

}  // namespace

void check_bounded(const SearchOptions& o) {
  if (o.budget <= 0 && o.minutes <= 0) throw UsageError("tune: give --budget N, --minutes M or both");
}

void resolve_metric(SearchOptions& o) {
  if (o.metric.empty()) {
    RunConfig cfg = start_config("", o.config_file);
    for (const auto& s : o.sets) apply_override(cfg, s);
    o.metric = selection_metric(cfg.train);
  }
  // A short name ("ndcg@10") is its validation figure: the only one tune reads.
  const MetricName m = parse_metric_name(o.metric);
  if (m.row && m.split.empty()) o.metric = "val_" + o.metric;
  if (!m.row || (m.split != "val" && !m.split.empty()))
    throw UsageError("--metric " + o.metric +
                     ": tune judges trials on the validation figures of symgnn/metrics.h only (val_rmse, "
                     "val_mae, val_ndcg@10, ...)");
}

std::vector<Trial> run_search(const Space& space, const SearchOptions& options) {
  SearchOptions o = options;
  resolve_metric(o);
  const RunConfig base = base_config(space, o);
  const std::string trials_dir = o.out_dir + "/trials";
  const int jobs = std::max(1, o.jobs);
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const int threads = o.threads > 0 ? o.threads : std::max(1, cores / jobs);

  auto make = [&](int64_t n) {
    Trial t;
    t.number = n;
    t.name = trial_name(n);
    t.values = sample_trial(space, o.seed, n);
    return t;
  };
  auto dir_of = [&](const Trial& t) { return trials_dir + "/" + t.name; };
  auto argv_of = [&](const Trial& t) {
    return child_train_argv(o.exe, trial_args(o, t.values), dir_of(t), threads);
  };
  // A finished trial of an earlier invocation, with its figures; false when it must run.
  auto reuse = [&](Trial& t) {
    const std::string dir = dir_of(t);
    if (!holds_finished_run(dir, trial_spec(o, t.values)) || !read_metrics(dir, o.metric, t).empty())
      return false;
    t.status = "cached";
    t.seconds = recorded_seconds(dir);
    return true;
  };

  int64_t cached = 0;
  if (o.budget > 0)
    for (int64_t n = 1; n <= o.budget; ++n) {
      Trial t = make(n);
      cached += reuse(t);
    }
  const auto say = [&](const std::string& line) {
    if (o.log) o.log(line);
  };
  say("tune: " + std::to_string(space.params.size()) + " key(s) from " + space.file + ", seed " +
      std::to_string(o.seed) + ", " +
      (o.budget > 0 ? std::to_string(o.budget) + " trial(s)" : std::string("trials")) +
      (o.minutes > 0 ? " for at most " + duration(o.minutes * 60) : std::string()) + " (" +
      std::to_string(cached) + " already done in " + trials_dir + "), " + std::to_string(jobs) +
      " job(s) x " + std::to_string(threads) + " thread(s)");
  if (o.dry_run) {
    const int64_t shown = o.budget > 0 ? o.budget : 10;
    for (int64_t n = 1; n <= shown; ++n) {
      Trial t = make(n);
      std::string line = "  " + t.name + (reuse(t) ? " (done)" : "") + ": " + o.exe + " train";
      for (const auto& a : trial_args(o, t.values)) line += " " + a;
      say(line);
    }
    if (o.budget <= 0) say("  ... and more until " + duration(o.minutes * 60) + " have passed");
    return {};
  }

  fs::create_directories(trials_dir);
  const auto start = Clock::now();
  const auto deadline =
      o.minutes > 0
          ? start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(o.minutes * 60))
          : Clock::time_point::max();
  std::vector<Trial> done;  // cached and finished, by number at the end
  std::map<size_t, Trial> running;
  ChildPool pool;
  int64_t next = 1;
  double ran_seconds = 0;
  int ran = 0;

  auto best_text = [&] {
    const int b = best_trial(done);
    return b < 0 ? std::string("none yet") : fixed(done[b].score, 4) + " (trial " + done[b].name + ")";
  };
  auto write = [&] {
    std::sort(done.begin(), done.end(), [](const Trial& a, const Trial& b) { return a.number < b.number; });
    write_outputs(space, done, o, base);
  };
  // Starts trials up to --jobs, reusing finished ones on the way, until the budget is
  // spent or the time is up.
  auto fill = [&] {
    while (pool.running() < size_t(jobs)) {
      if (o.budget > 0 && next > o.budget) return;
      Trial t = make(next++);
      if (reuse(t)) {
        done.push_back(std::move(t));
        continue;
      }
      // Reused trials cost nothing, so only new ones wait for the clock.
      if (Clock::now() >= deadline) {
        --next;
        return;
      }
      const std::string dir = dir_of(t);
      fs::remove_all(dir);  // a half-finished earlier attempt must not leak into this one
      fs::create_directories(dir);
      write_text_atomic(dir + "/spec.txt", trial_spec(o, t.values));
      pool.start(static_cast<size_t>(t.number), argv_of(t), dir + "/log.txt");
      say("  start " + t.name + ": " + values_text(t.values));
      running[static_cast<size_t>(t.number)] = std::move(t);
    }
  };

  fill();
  if (!done.empty()) write();
  while (pool.running() > 0) {
    const ChildPool::Exit e = pool.wait();
    Trial t = std::move(running.at(e.tag));
    running.erase(e.tag);
    const std::string dir = dir_of(t);
    t.seconds = e.seconds;
    std::string why;
    if (!e.ok)
      why = e.code < 0 ? "killed by signal " + std::to_string(-e.code)
                       : "exit status " + std::to_string(e.code);
    else if (!fs::exists(dir + "/metrics.json"))
      why = "no metrics.json";
    else
      why = read_metrics(dir, o.metric, t);
    t.status = why.empty() ? "ran" : "failed";
    if (!why.empty()) {
      t.error = why;
      t.log_tail = failure_tail(dir + "/log.txt");
    }
    write_text_atomic(
        dir + "/trial.json",
        json_text(nlohmann::json{{"trial", t.number}, {"status", t.status}, {"seconds", t.seconds}}, 2) +
            "\n");
    ran_seconds += e.seconds;
    ++ran;
    done.push_back(t);
    write();  // sorts `done`: t is the copy to print from below

    const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    const double per_trial = ran_seconds / ran;
    double eta = o.budget > 0
                     ? static_cast<double>(o.budget - static_cast<int64_t>(done.size())) * per_trial / jobs
                     : 1e300;
    if (o.minutes > 0)  // trials running at the deadline still finish
      eta = std::min(eta, std::max(0.0, o.minutes * 60 - elapsed) + (pool.running() > 0 ? per_trial : 0.0));
    say("[" + std::to_string(done.size()) + "/" +
        (o.budget > 0 ? std::to_string(o.budget) : std::string("?")) + "] " + t.name + ": " +
        (why.empty()
             ? o.metric + " " + fixed(t.score, 4) + (t.score_std > 0 ? " +- " + fixed(t.score_std, 4) : "")
             : "FAILED (" + why + ")") +
        " (" + duration(t.seconds) + ") | best " + best_text() + " | elapsed " + duration(elapsed) +
        ", ETA " + duration(eta));
    if (!why.empty()) {
      say("      log " + dir + "/log.txt:");
      for (const auto& l : t.log_tail) say("      | " + l);
    }
    fill();
  }
  write();
  return done;
}

}  // namespace symgnn::tune
