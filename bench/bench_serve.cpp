// Serving benchmark (docs/serve.md): `symgnn serve`'s GET /v1/recommend?k=10 on loopback at
// 1, 8 and 64 concurrent keep-alive connections, requests per second and p50/p99 latency;
// then, with --flask, the same endpoint written as a user would without `serve`: a Flask
// app over the Python package (bench/serve_flask.py), measured by the same clients in the
// same run. Prints figures; asserts nothing. Each level is bounded in time and count.
//
//   build/bench/bench_serve --model runs/douban [--flask] [--seconds 5] [--levels 1,8,64]
//       [--max-requests 200000] [--threads 64] [--post new|new-follows|refresh|follows]
//
// --post: the lists are asked by POST /v1/recommend instead: `new`, a new user given by 5
// ratings of random items; `new-follows`, the same with 5 follows of random trained users;
// `refresh`, a trained user's 3 fresh ratings of items they have not rated; `follows`, a new
// user given by follows alone, 5 random trained users and no rating,
// listed by the people they follow (docs/serve.md). The Flask app is measured on GET only. Run it as
// `symgnn serve` runs (src/cli/main.cpp sets these before the libraries start):
// OMP_WAIT_POLICY=PASSIVE OPENBLAS_NUM_THREADS=1 build/bench/bench_serve ...
#include <httplib.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "runtime/runtime.h"
#include "serve/http_server.h"

using Clock = std::chrono::steady_clock;

