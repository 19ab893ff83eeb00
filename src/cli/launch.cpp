#include "cli/launch.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <sstream>
#include <thread>

#include "symgnn/error.h"
#include "util/process.h"

extern char** environ;

namespace symgnn::cli {

namespace {

std::vector<std::string>& process_arguments() {
  static std::vector<std::string> args;
  return args;
}

/// The ranks' process ids, for the signal handler (async-signal-safe reads only).
constexpr int kMaxRanks = 1024;
volatile pid_t g_children[kMaxRanks];
volatile int g_count = 0;
volatile sig_atomic_t g_signal = 0;

extern "C" void forward_signal(int sig) {
  g_signal = sig;
  for (int k = 0; k < g_count; ++k)
    if (g_children[k] > 0) ::kill(g_children[k], sig);
}

/// A TCP port free on 127.0.0.1 now (the kernel's pick); rank 0 binds it moments later.
int free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) throw Error(std::string("train --nproc: cannot open a socket: ") + std::strerror(errno));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  socklen_t len = sizeof(addr);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    const int e = errno;
    ::close(fd);
    throw Error(std::string("train --nproc: no free port on 127.0.0.1: ") + std::strerror(e));
  }
  ::close(fd);
  return ntohs(addr.sin_port);
}

/// The recorded arguments without --nproc and --threads (the launcher sets the threads).
std::vector<std::string> rank_arguments(int64_t threads) {
  std::vector<std::string> out;
  const auto& in = process_arguments();
  for (size_t k = 1; k < in.size(); ++k) {
    const std::string& a = in[k];
    if (a == "--nproc" || a == "--threads") {
      ++k;  // and its value
      continue;
    }
    if (a.rfind("--nproc=", 0) == 0 || a.rfind("--threads=", 0) == 0) continue;
    out.push_back(a);
  }
  out.push_back("--threads");
  out.push_back(std::to_string(threads));
  return out;
}

/// The exit code a shell would report for a wait status.
int exit_code(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 1;
}

struct Rank {
  pid_t pid = -1;
  int log = -1;  // the captured output of ranks > 0, an unlinked file; -1 for rank 0 (the terminal's)
  bool done = false;
  int code = 0;  // exit code, once done
};

/// Starts rank `r` of `n` with torchrun's variables added to this process's environment.
Rank spawn(int64_t r, int64_t n, int port, const std::vector<std::string>& args) {
  std::vector<std::string> env_text;
  const char* const ours[] = {
      "MASTER_ADDR=", "MASTER_PORT=", "RANK=", "WORLD_SIZE=", "LOCAL_RANK=", "LOCAL_WORLD_SIZE="};
  for (char** e = environ; *e; ++e) {
    bool replaced = false;
    for (const char* p : ours) replaced |= std::strncmp(*e, p, std::strlen(p)) == 0;
    if (!replaced) env_text.emplace_back(*e);
  }
  env_text.push_back("MASTER_ADDR=127.0.0.1");
  env_text.push_back("MASTER_PORT=" + std::to_string(port));
  env_text.push_back("RANK=" + std::to_string(r));
  env_text.push_back("WORLD_SIZE=" + std::to_string(n));
  env_text.push_back("LOCAL_RANK=" + std::to_string(r));
  env_text.push_back("LOCAL_WORLD_SIZE=" + std::to_string(n));
  // Everything exec needs is built before fork: the child only calls async-signal-safe
  // functions.
  std::vector<char*> envp, argv;
  for (auto& e : env_text) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::string exe = "/proc/self/exe", name = process_arguments().front();
  std::vector<std::string> args_copy = args;
  argv.push_back(name.data());
  for (auto& a : args_copy) argv.push_back(a.data());
  argv.push_back(nullptr);
  Rank rank;
  int log_fd = -1;
  if (r > 0) {
    std::string tmpl = (std::filesystem::temp_directory_path() / "symgnn-rank-XXXXXX").string();
    log_fd = ::mkostemp(tmpl.data(), O_CLOEXEC);
    if (log_fd < 0) throw Error("train --nproc: cannot create " + tmpl + ": " + std::strerror(errno));
    // Unlinked at once: the launcher reads it through the descriptor, and nothing is left in
    // the temporary folder when the launcher is killed outright.
    ::unlink(tmpl.c_str());
    rank.log = log_fd;
  }
  // A launcher killed outright takes its ranks with it.
  const pid_t pid = fork_exec_tied(exe.c_str(), argv.data(), envp.data(), log_fd, SIGKILL);
  if (pid < 0) throw Error(std::string("train --nproc: cannot start a process: ") + std::strerror(errno));
  rank.pid = pid;
  return rank;
}

