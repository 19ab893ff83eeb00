// `symgnn serve`: answers recommend, predict and model queries over HTTP from models held
// in memory (src/serve/, docs/serve.md). SIGHUP reloads every model from its directory
// (a failed reload keeps the old one serving); SIGTERM and SIGINT stop listening, answer the
// requests in flight and exit 0.
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <exception>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <thread>

#include "cli/commands.h"
#include "runtime/runtime.h"
#include "serve/api.h"
#include "serve/http_server.h"
#include "serve/model_store.h"
#include "symgnn/error.h"
#include "symgnn/item_filter.h"

namespace symgnn::cli {
namespace {

int g_signal_pipe[2] = {-1, -1};

void on_signal(int s) {
  const unsigned char byte = static_cast<unsigned char>(s);
  const ssize_t ignored = write(g_signal_pipe[1], &byte, 1);  // async-signal-safe
  (void)ignored;
}

struct ServeCliOptions {
  std::vector<std::string> models;  // DIR or NAME=DIR
  std::string host = "127.0.0.1";
  int port = 8080;
  int threads = 8;
  double request_seconds = serve::HttpOptions{}.request_seconds;
  int max_queued = serve::HttpOptions{}.max_queued_per_thread;
  int64_t compute_threads = 1;
  std::string device = "cpu";
  std::string admin_token_file;
  int64_t cache_pairs = serve::ModelStore::kDefaultCachePairs;
  std::string item_names_file;
  std::string attributes_file;
  serve::ApiLimits limits;
};

std::vector<std::pair<std::string, std::string>> named_models(const std::vector<std::string>& given) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const std::string& g : given) {
    const auto eq = g.find('=');
    std::string name = eq == std::string::npos ? "default" : g.substr(0, eq);
    const std::string dir = eq == std::string::npos ? g : g.substr(eq + 1);
    if (name.empty() ||
        name.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") !=
            std::string::npos)
      throw UsageError("--model " + g + ": a name is letters, digits, '_', '.' or '-' (NAME=DIR)");
    out.emplace_back(name, dir);
  }
  if (out.size() > 1 && out.front().first == "default" && given.front().find('=') == std::string::npos)
    for (size_t k = 1; k < out.size(); ++k)
      if (given[k].find('=') == std::string::npos)
        throw UsageError("--model " + given[k] + ": name every model after the first (NAME=DIR)");
  return out;
}

std::string read_token(const std::string& file) {
  if (file.empty()) return "";
  std::ifstream in(file);
  if (!in) throw DataError(file + ": cannot read the admin token file");
  std::string token;
  std::getline(in, token);
  while (!token.empty() && (token.back() == '\r' || token.back() == ' ')) token.pop_back();
  if (token.size() < 16) throw DataError(file + ":1: the admin token must be at least 16 characters");
  return token;
}

int run_serve(const ServeCliOptions& o) {
  const std::string token = read_token(o.admin_token_file);
  runtime::set_compute_threads(o.compute_threads);
  // Signals arrive on whichever thread does not block them (LibTorch's pools start before
  // this), so a handler writes the signal's number to a pipe that one thread reads.
  if (pipe(g_signal_pipe) != 0) throw Error("serve: cannot create the signal pipe");
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  for (const int s : {SIGHUP, SIGTERM, SIGINT}) sigaction(s, &sa, nullptr);

  serve::ModelStore store(named_models(o.models), o.device, o.cache_pairs, o.item_names_file);
  serve::ServeMetrics metrics;
  serve::ApiLimits limits = o.limits;
  serve::Api api(store, metrics, limits, token);
  if (!o.attributes_file.empty()) api.set_item_attributes(read_item_attributes(o.attributes_file));
  serve::HttpOptions ho;
  ho.host = o.host;
  ho.port = o.port;
  ho.threads = o.threads;
  ho.request_seconds = o.request_seconds;
  ho.max_queued_per_thread = o.max_queued;
  ho.max_body_bytes = limits.max_body_bytes;
  serve::HttpServer server(api, ho);
  const int port = server.bind();
  for (const auto& m : store.all())
    std::cerr << "serve: model " << m->name << " = " << m->model->name() << " from " << m->dir << " ("
              << m->model->users() << " users x " << m->model->items() << " items"
              << (m->cached ? ", every user's scores computed in memory" : ", scored per request") << ")\n";
  for (const auto& m : store.all())
    if (!m->model->data_note().empty()) std::cerr << "serve: " << m->model->data_note() << "\n";
  std::cerr << "serve: listening on http://" << o.host << ":" << port << " (" << o.threads
            << " worker threads); SIGHUP reloads, SIGTERM stops" << std::endl;

  std::thread waiter([&] {
    for (;;) {
      unsigned char byte = 0;
      const ssize_t got = read(g_signal_pipe[0], &byte, 1);
      if (got < 0 && errno == EINTR) continue;
      const int s = got == 1 ? byte : 0;
      if (s == 0) return;  // the server stopped by itself
      if (s == SIGHUP) {
        for (const auto& r : store.reload())
          std::cerr << "serve: reload of " << r.name << ": "
                    << (r.ok ? "version " + std::to_string(r.version)
                             : "failed, version " + std::to_string(r.version) + " still serving: " + r.error)
                    << std::endl;
        continue;
      }
      std::cerr << "serve: " << (s == SIGTERM ? "SIGTERM" : "SIGINT")
                << ": answering the requests in flight, then exiting" << std::endl;
      server.stop();
      return;
    }
  });
  // run() also returns when the socket fails, or throws: either way wake the waiter so
  // that it ends (a joinable thread left behind would abort the process).
  std::exception_ptr failed;
  try {
    server.run();
  } catch (...) {
    failed = std::current_exception();
  }
  const unsigned char stop = 0;
  if (write(g_signal_pipe[1], &stop, 1) != 1) std::cerr << "serve: cannot wake the signal thread\n";
  waiter.join();
  if (failed) std::rethrow_exception(failed);
  for (const int s : {SIGHUP, SIGTERM, SIGINT}) signal(s, SIG_DFL);
  std::cerr << "serve: stopped" << std::endl;
  return 0;
}

}  // namespace

