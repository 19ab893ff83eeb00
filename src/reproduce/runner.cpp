#include "reproduce/runner.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <sstream>
#include <thread>

#include "reproduce/results.h"
#include "symgnn/error.h"
#include "util/atomic_file.h"
#include "util/checksum.h"
#include "util/child_run.h"
#include "util/process.h"
#include "util/text.h"

namespace fs = std::filesystem;

namespace symgnn::reproduce {

std::string cell_spec(const Cell& c) {
  std::ostringstream os;
  for (const auto& a : c.args) os << a << "\n";
  // The config contents, not only their paths: editing a tuned config reruns its cells.
  for (const auto& f : c.config_files) os << "--- " << f << "\n" << read_text_file(f);
  return os.str();
}

namespace {

using Clock = std::chrono::steady_clock;

/// "test 0.9250 +- 0.0020" from the cell's metrics (load_cell reads them for the report too).
std::string summary_of(const std::string& runs_dir, const std::string& name) {
  const CellResult c = load_cell(runs_dir, name);
  if (!c.ok) return "metrics unreadable";
  std::string s = "test " + fixed(c.mean, 4);
  if (c.seeds.size() > 1) s += " +- " + fixed(c.std, 4);
  return s;
}

std::vector<std::string> log_tail(const std::string& path, int lines) {
  std::vector<std::string> out;
  for (const auto& l : tail_lines(path, static_cast<size_t>(lines))) out.push_back("      | " + l);
  return out;
}

}  // namespace

std::vector<CellOutcome> run_plan(const Plan& plan, const RunnerOptions& o) {
  std::vector<CellOutcome> out(plan.cells.size());
  std::vector<size_t> todo;
  double todo_estimate = 0;
  for (size_t i = 0; i < plan.cells.size(); ++i) {
    const Cell& c = plan.cells[i];
    const std::string dir = o.runs_dir + "/" + c.name;
    out[i].name = c.name;
    out[i].log = dir + "/log.txt";
    if (!o.force && holds_finished_run(dir, cell_spec(c))) {
      out[i].status = "cached";
    } else {
      out[i].status = "planned";
      todo.push_back(i);
      todo_estimate += c.estimate_seconds;
    }
  }
  const int jobs = std::max(1, o.jobs);
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const int threads = o.threads > 0 ? o.threads : std::max(1, cores / jobs);
  const auto say = [&](const std::string& line) {
    if (o.log) o.log(line);
  };
  say("reproduce: " + std::to_string(plan.cells.size()) + " cells, " +
      std::to_string(plan.cells.size() - todo.size()) + " cached, " + std::to_string(todo.size()) +
      " to run (estimated " + duration(todo_estimate / jobs) + " at " + std::to_string(jobs) + " job(s) x " +
      std::to_string(threads) + " thread(s))");
  if (o.dry_run) {
    for (size_t i : todo) {
      std::string line = "  " + o.exe + " train";
      for (const auto& a : plan.cells[i].args) line += " " + a;
      say(line);
    }
    return out;
  }

  const auto start = Clock::now();
  double done_estimate = 0, done_actual = 0, remaining = todo_estimate;
  size_t next = 0, finished = 0;
  ChildPool pool;
  auto launch = [&](size_t i) {
    const Cell& c = plan.cells[i];
    const std::string dir = o.runs_dir + "/" + c.name;
    fs::remove_all(dir);  // a half-finished earlier attempt must not leak into this one
    fs::create_directories(dir);
    write_text_atomic(dir + "/spec.txt", cell_spec(c));
    pool.start(i, child_train_argv(o.exe, c.args, dir, threads), dir + "/log.txt");
    say("  start " + c.name + " (estimate " + duration(c.estimate_seconds) + ")");
  };
  while (finished < todo.size()) {
    while (pool.running() < size_t(jobs) && next < todo.size()) launch(todo[next++]);
    const ChildPool::Exit e = pool.wait();
    const size_t i = e.tag;
    const double secs = e.seconds;
    ++finished;
    const Cell& c = plan.cells[i];
    const std::string dir = o.runs_dir + "/" + c.name;
    const bool ok = e.ok && fs::exists(dir + "/metrics.json");
    out[i].status = ok ? "ran" : "failed";
    out[i].seconds = secs;
    done_estimate += c.estimate_seconds;
    done_actual += secs;
    remaining -= c.estimate_seconds;
    const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    // The estimates are scaled by how long the finished cells took against theirs, pulled
    // toward 1 until ten minutes of estimated work has finished: one short cell that ran
    // 3x over its estimate must not triple the ETA of a three-hour sweep.
    constexpr double kPriorSeconds = 600;
    const double scale = (done_actual + kPriorSeconds) / (done_estimate + kPriorSeconds);
    const double eta = std::max(0.0, remaining) * scale / jobs;
    say("[" + std::to_string(finished) + "/" + std::to_string(todo.size()) + "] " + c.name + ": " +
        (ok ? summary_of(o.runs_dir, c.name) : std::string("FAILED")) + " (" + duration(secs) +
        ") | elapsed " + duration(elapsed) + ", ETA " + duration(eta));
    if (!ok) {
      say("      log " + out[i].log + ":");
      for (const std::string& l : log_tail(out[i].log, 5)) say(l);
    }
  }
  return out;
}

}  // namespace symgnn::reproduce