/// Prints a failed rank's captured output, each line prefixed with its rank.
void print_log(int64_t r, int fd) {
  std::string text;
  char buf[4096];
  for (off_t at = 0;;) {
    const ssize_t n = ::pread(fd, buf, sizeof buf, at);
    if (n <= 0) break;
    text.append(buf, static_cast<size_t>(n));
    at += n;
  }
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) std::cerr << "rank " << r << ": " << line << "\n";
}

}  // namespace

void set_process_arguments(int argc, const char* const* argv) {
  auto& args = process_arguments();
  args.assign(argv, argv + argc);
}

int launch_ranks(int64_t nproc, int64_t threads, const std::string& out_dir) {
  if (process_arguments().empty())
    throw ConfigError(
        "--nproc starts symgnn processes and needs the symgnn command (not an in-process call)");
  if (nproc > kMaxRanks)
    throw ConfigError("--nproc " + std::to_string(nproc) + ": at most " + std::to_string(kMaxRanks));
  const std::vector<std::string> args = rank_arguments(threads);
  const int port = free_port();

  // Until the ranks are reaped, a signal to the launcher goes to each of them.
  struct sigaction forward {
  }, old_int{}, old_term{}, old_hup{};
  forward.sa_handler = forward_signal;
  sigemptyset(&forward.sa_mask);
  ::sigaction(SIGINT, &forward, &old_int);
  ::sigaction(SIGTERM, &forward, &old_term);
  ::sigaction(SIGHUP, &forward, &old_hup);

  std::vector<Rank> ranks;
  g_count = 0;
  for (int64_t r = 0; r < nproc; ++r) {
    ranks.push_back(spawn(r, nproc, port, args));
    g_children[r] = ranks.back().pid;
    g_count = static_cast<int>(r + 1);
  }

  using Clock = std::chrono::steady_clock;
  int first_failure = 0;
  int64_t failed_rank = -1;
  auto term_at = Clock::time_point::max(), stop_deadline = Clock::time_point::max();
  size_t running = ranks.size();
  while (running > 0) {
    int status = 0;
    const pid_t pid = ::waitpid(-1, &status, WNOHANG);
    if (pid <= 0) {
      const auto now = Clock::now();
      if (now > term_at) {
        // The others cannot finish without the failed rank: stop them (they remove their
        // temporaries on SIGTERM), then kill what is left after 10 s (a rank stuck in a
        // collective with a dead peer).
        for (const auto& r : ranks)
          if (!r.done) ::kill(r.pid, SIGTERM);
        term_at = Clock::time_point::max();
        stop_deadline = now + std::chrono::seconds(10);
      }
      if (now > stop_deadline)
        for (const auto& r : ranks)
          if (!r.done) ::kill(r.pid, SIGKILL);
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      continue;
    }
    for (size_t k = 0; k < ranks.size(); ++k) {
      if (ranks[k].pid != pid) continue;
      ranks[k].done = true;
      g_children[k] = -1;
      --running;
      const int code = exit_code(status);
      ranks[k].code = code;
      if (code != 0 && first_failure == 0) {
        first_failure = code;
        failed_rank = static_cast<int64_t>(k);
        // Bad input (exit 2) is usually every rank's: rank 0 gets 5 s to refuse it too and
        // say so itself, rather than be stopped mid-sentence.
        term_at = Clock::now() + std::chrono::seconds(k > 0 && code == 2 && !ranks[0].done ? 5 : 0);
      }
    }
  }
  g_count = 0;
  ::sigaction(SIGINT, &old_int, nullptr);
  ::sigaction(SIGTERM, &old_term, nullptr);
  ::sigaction(SIGHUP, &old_hup, nullptr);

  // The failed rank's words, unless rank 0 refused the same input itself (exit 2 both: every
  // rank reads the same files) and has said it already.
  const Rank& failed = ranks[static_cast<size_t>(std::max<int64_t>(failed_rank, 0))];
  if (failed_rank > 0 && g_signal == 0 && !(ranks[0].code == 2 && failed.code == 2))
    print_log(failed_rank, failed.log);
  for (const auto& r : ranks)
    if (r.log >= 0) ::close(r.log);
  if (g_signal != 0) {
    // Die of the signal that stopped the ranks, as a single process would.
    const int sig = g_signal;
    ::signal(sig, SIG_DFL);
    ::raise(sig);
  }
  if (failed_rank >= 0 && first_failure > 128 && first_failure < 128 + 64)
    std::cerr << "symgnn: error: rank " << failed_rank << " of " << nproc << " was killed by signal "
              << first_failure - 128 << "; the others were stopped"
              << (out_dir.empty() ? std::string()
                                  : " (continue with train --resume " + out_dir + " --nproc " +
                                        std::to_string(nproc) + ")")
              << "\n";
  return first_failure;
}

}  // namespace symgnn::cli
