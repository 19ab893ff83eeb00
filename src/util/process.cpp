#include "util/process.h"

#include <fcntl.h>
#include <spawn.h>
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
  {
    std::ofstream head(log_path);
    if (!head) throw Error(log_path + ": cannot open for writing");
    for (const auto& a : argv) head << a << " ";
    head << "\n";
  }
  std::vector<std::string> args = argv;  // posix_spawn takes char*, not const char*
  std::vector<char*> cargv;
  for (auto& a : args) cargv.push_back(a.data());
  cargv.push_back(nullptr);

  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, log_path.c_str(), O_WRONLY | O_APPEND, 0644);
  posix_spawn_file_actions_adddup2(&fa, 1, 2);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, args[0].c_str(), &fa, nullptr, cargv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) throw Error(argv[0] + ": cannot start (" + std::string(std::strerror(rc)) + ")");
  return pid;
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
