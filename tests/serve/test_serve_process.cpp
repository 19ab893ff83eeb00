// `symgnn serve` as a user runs it: a child process on a free port of 127.0.0.1, reloaded
// by SIGHUP, stopped by SIGTERM with exit code 0, and refusing a bad model directory with
// exit code 2 and one line.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "common/serve_process.h"
#include "common/test_support.h"
#include "serve/serve_test_model.h"
#include "symgnn/fit.h"
#include "symgnn/graph_edit.h"
#include "symgnn/trained_model.h"

namespace st = symgnn::testing;
using nlohmann::json;
using Clock = std::chrono::steady_clock;

namespace {

std::string model_dir() {
  static const std::string dir = st::serve_test_model("ease");
  return dir;
}

}  // namespace

TEST(ServeProcess, ReloadsOnSighupAndExitsZeroOnSigterm) {
  const std::string dir = st::scratch_dir("serve_process_run");
  const std::string log = dir + "/serve.log";
  const pid_t pid = st::start_serve({"--model", "m=" + model_dir(), "--port", "0", "--threads", "2"}, log);
  const int port = st::serve_port(log);
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
  EXPECT_EQ(st::exit_code(pid), 0) << st::read_file(log);
  EXPECT_NE(st::read_file(log).find("serve: stopped"), std::string::npos) << st::read_file(log);
}

TEST(ServeProcess, RefusesABadModelDirectoryWithOneLine) {
  const std::string dir = st::scratch_dir("serve_process_bad");
  const std::string log = dir + "/serve.log";
  const pid_t pid = st::start_serve({"--model", dir + "/absent", "--port", "0"}, log);
  EXPECT_EQ(st::exit_code(pid), 2);
  const std::string text = st::read_file(log);
  EXPECT_NE(text.find("absent"), std::string::npos) << text;
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 1) << text;
  const pid_t twice = st::start_serve({"--model", "a=" + model_dir(), "--model", "a=" + model_dir()}, log);
  EXPECT_EQ(st::exit_code(twice), 2) << st::read_file(log);
}

// docs/reliability.md, "One server per port": a second server on a port already served is
// refused in one line (exit 2), and the first keeps answering alone.
TEST(ServeProcess, ASecondServerOnAServedPortIsRefused) {
  const std::string dir = st::scratch_dir("serve_process_twice");
  const pid_t first =
      st::start_serve({"--model", "m=" + model_dir(), "--port", "0", "--threads", "2"}, dir + "/first.log");
  const int port = st::serve_port(dir + "/first.log");
  ASSERT_GT(port, 0) << st::read_file(dir + "/first.log");
  const pid_t second =
      st::start_serve({"--model", "m=" + model_dir(), "--port", std::to_string(port)}, dir + "/second.log");
  EXPECT_EQ(st::exit_code(second), 2) << st::read_file(dir + "/second.log");
  const std::string text = st::read_file(dir + "/second.log");
  EXPECT_NE(text.find("cannot listen on 127.0.0.1:" + std::to_string(port)), std::string::npos) << text;
  httplib::Client c("127.0.0.1", port);
  EXPECT_TRUE(c.Get("/healthz"));
  kill(first, SIGTERM);
  EXPECT_EQ(st::exit_code(first), 0) << st::read_file(dir + "/first.log");
}

// 64 clients connecting at the same moment to a server of 2 workers: each is queued and
// answered (the library's own listen backlog of 5 reset some of 32).
TEST(ServeProcess, ManyClientsConnectingAtOnceAreAllAnswered) {
  const std::string dir = st::scratch_dir("serve_process_burst");
  const pid_t pid =
      st::start_serve({"--model", "m=" + model_dir(), "--port", "0", "--threads", "2"}, dir + "/serve.log");
  const int port = st::serve_port(dir + "/serve.log");
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
  EXPECT_EQ(st::exit_code(pid), 0) << st::read_file(dir + "/serve.log");
}

