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
  /// Safe from any thread, also before run() starts answering.
  void stop();

 private:
  const Api& api_;
  HttpOptions options_;
  std::unique_ptr<httplib::Server> server_;
  int listening_socket_ = -1;  // set when the library opens it (bind())
  /// Set by stop() before the library stops listening: the pool then answers the
  /// connections still waiting 503 (serve/connection_pool.h).
  std::shared_ptr<std::atomic<bool>> stopping_ = std::make_shared<std::atomic<bool>>(false);
  static constexpr int kListenBacklog = 1024;
  static constexpr int kIdleSeconds = 1;  // an idle connection's hold on a worker
};

}  // namespace symgnn::serve
