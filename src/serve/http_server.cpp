#include "serve/http_server.h"

#include <httplib.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "symgnn/error.h"

namespace symgnn::serve {

namespace {

Request to_request(const httplib::Request& r) {
  Request q;
  q.method = r.method;
  q.path = r.path;
  for (const auto& [k, v] : r.params) q.params.emplace(k, v);
  q.body = r.body;
  q.authorization = r.get_header_value("Authorization");
  return q;
}

}  // namespace

HttpServer::HttpServer(const Api& api, HttpOptions options)
    : api_(api), options_(std::move(options)), server_(std::make_unique<httplib::Server>()) {
  const int threads = std::max(1, options_.threads);
  server_->new_task_queue = [threads] { return new httplib::ThreadPool(static_cast<size_t>(threads)); };
  // One byte over the API's own limit, so that the API answers 413 with its JSON message
  // for bodies it can see, and the library refuses larger ones before reading them.
  // Answers are small: without TCP_NODELAY, Nagle's algorithm holds each one back until the
  // client's delayed ACK (40 ms a request on Linux loopback, measured by bench/bench_serve).
  server_->set_tcp_nodelay(true);
  server_->set_payload_max_length(static_cast<size_t>(options_.max_body_bytes) + 1);
  const auto handler = [this](const httplib::Request& req, httplib::Response& res) {
    const Response out = api_.handle(to_request(req));
    res.status = out.status;
    res.set_content(out.body, out.content_type.c_str());
  };
  server_->Get(".*", handler);
  server_->Post(".*", handler);
  server_->Put(".*", handler);
  server_->Delete(".*", handler);
  server_->Patch(".*", handler);
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
  return port;
}

void HttpServer::run() {
  server_->listen_after_bind();
}

void HttpServer::stop() {
  server_->stop();
}

}  // namespace symgnn::serve
