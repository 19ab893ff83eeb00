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
#include <vector>

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

// docs/reliability.md, "One server per port": a second server on a port already served is
// refused in one line (exit 2), and the first keeps answering alone.
TEST(ServeProcess, ASecondServerOnAServedPortIsRefused) {
  const std::string dir = st::scratch_dir("serve_process_twice");
  const pid_t first =
      start({"--model", "m=" + model_dir(), "--port", "0", "--threads", "2"}, dir + "/first.log");
  const int port = port_of(dir + "/first.log");
  ASSERT_GT(port, 0) << st::read_file(dir + "/first.log");
  const pid_t second =
      start({"--model", "m=" + model_dir(), "--port", std::to_string(port)}, dir + "/second.log");
  EXPECT_EQ(exit_code(second), 2) << st::read_file(dir + "/second.log");
  const std::string text = st::read_file(dir + "/second.log");
  EXPECT_NE(text.find("cannot listen on 127.0.0.1:" + std::to_string(port)), std::string::npos) << text;
  httplib::Client c("127.0.0.1", port);
  EXPECT_TRUE(c.Get("/healthz"));
  kill(first, SIGTERM);
  EXPECT_EQ(exit_code(first), 0) << st::read_file(dir + "/first.log");
}

// 64 clients connecting at the same moment to a server of 2 workers: each is queued and
// answered (the library's own listen backlog of 5 reset some of 32).
TEST(ServeProcess, ManyClientsConnectingAtOnceAreAllAnswered) {
  const std::string dir = st::scratch_dir("serve_process_burst");
  const pid_t pid =
      start({"--model", "m=" + model_dir(), "--port", "0", "--threads", "2"}, dir + "/serve.log");
  const int port = port_of(dir + "/serve.log");
  ASSERT_GT(port, 0) << st::read_file(dir + "/serve.log");
  constexpr int kClients = 64;
  std::vector<int> status(kClients, 0);
  std::vector<std::thread> clients;
  for (int i = 0; i < kClients; ++i)
    clients.emplace_back([&, i] {
      httplib::Client c("127.0.0.1", port);
      c.set_connection_timeout(30);
      c.set_read_timeout(30);
      if (auto r = c.Get("/healthz")) status[static_cast<size_t>(i)] = r->status;
    });
  for (std::thread& t : clients) t.join();
  EXPECT_EQ(std::count(status.begin(), status.end(), 200), kClients);
  kill(pid, SIGTERM);
  EXPECT_EQ(exit_code(pid), 0) << st::read_file(dir + "/serve.log");
}

// docs/reliability.md, "One server per port, and every connection answered": worker
// threads that cannot be made (here 1024 of them, 8 MiB of stack each, under a 2.5 GB
// address space) are one line before "listening", exit 2, not a server that never answers.
TEST(ServeProcess, WorkerThreadsThatCannotStartAreOneLineBeforeListening) {
  const std::string dir = st::scratch_dir("serve_process_threads");
  const std::string log = dir + "/serve.log";
  const std::string command = "ulimit -v 2500000; exec '" + st::symgnn_binary() +
                              "' serve --model m=" + model_dir() + " --port 0 --threads 1024 > '" + log +
                              "' 2>&1";
  const pid_t pid = fork();
  if (pid == 0) {
    execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  EXPECT_EQ(exit_code(pid), 2) << st::read_file(log);
  const std::string text = st::read_file(log);
  EXPECT_NE(text.find("cannot start 1024 worker threads"), std::string::npos) << text;
  EXPECT_EQ(text.find("listening"), std::string::npos) << text;
}
