#include "util/process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <deque>
#include <fstream>

#include "symgnn/error.h"

extern char** environ;

namespace symgnn {

pid_t spawn_logged(const std::vector<std::string>& argv, const std::string& log_path) {
  if (argv.empty()) throw Error("spawn_logged: empty command");
  if (::access(argv[0].c_str(), X_OK) != 0)
    throw Error(argv[0] + ": cannot start (" + std::string(std::strerror(errno)) + ")");
  {
    std::ofstream head(log_path);
    if (!head) throw Error(log_path + ": cannot open for writing");
    for (const auto& a : argv) head << a << " ";
    head << "\n";
  }
  std::vector<std::string> args = argv;  // execv takes char*, not const char*
  std::vector<char*> cargv;
  for (auto& a : args) cargv.push_back(a.data());
  cargv.push_back(nullptr);
  const int log_fd = ::open(log_path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
  if (log_fd < 0) throw Error(log_path + ": cannot open for writing (" + std::strerror(errno) + ")");
  // Tied to this process rather than posix_spawn'd: a `tune` or `reproduce` killed outright
  // (kill -9 included) leaves no `train` behind writing into the folder the next run will
  // clean. SIGTERM lets the child remove its temporaries (cli/main.cpp).
  const pid_t pid = fork_exec_tied(cargv[0], cargv.data(), environ, log_fd, SIGTERM);
  const int err = errno;
  ::close(log_fd);
  if (pid < 0) throw Error(argv[0] + ": cannot start (" + std::string(std::strerror(err)) + ")");
  return pid;
}

pid_t fork_exec_tied(const char* exe, char* const argv[], char* const envp[], int log_fd, int death_signal) {
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid != 0) return pid;
  ::prctl(PR_SET_PDEATHSIG, death_signal);
  if (::getppid() != parent) ::_exit(1);  // the parent died before prctl
  if (log_fd >= 0) {
    ::dup2(log_fd, STDOUT_FILENO);
    ::dup2(log_fd, STDERR_FILENO);
  }
  ::execve(exe, argv, envp);
  ::_exit(127);
}

void ChildPool::start(size_t tag, const std::vector<std::string>& argv, const std::string& log_path) {
  const pid_t pid = spawn_logged(argv, log_path);
  running_[pid] = {tag, Clock::now()};
}

ChildPool::Exit ChildPool::wait() {
  if (running_.empty()) throw Error("ChildPool::wait: no child is running");
  for (;;) {
    int status = 0;
    const pid_t pid = ::waitpid(-1, &status, 0);
    if (pid < 0) {
      if (errno == EINTR) continue;
      throw Error(std::string("waitpid failed (") + std::strerror(errno) + ")");
    }
    const auto it = running_.find(pid);
    if (it == running_.end()) continue;  // not one of ours
    Exit e;
    e.tag = it->second.first;
    e.seconds = std::chrono::duration<double>(Clock::now() - it->second.second).count();
    e.code = WIFEXITED(status) ? WEXITSTATUS(status) : WIFSIGNALED(status) ? -WTERMSIG(status) : -1;
    e.ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    running_.erase(it);
    return e;
  }
}

std::vector<std::string> tail_lines(const std::string& path, size_t lines,
                                    const std::function<bool(const std::string&)>& keep) {
  std::ifstream in(path);
  std::deque<std::string> last;
  for (std::string l; std::getline(in, l);) {
    if (keep && !keep(l)) continue;
    last.push_back(l);
    if (last.size() > lines) last.pop_front();
  }
  return {last.begin(), last.end()};
}

}  // namespace symgnn
