// `symgnn serve` as a user runs it: a child process on a free port of 127.0.0.1, reloaded
// by SIGHUP, stopped by SIGTERM with exit code 0, and refusing a bad model directory with
// exit code 2 and one line.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <thread>

#include "common/test_support.h"
#include "serve/serve_test_model.h"
#include "symgnn/fit.h"

namespace st = symgnn::testing;
using nlohmann::json;
using Clock = std::chrono::steady_clock;

namespace {

std::string model_dir() {
  static const std::string dir = st::serve_test_model("ease");
  return dir;
}

/// Starts `symgnn serve ARGS` with stderr to `log`; returns the child's pid.
pid_t start(const std::vector<std::string>& args, const std::string& log) {
  const pid_t pid = fork();
  if (pid == 0) {
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(fd, 2);
    dup2(fd, 1);
    std::vector<std::string> all = {st::symgnn_binary(), "serve"};
    all.insert(all.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& a : all) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    _exit(127);
  }
  return pid;
}

/// The port the child printed, waiting at most 60 s; -1 when it did not.
int port_of(const std::string& log) {
  const std::regex listening("listening on http://127\\.0\\.0\\.1:([0-9]+)");
  for (const auto until = Clock::now() + std::chrono::seconds(60); Clock::now() < until;) {
    std::smatch m;
    const std::string text = st::read_file(log);
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

}  // namespace

TEST(ServeProcess, ReloadsOnSighupAndExitsZeroOnSigterm) {
  const std::string dir = st::scratch_dir("serve_process_run");
  const std::string log = dir + "/serve.log";
  const pid_t pid = start({"--model", "m=" + model_dir(), "--port", "0", "--threads", "2"}, log);
  const int port = port_of(log);
  ASSERT_GT(port, 0) << st::read_file(log);
  httplib::Client c("127.0.0.1", port);
  auto health = c.Get("/healthz");
  ASSERT_TRUE(health);
  EXPECT_EQ(json::parse(health->body)["models"][0]["version"], 1);
  kill(pid, SIGHUP);
  int version = 1;
  for (const auto until = Clock::now() + std::chrono::seconds(60); version < 2 && Clock::now() < until;) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    if (auto h = c.Get("/healthz")) version = json::parse(h->body)["models"][0]["version"].get<int>();
  }
  EXPECT_EQ(version, 2) << st::read_file(log);
  kill(pid, SIGTERM);
  EXPECT_EQ(exit_code(pid), 0) << st::read_file(log);
  EXPECT_NE(st::read_file(log).find("serve: stopped"), std::string::npos) << st::read_file(log);
}

TEST(ServeProcess, RefusesABadModelDirectoryWithOneLine) {
  const std::string dir = st::scratch_dir("serve_process_bad");
  const std::string log = dir + "/serve.log";
  const pid_t pid = start({"--model", dir + "/absent", "--port", "0"}, log);
  EXPECT_EQ(exit_code(pid), 2);
  const std::string text = st::read_file(log);
  EXPECT_NE(text.find("absent"), std::string::npos) << text;
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 1) << text;
  const pid_t twice = start({"--model", "a=" + model_dir(), "--model", "a=" + model_dir()}, log);
  EXPECT_EQ(exit_code(twice), 2) << st::read_file(log);
}
