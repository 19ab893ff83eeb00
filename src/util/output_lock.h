// One writer per output folder (docs/reliability.md): `train --out DIR` and `--resume DIR`
// hold an exclusive lock on DIR/.symgnn.lock for the whole run. The lock is a flock, so
// the kernel drops it when the process dies, `kill -9` included: a stale lock file never
// blocks the next run. Taking the lock also removes the temporaries a killed run left.
#pragma once

#include <string>

namespace symgnn {

/// The lock's file in a locked folder.
inline constexpr const char* kOutputLockFile = ".symgnn.lock";

class OutputLock {
 public:
  /// Locks `dir` (which must exist); Error naming `option` and the holder's process id when
  /// another process (or another thread of this one) holds it.
  OutputLock(const std::string& dir, const std::string& option);
  OutputLock(const OutputLock&) = delete;
  OutputLock& operator=(const OutputLock&) = delete;
  OutputLock(OutputLock&& o) noexcept : fd_(o.fd_) { o.fd_ = -1; }
  ~OutputLock();

 private:
  int fd_ = -1;
};

/// Removes "*.tmp.<pid>" files (those of the atomic writer) in `dir` and its sub-folders.
/// Only for a folder whose lock is held: no other process is writing there.
int remove_stale_temporaries(const std::string& dir);

/// Removes the "*.tmp.<pid>" files directly in `dir` whose process is gone (a killed
/// writer's), leaving a live process's: for a folder whose sub-folders others may write.
int remove_dead_writers_temporaries(const std::string& dir);

/// Output paths, checked before any work: a file to write (its folder must exist and be
/// writable; not a directory) and a directory to create or write into (not a file; its
/// deepest existing folder writable). ConfigError naming the option. check_output_file also
/// removes the temporaries of the file that writers killed before their rename left.
void check_output_file(const std::string& path, const std::string& option);
void check_output_dir(const std::string& path, const std::string& option);

/// Whether `dir` holds a training run (its config.txt).
bool holds_run(const std::string& dir);

/// Removes what `symgnn train` writes into `dir` (config.txt, metrics.json, model.pt, dataset.bin,
/// item_names.csv, run<N>/, final/, predictions/), leaving any other file where it is.
void clear_run(const std::string& dir);

}  // namespace symgnn
