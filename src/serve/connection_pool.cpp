// The pool of serve's workers with a deadline per request and a bounded queue
// (connection_pool.h).
#include "serve/connection_pool.h"

#include <dlfcn.h>
#include <sys/socket.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

namespace {

// The descriptor the last accept() on this thread returned. cpp-httplib 0.11 accepts a
// connection and hands it to the task queue on its listening thread, one call after the
// other, without telling the queue which socket the task serves: this accept(), found
// before libc's by the dynamic linker, is how the pool learns it. It changes nothing else:
// every caller gets libc's result.
thread_local int last_accepted = -1;

// The pool and the entry of the connection a worker is answering.
thread_local symgnn::serve::ConnectionPool* current_pool = nullptr;
thread_local uint64_t current_id = 0;

/// One canned answer with a JSON error body, closing the connection.
std::string canned(int status, const char* reason, const std::string& error, const char* extra = "") {
  const std::string body = nlohmann::json{{"error", "HTTP " + std::to_string(status) + ": " + error}}.dump();
  return "HTTP/1.1 " + std::to_string(status) + " " + reason +
         "\r\nContent-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) + "\r\n" +
         extra + "Connection: close\r\n\r\n" + body;
}

/// Sends what fits without waiting; never raises SIGPIPE.
void send_now(int socket, const std::string& bytes) {
  (void)!::send(socket, bytes.data(), bytes.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
}

}  // namespace

extern "C" int accept(int fd, struct sockaddr* __restrict addr, socklen_t* __restrict len) {
  using Accept = int (*)(int, struct sockaddr*, socklen_t*);
  static const auto real = reinterpret_cast<Accept>(dlsym(RTLD_NEXT, "accept"));
  const int socket = real(fd, addr, len);
  last_accepted = socket;
  return socket;
}

namespace symgnn::serve {

ConnectionPool::ConnectionPool(size_t threads, size_t max_queued, std::chrono::milliseconds request_time,
                               Shared shared)
    : request_time_(request_time), shared_(std::move(shared)), max_queued_(max_queued) {
  for (size_t k = 0; k < std::max<size_t>(1, threads); ++k) workers_.emplace_back([this] { work(); });
  watchdog_ = std::thread([this] { watch(); });
}

ConnectionPool::~ConnectionPool() {
  shutdown();
}

const std::string& ConnectionPool::refusal() {
  static const std::string answer =
      canned(503, "Service Unavailable",
             "every worker is busy and the queue of waiting connections is full; "
             "retry shortly",
             "Retry-After: 1\r\n");
  return answer;
}

const std::string& ConnectionPool::stopping_refusal() {
  static const std::string answer = canned(
      503, "Service Unavailable", "the server is stopping; retry on its successor", "Retry-After: 1\r\n");
  return answer;
}

void ConnectionPool::enqueue(std::function<void()> fn) {
  Job job{std::move(fn), last_accepted};
  last_accepted = -1;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (job.socket < 0 || jobs_.size() < max_queued_ || shutdown_) {
      if (shared_.busy) ++*shared_.busy;
      jobs_.push_back(std::move(job));
      wake_.notify_one();
      return;
    }
  }
  refuse(std::move(job), refusal());
}

void ConnectionPool::refuse(Job job, const std::string& answer) {
  // The request's bytes that have arrived are read first: closing a socket with unread
  // bytes sends a reset, and the client would lose the answer.
  char sink[4096];
  for (int reads = 0; reads < 64 && ::recv(job.socket, sink, sizeof sink, MSG_DONTWAIT) > 0; ++reads) {
  }
  send_now(job.socket, answer);
  ::shutdown(job.socket, SHUT_RDWR);
  job.fn();  // the library's task: it reads the end of the stream and closes the socket
}

uint64_t ConnectionPool::start_watching(int socket) {
  if (socket < 0) return 0;
  // A duplicate, so that the descriptor the watchdog shuts down is ours until we close it,
  // whatever number the library's closed descriptor is given next.
  const int mine = ::dup(socket);
  if (mine < 0) return 0;
  std::lock_guard<std::mutex> lock(mutex_);
  const uint64_t id = next_id_++;
  watched_[id] = Watched{mine, std::chrono::steady_clock::now(), true};
  return id;
}

void ConnectionPool::stop_watching(uint64_t id) {
  if (id == 0) return;
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it = watched_.find(id);
  if (it == watched_.end()) return;
  ::close(it->second.socket);
  watched_.erase(it);
}

void ConnectionPool::answering() {
  if (!current_pool || current_id == 0) return;
  std::lock_guard<std::mutex> lock(current_pool->mutex_);
  if (const auto it = current_pool->watched_.find(current_id); it != current_pool->watched_.end())
    it->second.reading = false;
}

void ConnectionPool::answered() {
  if (!current_pool || current_id == 0) return;
  std::lock_guard<std::mutex> lock(current_pool->mutex_);
  if (const auto it = current_pool->watched_.find(current_id); it != current_pool->watched_.end()) {
    it->second.reading = true;
    it->second.reading_since = std::chrono::steady_clock::now();
  }
}

void ConnectionPool::work() {
  for (;;) {
    Job job;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [&] { return !jobs_.empty() || shutdown_; });
      if (jobs_.empty()) return;  // shut down, and nothing is left to answer
      job = std::move(jobs_.front());
      jobs_.pop_front();
    }
    if (job.socket >= 0 && shared_.stopping && shared_.stopping->load()) {
      refuse(std::move(job), stopping_refusal());
    } else {
      const uint64_t id = start_watching(job.socket);
      current_pool = this;
      current_id = id;
      job.fn();
      current_pool = nullptr;
      current_id = 0;
      stop_watching(id);
    }
    if (shared_.busy) --*shared_.busy;
  }
}

void ConnectionPool::watch() {
  static const std::string too_slow =
      canned(408, "Request Timeout", "the request did not arrive in time; send it whole, promptly");
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    // Ends after the workers: a drain's slow clients are cut at their deadline too.
    if (stopped_) return;
    tick_.wait_for(lock, std::chrono::milliseconds(100));
    const auto now = std::chrono::steady_clock::now();
    // Draining, a connection being read has kDrainGrace from when it began (or from the
    // drain, which is at most this tick), not its whole deadline.
    const bool draining = shared_.draining && shared_.draining->load();
    const auto limit = draining ? std::min<std::chrono::steady_clock::duration>(request_time_, kDrainGrace)
                                : std::chrono::steady_clock::duration(request_time_);
    for (auto& [id, w] : watched_) {
      if (!w.reading || now - w.reading_since < limit) continue;
      // The worker waits in a read: the shutdown ends it, and the library closes the
      // connection.
      send_now(w.socket, too_slow);
      ::shutdown(w.socket, SHUT_RDWR);
      w.reading = false;
    }
  }
}

void ConnectionPool::shutdown() {
  std::vector<std::thread> workers;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (shutdown_) return;
    shutdown_ = true;
    workers.swap(workers_);
  }
  wake_.notify_all();
  for (std::thread& t : workers) t.join();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopped_ = true;
  }
  tick_.notify_all();
  if (watchdog_.joinable()) watchdog_.join();
}

}  // namespace symgnn::serve
