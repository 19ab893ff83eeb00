#include "common/serve_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <regex>
#include <thread>

#include "common/test_support.h"

namespace symgnn::testing {

using Clock = std::chrono::steady_clock;

pid_t start_serve(const std::vector<std::string>& args, const std::string& log) {
  const pid_t pid = fork();
  if (pid == 0) {
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(fd, 2);
    dup2(fd, 1);
    std::vector<std::string> all = {symgnn_binary(), "serve"};
    all.insert(all.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& a : all) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    _exit(127);
  }
  return pid;
}

int serve_port(const std::string& log) {
  const std::regex listening("listening on http://127\\.0\\.0\\.1:([0-9]+)");
  for (const auto until = Clock::now() + std::chrono::seconds(60); Clock::now() < until;) {
    std::smatch m;
    const std::string text = read_file(log);
    if (std::regex_search(text, m, listening)) return std::stoi(m[1]);
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return -1;
}

int exit_code(pid_t pid) {
  int status = 0;
  for (const auto until = Clock::now() + std::chrono::seconds(60); Clock::now() < until;) {
    if (waitpid(pid, &status, WNOHANG) == pid)
      return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  kill(pid, SIGKILL);
  waitpid(pid, &status, 0);
  return -1;
}

}  // namespace symgnn::testing