void add_serve_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "serve",
      "answer recommend, predict and model queries over HTTP from trained models (docs/serve.md)\n"
      "  symgnn serve --model runs/ml100k                       # http://127.0.0.1:8080\n"
      "  symgnn serve --model main=runs/a --model ease=runs/b --port 9000 --admin-token-file token.txt\n"
      "  curl 'http://127.0.0.1:8080/v1/recommend?user=196&k=10'\n"
      "  open http://127.0.0.1:8080/ in a browser: a user's ratings beside their list, similar items\n"
      "Routes: GET / (the page), GET /healthz, GET /v1/models, GET|POST /v1/recommend, POST /v1/predict,\n"
      "GET /v1/similar?item=ID (or user=ID), GET /v1/users[?user=ID], GET /metrics,\n"
      "POST /v1/admin/reload. SIGHUP reloads every model (the old one serves until the new one is\n"
      "loaded and verified); SIGTERM answers the requests in flight and exits 0.");
  auto o = std::make_shared<ServeCliOptions>();
  cmd->add_option(
         "--model", o->models,
         "a directory written by `symgnn train --out`, or NAME=DIR (repeatable; the first is the default)")
      ->required();
  cmd->add_option("--host", o->host, "address to listen on (127.0.0.1: this machine only)")
      ->capture_default_str();
  cmd->add_option("--port", o->port, "port to listen on (0: any free port, printed)")
      ->check(CLI::Range(0, 65535))
      ->capture_default_str();
  cmd->add_option("--threads", o->threads,
                  "worker threads answering requests; each holds one connection, and an idle keep-alive "
                  "connection keeps its worker for up to 1 s: with more idle connections than workers, "
                  "the next request waits that second (docs/serve.md, \"Connections and workers\")")
      ->check(CLI::Range(1, 1024))
      ->capture_default_str();
  cmd->add_option("--request-timeout", o->request_seconds,
                  "seconds a connection has to deliver each request, head and body; then it is answered 408 "
                  "and closed (a slow or stalled client cannot hold a worker)")
      ->check(CLI::Range(0.1, 3600.0))
      ->capture_default_str();
  cmd->add_option(
         "--max-queued", o->max_queued,
         "connections per worker thread that may wait for a worker; one more is answered 503 at once")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  cmd->add_option("--compute-threads", o->compute_threads, "intra-op threads of each model computation")
      ->check(CLI::Range(int64_t{1}, int64_t{1024}))
      ->capture_default_str();
  cmd->add_option("--device", o->device, "cpu (default), cuda or cuda:N")->capture_default_str();
  cmd->add_option(
      "--admin-token-file", o->admin_token_file,
      "file whose first line (16+ characters) admin routes require as \"Authorization: Bearer TOKEN\"");
  cmd->add_option(
      "--item-attributes", o->attributes_file,
      "item attributes for the lists' where filters: lines \"id,key=value,...\" or a table with a "
      "header (id first)");
  cmd->add_option("--item-names", o->item_names_file,
                  "names of items shown beside their ids: a file of 'id,name' lines (default: the titles of "
                  "a MovieLens data source)");
  cmd->add_option("--cache-pairs", o->cache_pairs,
                  "compute every user's scores at load where users x items is at most this (8 bytes a pair; "
                  "0: score per request)")
      ->check(CLI::Range(int64_t{0}, int64_t{1} << 34))
      ->capture_default_str();
  cmd->add_option("--max-k", o->limits.max_k, "the longest list one request may ask for")
      ->check(CLI::Range(int64_t{1}, int64_t{1000000}))
      ->capture_default_str();
  cmd->add_option("--max-users", o->limits.max_users, "users of one POST /v1/recommend")
      ->check(CLI::Range(int64_t{1}, int64_t{1000000}))
      ->capture_default_str();
  cmd->add_option("--max-pairs", o->limits.max_pairs, "pairs of one POST /v1/predict")
      ->check(CLI::Range(int64_t{1}, int64_t{100000000}))
      ->capture_default_str();
  cmd->add_option("--max-body-bytes", o->limits.max_body_bytes, "the largest request body accepted")
      ->check(CLI::Range(int64_t{1024}, int64_t{1} << 30))
      ->capture_default_str();
  cmd->callback([o] {
    const int code = run_serve(*o);
    if (code != 0) throw CLI::RuntimeError(code);
  });
}

}  // namespace symgnn::cli
