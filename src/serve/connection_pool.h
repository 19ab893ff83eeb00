// The workers that answer `symgnn serve`'s connections (docs/reliability.md, "One server
// per port, and every connection answered"), in place of cpp-httplib's own pool, whose
// queue has no bound and whose workers a slow client can hold for as long as it likes:
//  - a connection gets `request_seconds` to deliver each request (its head and body, and
//    the wait for it): past that the watchdog shuts the socket down, the worker's read
//    ends, and the worker is free again, however slowly the bytes trickle in;
//  - at most `max_queued` accepted connections wait for a worker: one more is answered
//    503 at once, with a JSON body and Retry-After, and closed;
//  - once `draining` is set (SIGTERM), a connection still being read (a slow client, an
//    idle keep-alive) gets kDrainGrace instead of its deadline, and the connections waiting
//    for a worker are answered as the workers free up; `busy` counts the connections queued
//    or on a worker, which the server waits for (serve/http_server.h);
//  - once `stopping` is set (the drain's end, before the library stops listening), a
//    connection still waiting for a worker is answered 503 ("the server is stopping") and
//    closed: the library would close it unanswered.
// The pool learns each connection's socket from the accept() the library calls on the
// listening thread just before it hands the connection over (connection_pool.cpp).
#pragma once

#include <httplib.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace symgnn::serve {

class ConnectionPool : public httplib::TaskQueue {
 public:
  /// What the server shares with its pool (the drain, above).
  struct Shared {
    std::shared_ptr<const std::atomic<bool>> stopping, draining;
    std::shared_ptr<std::atomic<int64_t>> busy;
  };
  /// A connection being read when the drain begins is cut after this long.
  static constexpr std::chrono::milliseconds kDrainGrace{500};

  ConnectionPool(size_t threads, size_t max_queued, std::chrono::milliseconds request_time, Shared shared);
  ~ConnectionPool() override;

  void enqueue(std::function<void()> fn) override;
  void shutdown() override;

  /// Called on a worker when a request has been read and its answer begins, and when the
  /// answer has been written: the deadline counts only while a request is being read.
  static void answering();
  static void answered();

  /// The 503 sent to a connection refused for want of a worker, or because the server stops.
  static const std::string& refusal();
  static const std::string& stopping_refusal();

 private:
  struct Watched {
    int socket = -1;  // our duplicate of the connection's socket (shutdown acts on the socket)
    std::chrono::steady_clock::time_point reading_since;
    bool reading = true;
  };
  struct Job {
    std::function<void()> fn;
    int socket = -1;  // the library's descriptor, -1 where accept() was not seen
  };

  void work();
  void watch();
  void refuse(Job job, const std::string& answer);
  uint64_t start_watching(int socket);
  void stop_watching(uint64_t id);

  const std::chrono::milliseconds request_time_;
  const Shared shared_;
  const size_t max_queued_;
  std::vector<std::thread> workers_;
  std::thread watchdog_;
  std::mutex mutex_;
  std::condition_variable wake_;  // workers: a job, or the end
  std::condition_variable tick_;  // watchdog: the end
  std::deque<Job> jobs_;
  std::map<uint64_t, Watched> watched_;
  uint64_t next_id_ = 1;
  bool shutdown_ = false;  // no job is taken once the queue is empty
  bool stopped_ = false;   // the workers have ended: so does the watchdog
};

}  // namespace symgnn::serve
