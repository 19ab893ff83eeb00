// The HTTP side of `symgnn serve` (docs/serve.md), on cpp-httplib (Debian's
// libcpp-httplib-dev): every request goes to Api::handle, from a pool of worker threads.
// stop() closes the listening socket and returns once the requests in flight and queued are
// answered (serve/connection_pool.h: each within its deadline), which is how SIGTERM drains.
#pragma once

#include <atomic>
#include <memory>
#include <string>

#include "serve/api.h"

namespace httplib {
class Server;
}

namespace symgnn::serve {

struct HttpOptions {
  std::string host = "127.0.0.1";
  int port = 8080;  // 0: any free port (bind() says which)
  int threads = 8;  // worker threads answering requests
  /// Seconds a connection has to deliver each request (head and body, counted from when a
  /// worker takes it up or answered its last): then 408 and closed (serve/connection_pool.h).
  double request_seconds = 10;
  /// Connections per worker that may wait for one; one more is answered 503 at once.
  int max_queued_per_thread = 64;
  int64_t max_body_bytes = 1 << 20;
};

class HttpServer {
 public:
  HttpServer(const Api& api, HttpOptions options);
  ~HttpServer();
  /// Binds the socket; returns the port. Throws UsageError naming host:port when it cannot.
  int bind();
  /// Answers requests until stop(); returns after the requests in flight are answered.
  void run();
  /// Safe from any thread, also before run() starts answering. Drains first: the requests
  /// that have arrived are answered (within kDrainSeconds), then the library stops.
  void stop();

 private:
  const Api& api_;
  HttpOptions options_;
  std::unique_ptr<httplib::Server> server_;
  int listening_socket_ = -1;  // set when the library opens it (bind())
  /// The drain (serve/connection_pool.h): stop() sets `draining_` first, so that the pool
  /// cuts connections still being read (a slow client, an idle keep-alive) after a short
  /// grace and answers the connections that wait for a worker; once none waits or runs
  /// (`busy_`), or after kDrainSeconds, it sets `stopping_` and the library stops listening:
  /// a connection that arrives later is answered 503.
  std::shared_ptr<std::atomic<bool>> stopping_ = std::make_shared<std::atomic<bool>>(false);
  std::shared_ptr<std::atomic<bool>> draining_ = std::make_shared<std::atomic<bool>>(false);
  std::shared_ptr<std::atomic<int64_t>> busy_ = std::make_shared<std::atomic<int64_t>>(0);
  static constexpr double kDrainSeconds = 3.0;
  static constexpr int kListenBacklog = 1024;
  static constexpr int kIdleSeconds = 1;  // an idle connection's hold on a worker
};

}  // namespace symgnn::serve
