// Child processes for the commands that run `symgnn train` as workers (reproduce, tune):
// each child writes stdout and stderr to its own log file, and a pool keeps track of the
// children running at once and reaps them as they end.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace symgnn {

/// Forks and execs `exe` with `argv` and `envp` (null-terminated, built before the call: the
/// child only makes async-signal-safe calls), its stdout and stderr on `log_fd` (-1: this
/// process's). The child asks the kernel for `death_signal` when this process dies, before
/// it runs anything, so that no child outlives a parent killed outright. Returns the child's
/// pid, or -1 with errno set when fork fails.
pid_t fork_exec_tied(const char* exe, char* const argv[], char* const envp[], int log_fd, int death_signal);

/// Starts argv (argv[0]: the executable's path) with stdout and stderr appended to
/// `log_path`, whose first line becomes the command line. Throws Error when it cannot start.
pid_t spawn_logged(const std::vector<std::string>& argv, const std::string& log_path);

/// The children one command started, each known by a tag of the caller's choosing.
class ChildPool {
 public:
  struct Exit {
    size_t tag = 0;
    bool ok = false;     // exited normally with status 0
    int code = -1;       // exit status, or -signal when killed by one
    double seconds = 0;  // wall time from start() to exit
  };

  void start(size_t tag, const std::vector<std::string>& argv, const std::string& log_path);

  /// Blocks until one of this pool's children ends. Throws Error when none is running.
  /// It reaps any child of the process (waitpid(-1)): children started elsewhere in the
  /// process and ending meanwhile are reaped and ignored, so run one pool at a time.
  Exit wait();

  size_t running() const { return running_.size(); }

 private:
  using Clock = std::chrono::steady_clock;
  std::map<pid_t, std::pair<size_t, Clock::time_point>> running_;
};

/// The last `lines` lines of a text file among those keep(line) accepts (every line when
/// keep is empty); nothing when the file cannot be read.
std::vector<std::string> tail_lines(const std::string& path, size_t lines,
                                    const std::function<bool(const std::string&)>& keep = {});

}  // namespace symgnn
