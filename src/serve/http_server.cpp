#include "serve/http_server.h"

#include <httplib.h>
#include <sys/socket.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <nlohmann/json.hpp>
#include <system_error>
#include <thread>
#include <vector>

#include "serve/connection_pool.h"
#include "symgnn/error.h"

namespace symgnn::serve {

namespace {

Request to_request(const httplib::Request& r) {
  Request q;
  q.method = r.method;
  q.path = r.path;
  // The query from the request's own target (bodies are read apart, so it is all the library's
  // params hold), each pair split at its first '=': the library's parser keeps what follows
  // the last one, so `where=key=value` lost its key.
  const size_t mark = r.target.find('?');
  const std::string query = mark == std::string::npos ? "" : r.target.substr(mark + 1);
  for (size_t start = 0; start < query.size();) {
    const size_t end = std::min(query.find('&', start), query.size());
    const std::string pair = query.substr(start, end - start);
    if (!pair.empty()) {
      const size_t eq = pair.find('=');
      q.params.emplace(httplib::detail::decode_url(pair.substr(0, eq), true),
                       eq == std::string::npos ? "" : httplib::detail::decode_url(pair.substr(eq + 1), true));
    }
    start = end + 1;
  }
  q.body = r.body;
  q.authorization = r.get_header_value("Authorization");
  return q;
}

/// "" when `n` threads can run at once; else why not. (The library's pool cannot be tried
/// instead: a thread it fails to make leaves the others joinable, which aborts.)
std::string threads_fail(int n) {
  std::mutex m;
  std::condition_variable cv;
  bool release = false;
  std::vector<std::thread> trial;
  std::string why;
  try {
    for (int k = 0; k < n; ++k)
      trial.emplace_back([&] {
        std::unique_lock<std::mutex> lock(m);
        cv.wait(lock, [&] { return release; });
      });
  } catch (const std::system_error& e) {
    why = e.what();
  }
  {
    std::lock_guard<std::mutex> lock(m);
    release = true;
  }
  cv.notify_all();
  for (std::thread& t : trial) t.join();
  return why;
}

}  // namespace

HttpServer::HttpServer(const Api& api, HttpOptions options)
    : api_(api), options_(std::move(options)), server_(std::make_unique<httplib::Server>()) {
  const auto threads = static_cast<size_t>(std::max(1, options_.threads));
  const size_t queued = threads * static_cast<size_t>(std::max(1, options_.max_queued_per_thread));
  const auto deadline = std::chrono::milliseconds(static_cast<int64_t>(options_.request_seconds * 1000));
  server_->new_task_queue = [threads, queued, deadline, stopping = stopping_, draining = draining_,
                             busy = busy_] {
    return new ConnectionPool(threads, queued, deadline, {stopping, draining, busy});
  };
  // The deadline counts while a request is read: it stops when the answer begins (below, in
  // the handlers) and starts again when the answer is written (the library's logger hook).
  server_->set_logger([](const httplib::Request&, const httplib::Response&) { ConnectionPool::answered(); });
  // One byte over the API's own limit, so that the API answers 413 with its JSON message
  // for bodies it can see, and the library refuses larger ones before reading them.
  // Answers are small: without TCP_NODELAY, Nagle's algorithm holds each one back until the
  // client's delayed ACK (40 ms a request on Linux loopback, measured by bench/bench_serve).
  server_->set_tcp_nodelay(true);
  // The library's default also sets SO_REUSEPORT, with which a second server on a port
  // already served binds too and the kernel splits the requests between the two models
  // (docs/reliability.md, "One server per port"). SO_REUSEADDR alone lets a restarted
  // server bind while the old connections linger in TIME_WAIT, never beside a live one.
  server_->set_socket_options([this](socket_t sock) {
    const int yes = 1;
    ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    listening_socket_ = sock;
  });
  // A connection holds a worker while it waits for its next request (or its first): the
  // library's 5 s let 4 idle connections on 2 workers keep a request waiting 9.8 s, and
  // SIGTERM waited 5 s for them. One second: a client that keeps its connection open
  // between requests reconnects after a pause of more.
  server_->set_keep_alive_timeout(kIdleSeconds);
  server_->set_payload_max_length(static_cast<size_t>(options_.max_body_bytes) + 1);
  const auto answer = [this](const Request& q, httplib::Response& res) {
    ConnectionPool::answering();
    const Response out = api_.handle(q);
    res.status = out.status;
    res.set_content(out.body, out.content_type.c_str());
  };
  server_->Get(
      ".*", [answer](const httplib::Request& req, httplib::Response& res) { answer(to_request(req), res); });
  // Bodies are read here, not by the library: it refuses a form-encoded body over 8 KiB
  // (its compiled-in limit) with 413, and `curl -d` and Python's urllib send JSON as
  // form-encoded by default. Only --max-body-bytes limits a body, whatever its type.
  const auto with_body = [answer](const httplib::Request& req, httplib::Response& res,
                                  const httplib::ContentReader& read) {
    Request q = to_request(req);
    if (req.is_multipart_form_data()) {
      res.status = 415;
      res.set_content(
          nlohmann::json{{"error", "multipart bodies are not read: send the JSON document as the body"}}
              .dump(),
          "application/json");
      return;
    }
    // A body over the limit, or cut short: the library has set the status (413, 400), and
    // the error handler below gives it the API's JSON shape.
    if (!read([&q](const char* data, size_t size) {
          q.body.append(data, size);
          return true;
        }))
      return;
    answer(q, res);
  };
  server_->Post(".*", with_body);
  server_->Put(".*", with_body);
  server_->Delete(".*", with_body);
  server_->Patch(".*", with_body);
  // OPTIONS: what the API serves, without a body (it was a 404 "could not be read").
  server_->Options(".*", [](const httplib::Request&, httplib::Response& res) {
    res.status = 204;
    res.set_header("Allow", "GET, HEAD, POST");
  });
  // What the library answers itself (413 for a body over the limit, 400 for a malformed
  // request line) gets the API's JSON error shape too.
  server_->set_error_handler([](const httplib::Request&, httplib::Response& res) {
    if (!res.body.empty()) return;
    const std::string what = res.status == 413 ? "the body is over the limit of --max-body-bytes"
                                               : "the request could not be read";
    res.set_content(nlohmann::json{{"error", "HTTP " + std::to_string(res.status) + ": " + what}}.dump(),
                    "application/json");
  });
}

HttpServer::~HttpServer() = default;

int HttpServer::bind() {
  const int port = options_.port == 0
                       ? server_->bind_to_any_port(options_.host)
                       : (server_->bind_to_port(options_.host, options_.port) ? options_.port : -1);
  if (port < 0)
    throw UsageError("serve: cannot listen on " + options_.host + ":" + std::to_string(options_.port) +
                     " (in use, or not an address of this machine)");
  // The worker threads, tried before "listening" is said: where they cannot be made (a tight
  // ulimit -v or -u), the library's pool would fail inside run(), after that line.
  if (const std::string why = threads_fail(std::max(1, options_.threads)); !why.empty()) {
    server_->stop();
    throw UsageError("serve: cannot start " + std::to_string(options_.threads) + " worker threads (" + why +
                     "): lower --threads, or raise the process's limits (ulimit -u, -v)");
  }
  // The library listens with a backlog of 5: 32 clients connecting at once saw resets.
  // listen() again on the bound socket only raises its queue (the kernel caps it at somaxconn).
  if (listening_socket_ >= 0) ::listen(listening_socket_, kListenBacklog);
  return port;
}

void HttpServer::run() {
  server_->listen_after_bind();
}

void HttpServer::stop() {
  draining_->store(true);
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(kDrainSeconds);
  while (busy_->load() > 0 && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  stopping_->store(true);
  server_->stop();
}

}  // namespace symgnn::serve
