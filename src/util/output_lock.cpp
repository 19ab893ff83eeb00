#include "util/output_lock.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <regex>
#include <vector>

#include "symgnn/error.h"
#include "util/checksum.h"
#include "util/text.h"

namespace symgnn {

namespace fs = std::filesystem;

OutputLock::OutputLock(const std::string& dir, const std::string& option) {
  const std::string path = dir + "/" + kOutputLockFile;
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
  if (fd_ < 0)
    throw Error(path + ": cannot create the lock file of " + option + " (" + std::strerror(errno) + ")");
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    const int e = errno;
    std::string holder;
    read_file(path, holder);
    while (!holder.empty() && (holder.back() == '\n' || holder.back() == ' ')) holder.pop_back();
    ::close(fd_);
    fd_ = -1;
    if (e == EWOULDBLOCK)
      throw UsageError(option + " " + dir + " is in use by another symgnn run" +
                       (holder.empty() ? std::string() : " (process " + holder + ")") +
                       "; wait for it to finish or choose another folder");
    throw Error(path + ": cannot lock (" + std::strerror(e) + ")");
  }
  // Who holds it, for the message above (informative only: the flock is the lock).
  const std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd_, 0) == 0 && ::pwrite(fd_, pid.data(), pid.size(), 0) < 0) {
    // Not fatal: the lock holds without the note.
  }
}

OutputLock::~OutputLock() {
  if (fd_ >= 0) ::close(fd_);
}

namespace {

/// Whether `name` is "<prefix><pid>" (the atomic writer's temporary) of a process that is gone.
bool dead_writers_temporary(const std::string& name, const std::string& prefix) {
  if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) return false;
  const std::string pid = name.substr(prefix.size());
  if (pid.size() > 9 || pid.find_first_not_of("0123456789") != std::string::npos) return false;
  return ::kill(static_cast<pid_t>(std::stol(pid)), 0) != 0 && errno == ESRCH;
}

}  // namespace

int remove_dead_writers_temporaries(const std::string& dir) {
  int removed = 0;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    const size_t at = name.rfind(".tmp.");
    if (at == std::string::npos || !entry.is_regular_file(ec)) continue;
    if (dead_writers_temporary(name, name.substr(0, at + 5))) removed += fs::remove(entry.path(), ec) ? 1 : 0;
  }
  return removed;
}

int remove_stale_temporaries(const std::string& dir) {
  static const std::regex temporary(R"(.*\.tmp\.[0-9]+)");
  int removed = 0;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    if (it.depth() > 2) it.disable_recursion_pending();
    if (it->is_regular_file(ec) && std::regex_match(it->path().filename().string(), temporary))
      removed += fs::remove(it->path(), ec) ? 1 : 0;
  }
  return removed;
}

bool holds_run(const std::string& dir) {
  std::error_code ec;
  return fs::exists(dir + "/config.txt", ec);
}

void clear_run(const std::string& dir) {
  static const std::regex run_folder(R"(run[0-9]+)");
  // ranker.<kind>: a candidate of train.ranker = auto left by a run killed while choosing.
  static const std::regex ranker_candidate(R"(ranker\.[a-z_]+)");
  std::vector<std::string> removed;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    // dataset.bin, item_names.csv: the pinned data (data/dataset_snapshot.h); the graph edits a
    // server journalled on the old model (infer/graph_journal.h) are not the new one's.
    const bool file = name == "config.txt" || name == "metrics.json" || name == "model.pt" ||
                      name == "dataset.bin" || name == "item_names.csv" || name == "graph_journal.jsonl";
    // refresh/: the ratings `symgnn refresh` folded into the old model (infer/refresh.h).
    const bool folder = name == "final" || name == "predictions" || name == "ranker" || name == "refresh" ||
                        std::regex_match(name, run_folder) || std::regex_match(name, ranker_candidate);
    if (!file && !folder) continue;
    fs::remove_all(entry.path(), ec);
    if (ec) throw Error(entry.path().string() + ": cannot remove (" + ec.message() + ")");
    removed.push_back(name);
  }
  manifest::forget(dir, removed);
}

void check_output_file(const std::string& path, const std::string& option) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::is_directory(path, ec)) throw ConfigError(option + " " + path + " is a directory, not a file");
  const fs::path parent = fs::path(path).parent_path();
  if (!parent.empty() && !fs::is_directory(parent, ec))
    throw ConfigError(option + " " + path + ": folder " + parent.string() + " does not exist");
  if (::access(parent.empty() ? "." : parent.c_str(), W_OK) != 0)
    throw ConfigError(option + " " + path + ": folder " +
                      (parent.empty() ? std::string(".") : parent.string()) + " is not writable");
  // A killed writer of this file left its temporary ("<name>.tmp.<pid>"); one whose process
  // is gone is removed. A live process's is left alone: it may be writing the file now.
  const std::string prefix = fs::path(path).filename().string() + ".tmp.";
  for (const auto& entry : fs::directory_iterator(parent.empty() ? fs::path(".") : parent, ec))
    if (dead_writers_temporary(entry.path().filename().string(), prefix)) fs::remove(entry.path(), ec);
}

void check_output_dir(const std::string& path, const std::string& option) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::exists(path, ec) && !fs::is_directory(path, ec))
    throw ConfigError(option + " " + path + " is a file, not a directory");
  // The deepest folder that exists must let us create the rest (or write into it).
  fs::path p = fs::absolute(path, ec);
  while (!p.empty() && !fs::exists(p, ec)) p = p.parent_path();
  if (!p.empty() && !fs::is_directory(p, ec))
    throw ConfigError(option + " " + path + ": " + p.string() + " is a file, not a directory");
  if (!p.empty() && ::access(p.c_str(), W_OK) != 0)
    throw ConfigError(option + " " + path + ": " + p.string() + " is not writable");
}

}  // namespace symgnn