// docs/reliability.md, "One server per port, and every connection answered": worker
// threads that cannot be made (here 1024 of them, 8 MiB of stack each, under a 2.5 GB
// address space) are one line before "listening", exit 2, not a server that never answers.
TEST(ServeProcess, WorkerThreadsThatCannotStartAreOneLineBeforeListening) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "AddressSanitizer reserves terabytes of address space: ulimit -v cannot apply";
#endif
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
  EXPECT_EQ(st::exit_code(pid), 2) << st::read_file(log);
  const std::string text = st::read_file(log);
  EXPECT_NE(text.find("cannot start 1024 worker threads"), std::string::npos) << text;
  EXPECT_EQ(text.find("listening"), std::string::npos) << text;
}

namespace {

/// A connection to 127.0.0.1:port; -1 when it cannot be made.
int connect_to(int port) {
  const int s = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(s, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    ::close(s);
    return -1;
  }
  return s;
}

/// What the server sends on `s` until it closes the connection or `seconds` pass.
std::string read_all(int s, double seconds) {
  std::string out;
  const auto until = Clock::now() + std::chrono::milliseconds(static_cast<int64_t>(seconds * 1000));
  while (Clock::now() < until) {
    pollfd p{s, POLLIN, 0};
    if (::poll(&p, 1, 50) <= 0) continue;
    char buf[4096];
    const ssize_t n = ::recv(s, buf, sizeof buf, 0);
    if (n <= 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  return out;
}

/// The status of an HTTP answer ("HTTP/1.1 200 OK" -> 200); 0 for none.
int status_of(const std::string& answer) {
  return answer.rfind("HTTP/1.1 ", 0) == 0 ? std::atoi(answer.c_str() + 9) : 0;
}

const char kHealthz[] = "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";

/// A client sending a request's head one byte every 300 ms, for at most `seconds`.
std::thread trickle(int port, double seconds, std::string* answer) {
  return std::thread([port, seconds, answer] {
    const int s = connect_to(port);
    if (s < 0) return;
    const std::string head =
        "GET /healthz HTTP/1.1\r\nHost: a-very-slow-client.example\r\nX-Padding: " + std::string(200, 'x') +
        "\r\n\r\n";
    const auto until = Clock::now() + std::chrono::milliseconds(static_cast<int64_t>(seconds * 1000));
    for (size_t k = 0; k < head.size() && Clock::now() < until; ++k) {
      if (::send(s, head.data() + k, 1, MSG_NOSIGNAL) != 1) break;
      pollfd p{s, POLLIN, 0};
      if (::poll(&p, 1, 300) > 0) break;  // the server answered (or closed)
    }
    *answer = read_all(s, 2);
    ::close(s);
  });
}

}  // namespace

// docs/reliability.md, "One server per port, and every connection answered": a client that
// sends its request a byte at a time holds its worker only until --request-timeout, then
// gets 408; a client after it is answered, on the one worker.
TEST(ServeProcess, ATricklingClientIsCutAtTheDeadlineAndTheNextOneIsAnswered) {
  const std::string dir = st::scratch_dir("serve_process_trickle");
  const pid_t pid = st::start_serve(
      {"--model", "m=" + model_dir(), "--port", "0", "--threads", "1", "--request-timeout", "2"},
      dir + "/serve.log");
  const int port = st::serve_port(dir + "/serve.log");
  ASSERT_GT(port, 0) << st::read_file(dir + "/serve.log");
  std::string slow;
  std::thread slow_client = trickle(port, 30, &slow);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  const auto t0 = Clock::now();
  const int s = connect_to(port);
  ASSERT_GE(s, 0);
  ASSERT_EQ(::send(s, kHealthz, sizeof kHealthz - 1, MSG_NOSIGNAL),
            static_cast<ssize_t>(sizeof kHealthz - 1));
  const std::string answer = read_all(s, 20);
  const double waited = std::chrono::duration<double>(Clock::now() - t0).count();
  ::close(s);
  slow_client.join();
  EXPECT_EQ(status_of(answer), 200) << answer;
  EXPECT_LT(waited, 5.0) << "the trickling client held the only worker";
  EXPECT_EQ(status_of(slow), 408) << slow;
  kill(pid, SIGTERM);
  EXPECT_EQ(st::exit_code(pid), 0) << st::read_file(dir + "/serve.log");
}

// More connections than the queue holds: the extra ones are answered 503 at once, the
// queued ones 200 once the worker is free; SIGTERM cuts the slow client at once and answers
// the request that waits behind it before the server stops.
TEST(ServeProcess, ConnectionsBeyondTheQueueAreAnswered503AndTheDrainIsBounded) {
  const std::string dir = st::scratch_dir("serve_process_queue");
  const pid_t pid = st::start_serve({"--model", "m=" + model_dir(), "--port", "0", "--threads", "1",
                                     "--request-timeout", "3", "--max-queued", "4"},
                                    dir + "/serve.log");
  const int port = st::serve_port(dir + "/serve.log");
  ASSERT_GT(port, 0) << st::read_file(dir + "/serve.log");
  std::string slow;
  std::thread slow_client = trickle(port, 30, &slow);  // holds the worker for 3 s
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  constexpr int kClients = 10;
  std::vector<std::string> answers(kClients);
  std::vector<double> seconds(kClients, 0);
  std::vector<std::thread> clients;
  for (int i = 0; i < kClients; ++i) {
    clients.emplace_back([&, i] {
      const auto t0 = Clock::now();
      const int s = connect_to(port);
      if (s < 0) return;
      (void)::send(s, kHealthz, sizeof kHealthz - 1, MSG_NOSIGNAL);
      answers[static_cast<size_t>(i)] = read_all(s, 20);
      seconds[static_cast<size_t>(i)] = std::chrono::duration<double>(Clock::now() - t0).count();
      ::close(s);
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // in order, so the queue fills first
  }
  for (std::thread& t : clients) t.join();
  slow_client.join();
  int ok = 0, refused = 0;
  for (int i = 0; i < kClients; ++i) {
    const int status = status_of(answers[static_cast<size_t>(i)]);
    ok += status == 200;
    if (status == 503) {
      ++refused;
      EXPECT_LT(seconds[static_cast<size_t>(i)], 1.5) << "a refusal is at once";
      EXPECT_NE(answers[static_cast<size_t>(i)].find("Retry-After: 1"), std::string::npos);
    }
    EXPECT_TRUE(status == 200 || status == 503) << answers[static_cast<size_t>(i)];
  }
  EXPECT_EQ(ok, 4) << "the queue's four";
  EXPECT_EQ(refused, kClients - 4);
  EXPECT_EQ(status_of(slow), 408) << slow;

  // SIGTERM with a trickling client on the worker and one queued: the slow one is cut
  // (its request is not in flight: it never arrived), the queued one is answered, and the
  // server ends (at once, not at the slow client's deadline).
  std::string slow2, queued;
  std::thread t2 = trickle(port, 30, &slow2);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  std::thread q([&] {
    const int s = connect_to(port);
    if (s < 0) return;
    (void)::send(s, kHealthz, sizeof kHealthz - 1, MSG_NOSIGNAL);
    queued = read_all(s, 20);
    ::close(s);
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  const auto stop = Clock::now();
  kill(pid, SIGTERM);
  EXPECT_EQ(st::exit_code(pid), 0) << st::read_file(dir + "/serve.log");
  EXPECT_LT(std::chrono::duration<double>(Clock::now() - stop).count(), 6.0) << "the drain is bounded";
  t2.join();
  q.join();
  EXPECT_EQ(status_of(queued), 200) << queued;
  EXPECT_EQ(status_of(slow2), 408) << slow2;
}

// docs/graph_edits.md: 1,000 graph edits posted one after the other while 8 clients ask for
// lists (bounded: they stop when the edits end, or at a deadline) fail no request; a SIGKILL
// then loses no edit: the server started again on the directory replays all 1,000.
TEST(ServeProcess, AThousandGraphEditsUnderLoadSurviveASigkill) {
  const std::string dir = st::scratch_dir("serve_process_edits");
  std::filesystem::copy(st::serve_test_model("lowrank"), dir + "/model",
                        std::filesystem::copy_options::recursive);
  st::write_file(dir, "token.txt", "0123456789abcdef\n");
  const std::vector<std::string> args = {
      "--model", "m=" + dir + "/model", "--port",          "0", "--threads",
      "4",       "--admin-token-file",  dir + "/token.txt"};
  const pid_t pid = st::start_serve(args, dir + "/serve.log");
  const int port = st::serve_port(dir + "/serve.log");
  ASSERT_GT(port, 0) << st::read_file(dir + "/serve.log");
  const symgnn::TrainedModel original = symgnn::TrainedModel::load(dir + "/model");
  const auto& users = original.dataset().users;
  constexpr int kEdits = 1000;
  // Edges between users far apart, each weight set again as the pairs come round.
  std::vector<symgnn::Delta::Edge> edits;
  for (int k = 0; k < kEdits; ++k) {
    const int64_t a = k % users.count, b = (a + 1 + (k / users.count) % (users.count - 1)) % users.count;
    edits.push_back(symgnn::graph_edit("user", "add", users.id_of(a), users.id_of(b), 1.0 + (k % 7)));
  }
  std::atomic<bool> done{false};
  std::atomic<int> answered{0}, failed{0};
  std::vector<std::thread> clients;
  const auto deadline = Clock::now() + std::chrono::seconds(300);
  for (int c = 0; c < 8; ++c)
    clients.emplace_back([&, c] {
      httplib::Client client("127.0.0.1", port);
      client.set_read_timeout(60);
      for (int n = 0; !done && Clock::now() < deadline; ++n) {
        const auto r = client.Get("/v1/recommend?user=" + users.id_of((c * 5 + n) % users.count) + "&k=5");
        (r && r->status == 200 ? answered : failed)++;
      }
    });
  httplib::Client poster("127.0.0.1", port);
  poster.set_read_timeout(60);
  poster.set_bearer_token_auth("0123456789abcdef");
  int accepted = 0;
  for (const auto& e : edits) {
    const json body = {{"edits",
                        {{{"side", symgnn::side_word(e.side)},
                          {"op", symgnn::op_word(e.op)},
                          {"a", e.a},
                          {"b", e.b},
                          {"weight", e.weight}}}}};
    const auto r = poster.Post("/v1/graph/edges", body.dump(), "application/json");
    if (r && r->status == 200) ++accepted;
    if (Clock::now() > deadline) break;
  }
  done = true;
  for (std::thread& t : clients) t.join();
  EXPECT_EQ(accepted, kEdits);
  EXPECT_EQ(failed.load(), 0);
  EXPECT_GT(answered.load(), 0);
  kill(pid, SIGKILL);
  st::exit_code(pid);
  // Started again: every edit replayed, the model's scores those of the edits applied in memory.
  const pid_t again = st::start_serve(args, dir + "/serve2.log");
  const int port2 = st::serve_port(dir + "/serve2.log");
  ASSERT_GT(port2, 0) << st::read_file(dir + "/serve2.log");
  httplib::Client c("127.0.0.1", port2);
  const auto h = c.Get("/healthz");
  ASSERT_TRUE(h);
  EXPECT_EQ(h->status, 200);
  const std::string journal = st::read_file(dir + "/model/graph_journal.jsonl");
  EXPECT_EQ(std::count(journal.begin(), journal.end(), '\n'), kEdits);
  const auto want = symgnn::apply_graph_edits(original, edits).score_all_items({0, 1});
  const auto got = symgnn::TrainedModel::load(dir + "/model").score_all_items({0, 1});
  ASSERT_EQ(got.size(), want.size());
  for (size_t k = 0; k < want.size(); ++k) EXPECT_NEAR(got[k], want[k], 1e-5);
  kill(again, SIGTERM);
  EXPECT_EQ(st::exit_code(again), 0) << st::read_file(dir + "/serve2.log");
}