namespace {

struct Options {
  std::string model;
  bool flask = false;
  double seconds = 5;
  std::vector<int> levels = {1, 8, 64};
  int64_t max_requests = 200000;
  int threads = 64;
  std::string post;  // "", "new", "new-follows", "refresh" or "follows"
};

/// What one request of the benchmark asks.
struct Request {
  std::vector<std::string> users;          // trained users' ids
  std::vector<std::string> items;          // item ids
  std::vector<std::vector<int64_t>> seen;  // each user's rated items
  double rating = 5;                       // a rating level of the model
};

struct Figures {
  int64_t ok = 0, failed = 0;
  double seconds = 0, p50_ms = 0, p99_ms = 0;
};

/// `"edges": [...]` of five distinct trained users, drawn by `rng`: whom a new user follows.
std::string random_follows(const std::vector<std::string>& users, std::mt19937_64& rng) {
  std::vector<size_t> picked;
  while (picked.size() < std::min<size_t>(5, users.size())) {
    const size_t v = rng() % users.size();
    if (std::find(picked.begin(), picked.end(), v) == picked.end()) picked.push_back(v);
  }
  std::string out = "\"edges\": [";
  for (size_t k = 0; k < picked.size(); ++k)
    out += std::string(k ? ", " : "") + "\"" + users[picked[k]] + "\"";
  return out + "]";
}

/// `connections` clients, each its own keep-alive connection, asking random users' lists
/// until `seconds` pass or `max_requests` are answered in all.
Figures load(int port, const Request& q, int connections, const Options& o) {
  const std::vector<std::string>& users = q.users;
  std::atomic<int64_t> issued{0};
  std::vector<std::vector<double>> lat(static_cast<size_t>(connections));
  std::vector<int64_t> failed(static_cast<size_t>(connections), 0);
  const auto t0 = Clock::now();
  const auto until = t0 + std::chrono::duration<double>(o.seconds);
  std::vector<std::thread> clients;
  for (int c = 0; c < connections; ++c)
    clients.emplace_back([&, c] {
      httplib::Client cli("127.0.0.1", port);
      cli.set_keep_alive(true);
      cli.set_tcp_nodelay(true);
      cli.set_read_timeout(30, 0);
      std::mt19937_64 rng(static_cast<uint64_t>(c) + 1);
      while (Clock::now() < until && issued.fetch_add(1) < o.max_requests) {
        const size_t who = rng() % users.size();
        const std::string& u = users[who];
        std::string body;
        if (o.post == "follows") {
          body = "{\"k\": 10, " + random_follows(users, rng) + "}";
        } else if (!o.post.empty()) {
          // Items the user has not rated (a refresh may not rate a rated pair again), distinct.
          const auto& seen = q.seen[who];
          std::vector<size_t> picked;
          for (int tries = 0; picked.size() < (o.post == "refresh" ? 3u : 5u) && tries < 1000; ++tries) {
            const size_t i = rng() % q.items.size();
            if (std::find(picked.begin(), picked.end(), i) != picked.end()) continue;
            if (o.post == "refresh" && std::binary_search(seen.begin(), seen.end(), static_cast<int64_t>(i)))
              continue;
            picked.push_back(i);
          }
          body = std::string("{\"k\": 10, ") + (o.post == "refresh" ? "\"user\": \"" + u + "\", " : "") +
                 "\"ratings\": [";
          for (size_t k = 0; k < picked.size(); ++k)
            body += std::string(k ? ", " : "") + "{\"item\": \"" + q.items[picked[k]] +
                    "\", \"rating\": " + std::to_string(q.rating) + "}";
          body += "]";
          if (o.post == "new-follows") body += ", " + random_follows(users, rng);
          body += "}";
        }
        const auto a = Clock::now();
        const auto r = o.post.empty() ? cli.Get(("/v1/recommend?user=" + u + "&k=10").c_str())
                                      : cli.Post("/v1/recommend", body, "application/json");
        const double ms = std::chrono::duration<double, std::milli>(Clock::now() - a).count();
        if (r && r->status == 200)
          lat[static_cast<size_t>(c)].push_back(ms);
        else
          ++failed[static_cast<size_t>(c)];
      }
    });
  for (auto& t : clients) t.join();
  Figures f;
  f.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  std::vector<double> all;
  for (size_t c = 0; c < lat.size(); ++c) {
    all.insert(all.end(), lat[c].begin(), lat[c].end());
    f.failed += failed[c];
  }
  f.ok = static_cast<int64_t>(all.size());
  if (!all.empty()) {
    std::sort(all.begin(), all.end());
    f.p50_ms = all[all.size() / 2];
    f.p99_ms = all[std::min(all.size() - 1, all.size() * 99 / 100)];
  }
  return f;
}

void print(const char* what, int connections, const Figures& f) {
  std::printf(
      "%-8s %5d connections: %9.0f requests/s  p50 %7.3f ms  p99 %7.3f ms  (%lld answered, %lld failed, %.1f "
      "s)\n",
      what, connections, static_cast<double>(f.ok) / f.seconds, f.p50_ms, f.p99_ms,
      static_cast<long long>(f.ok), static_cast<long long>(f.failed), f.seconds);
  std::fflush(stdout);
}

bool healthy(int port) {
  httplib::Client c("127.0.0.1", port);
  c.set_connection_timeout(1, 0);
  const auto r = c.Get("/healthz");
  return r && r->status == 200;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "bench_serve: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--model") {
      o.model = next();
    } else if (a == "--flask") {
      o.flask = true;
    } else if (a == "--seconds") {
      o.seconds = std::stod(next());
    } else if (a == "--max-requests") {
      o.max_requests = std::stoll(next());
    } else if (a == "--threads") {
      o.threads = std::stoi(next());
    } else if (a == "--post") {
      o.post = next();
      if (o.post != "new" && o.post != "new-follows" && o.post != "refresh" && o.post != "follows") {
        std::fprintf(stderr, "bench_serve: --post %s: expected new, new-follows, refresh or follows\n",
                     o.post.c_str());
        return 2;
      }
    } else if (a == "--levels") {
      o.levels.clear();
      std::stringstream ss(next());
      for (std::string x; std::getline(ss, x, ',');) o.levels.push_back(std::stoi(x));
    } else {
      std::fprintf(stderr, "bench_serve: unknown option %s (see the comment at the top of bench_serve.cpp)\n",
                   a.c_str());
      return 2;
    }
  }
  if (o.model.empty()) {
    std::fprintf(stderr,
                 "bench_serve: --model DIR is required (a directory written by symgnn train --out)\n");
    return 2;
  }
  // One compute thread per request, as `symgnn serve` computes (its --compute-threads 1):
  // eight requests at once on two cores would otherwise each start a team of compute threads.
  symgnn::runtime::set_compute_threads(1);
  symgnn::serve::ModelStore store({{"main", o.model}}, "cpu");
  symgnn::serve::ServeMetrics metrics;
  const symgnn::serve::Api api(store, metrics, {}, "");
  symgnn::serve::HttpOptions ho;
  ho.port = 0;
  ho.threads = o.threads;
  symgnn::serve::HttpServer server(api, ho);
  const int port = server.bind();
  std::thread run([&] { server.run(); });
  const auto model = store.get("");
  Request q;
  for (int64_t u = 0; u < model->model->users(); ++u)
    q.users.push_back(model->model->dataset().users.id_of(u));
  for (int64_t i = 0; i < model->model->items(); ++i)
    q.items.push_back(model->model->dataset().items.id_of(i));
  q.seen = model->model->seen_items();
  q.rating = model->model->rating_max();
  const std::string asked =
      o.post.empty()            ? "GET /v1/recommend k=10"
      : o.post == "new"         ? "POST /v1/recommend k=10, a new user's 5 ratings"
      : o.post == "new-follows" ? "POST /v1/recommend k=10, a new user's 5 ratings and 5 follows"
      : o.post == "follows"     ? "POST /v1/recommend k=10, a new user's 5 follows and no rating"
                                : "POST /v1/recommend k=10, a trained user's 3 fresh ratings";
  std::printf(
      "bench_serve: %s (%s, %lld users x %lld items, scores %s), %s, %d server threads, "
      "%u cores\n",
      o.model.c_str(), model->model->name().c_str(), static_cast<long long>(model->model->users()),
      static_cast<long long>(model->model->items()), model->cached ? "cached at load" : "per request",
      asked.c_str(), o.threads, std::thread::hardware_concurrency());
  if (o.post == "follows" && q.users.size() >= 5) {
    // One answer, to show what such a user gets: what ranked them and who rated each item.
    httplib::Client cli("127.0.0.1", port);
    std::string body = "{\"k\": 3, \"edges\": [";
    for (size_t k = 0; k < 5; ++k)
      body += std::string(k ? ", " : "") + "\"" + q.users[k * q.users.size() / 5] + "\"";
    body += "]}";
    const auto r = cli.Post("/v1/recommend", body, "application/json");
    std::printf("one answer: %s -> %d %s\n", body.c_str(), r ? r->status : -1,
                r ? r->body.substr(0, 600).c_str() : "(no answer)");
  }
  std::vector<Figures> ours;
  for (const int c : o.levels) {
    ours.push_back(load(port, q, c, o));
    print("serve", c, ours.back());
  }
  server.stop();
  run.join();
  if (!o.flask) return 0;

  // The Flask app, a child process on a port of its own.
  const int flask_port = port + 1;
  const pid_t pid = fork();
  if (pid == 0) {
    const std::string script = std::string(SYMGNN_SOURCE_DIR) + "/bench/serve_flask.py";
    // Debian's python3, which has the package's numpy and pandas (docs/python.md).
    execl("/usr/bin/python3", "python3", script.c_str(), "--model", o.model.c_str(), "--port",
          std::to_string(flask_port).c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  bool up = false;
  for (const auto until = Clock::now() + std::chrono::seconds(120); !up && Clock::now() < until;) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    up = healthy(flask_port);
    int status = 0;
    if (waitpid(pid, &status, WNOHANG) == pid) break;
  }
  if (!up) {
    std::printf(
        "flask: the app did not answer on 127.0.0.1:%d (python3-flask installed? the Python package "
        "built?); skipped\n",
        flask_port);
    kill(pid, SIGKILL);
    waitpid(pid, nullptr, 0);
    return 0;
  }
  for (size_t k = 0; k < o.levels.size(); ++k) {
    Options get = o;
    get.post.clear();
    const Figures f = load(flask_port, q, o.levels[k], get);
    print("flask", o.levels[k], f);
    if (f.ok > 0)
      std::printf(
          "         serve / flask at %d connections: %.1fx the requests per second\n", o.levels[k],
          (static_cast<double>(ours[k].ok) / ours[k].seconds) / (static_cast<double>(f.ok) / f.seconds));
  }
  kill(pid, SIGTERM);
  waitpid(pid, nullptr, 0);
  return 0;
}
