#include "reproduce/runner.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <thread>

#include "reproduce/results.h"
#include "reproduce/text.h"
#include "symgnn/error.h"
#include "util/atomic_file.h"

extern char** environ;

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

bool is_cached(const Cell& c, const std::string& dir) {
  return fs::exists(dir + "/metrics.json") && fs::exists(dir + "/spec.txt") &&
         read_text_file(dir + "/spec.txt") == cell_spec(c);
}

/// "test 0.9250 +- 0.0020" from the cell's metrics (load_cell reads them for the report too).
std::string summary_of(const std::string& runs_dir, const std::string& name) {
  const CellResult c = load_cell(runs_dir, name);
  if (!c.ok) return "metrics unreadable";
  std::string s = "test " + fixed(c.mean, 4);
  if (c.seeds.size() > 1) s += " +- " + fixed(c.std, 4);
  return s;
}

std::string log_tail(const std::string& path, int lines) {
  std::ifstream in(path);
  std::vector<std::string> all;
  for (std::string l; std::getline(in, l);) all.push_back(l);
  std::string out;
  for (size_t i = all.size() > size_t(lines) ? all.size() - lines : 0; i < all.size(); ++i)
    out += "      | " + all[i] + "\n";
  return out;
}

/// Starts `exe train args... --out dir --threads t` with stdout and stderr in dir/log.txt.
pid_t spawn_cell(const Cell& c, const std::string& dir, const RunnerOptions& o, int threads) {
  std::vector<std::string> argv = {o.exe, "train"};
  argv.insert(argv.end(), c.args.begin(), c.args.end());
  argv.insert(argv.end(), {"--threads", std::to_string(threads), "--progress", "lines", "--metrics-out",
                           dir + "/metrics.json"});
  if (c.model != "sylvester") argv.insert(argv.end(), {"--out", dir});
  std::vector<char*> cargv;
  for (auto& a : argv) cargv.push_back(a.data());
  cargv.push_back(nullptr);

  const std::string log = dir + "/log.txt";
  {
    std::ofstream head(log);
    for (const auto& a : argv) head << a << " ";
    head << "\n";
  }
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, log.c_str(), O_WRONLY | O_APPEND, 0644);
  posix_spawn_file_actions_adddup2(&fa, 1, 2);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, o.exe.c_str(), &fa, nullptr, cargv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) throw Error(o.exe + ": cannot start (" + std::string(std::strerror(rc)) + ")");
  return pid;
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
    if (!o.force && is_cached(c, dir)) {
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
  std::cerr << "reproduce: " << plan.cells.size() << " cells, " << plan.cells.size() - todo.size()
            << " cached, " << todo.size() << " to run (estimated " << duration(todo_estimate / jobs) << " at "
            << jobs << " job(s) x " << threads << " thread(s))\n";
  if (o.dry_run) {
    for (size_t i : todo) {
      std::cerr << "  " << o.exe << " train";
      for (const auto& a : plan.cells[i].args) std::cerr << " " << a;
      std::cerr << "\n";
    }
    return out;
  }

  const auto start = Clock::now();
  double done_estimate = 0, done_actual = 0, remaining = todo_estimate;
  size_t next = 0, finished = 0;
  std::map<pid_t, std::pair<size_t, Clock::time_point>> running;
  auto launch = [&](size_t i) {
    const Cell& c = plan.cells[i];
    const std::string dir = o.runs_dir + "/" + c.name;
    fs::remove_all(dir);  // a half-finished earlier attempt must not leak into this one
    fs::create_directories(dir);
    write_text_atomic(dir + "/spec.txt", cell_spec(c));
    const pid_t pid = spawn_cell(c, dir, o, threads);
    running[pid] = {i, Clock::now()};
    std::cerr << "  start " << c.name << " (estimate " << duration(c.estimate_seconds) << ")\n";
  };
  while (finished < todo.size()) {
    while (running.size() < size_t(jobs) && next < todo.size()) launch(todo[next++]);
    int status = 0;
    const pid_t pid = ::waitpid(-1, &status, 0);
    if (pid < 0) {
      if (errno == EINTR) continue;
      throw Error(std::string("reproduce: waitpid failed (") + std::strerror(errno) + ")");
    }
    auto it = running.find(pid);
    if (it == running.end()) continue;
    const size_t i = it->second.first;
    const double secs = std::chrono::duration<double>(Clock::now() - it->second.second).count();
    running.erase(it);
    ++finished;
    const Cell& c = plan.cells[i];
    const std::string dir = o.runs_dir + "/" + c.name;
    const bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0 && fs::exists(dir + "/metrics.json");
    out[i].status = ok ? "ran" : "failed";
    out[i].seconds = secs;
    done_estimate += c.estimate_seconds;
    done_actual += secs;
    remaining -= c.estimate_seconds;
    const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    const double eta = remaining * (done_actual / std::max(1e-9, done_estimate)) / jobs;
    std::cerr << "[" << finished << "/" << todo.size() << "] " << c.name << ": "
              << (ok ? summary_of(o.runs_dir, c.name) : "FAILED") << " (" << duration(secs) << ") | elapsed "
              << duration(elapsed) << ", ETA " << duration(eta) << "\n";
    if (!ok) std::cerr << "      log " << out[i].log << ":\n" << log_tail(out[i].log, 5);
  }
  return out;
}

}  // namespace symgnn::reproduce
