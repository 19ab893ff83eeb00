// Writes that never leave a half-written file behind (docs/reliability.md): the bytes go to
// "<path>.tmp.<pid>", are flushed to disk (fsync), then renamed over the target, which is
// atomic on POSIX file systems. On any failure the temporary is removed, the previous file
// is left as it was, and an Error names the file and the system's reason. A temporary
// being written is registered, so the CLI's SIGINT/SIGTERM handler (cli/main.cpp) removes
// it before the process dies; one left by `kill -9` is removed by the next run that locks
// its folder (util/output_lock.h).
#pragma once

#include <functional>
#include <ostream>
#include <string>

namespace symgnn {

/// How the reader will know the file is the one symgnn wrote (util/checksum.h).
enum class Integrity {
  listed,  ///< its SHA-256 goes into the folder's checksums.sha256 (text files symgnn reads back)
  sealed,  ///< a checksummed header line precedes the bytes (binary model and checkpoint files)
  none,    ///< neither: files for people and other tools only (exports to a path the user names)
};

/// Calls write(stream) on an in-memory buffer, then writes it to `path` atomically.
void write_file_atomic(const std::string& path, const std::function<void(std::ostream&)>& write,
                       Integrity integrity = Integrity::listed);

/// Atomically writes `contents` to `path`.
void write_text_atomic(const std::string& path, const std::string& contents,
                       Integrity integrity = Integrity::listed);

/// Removes every temporary file being written now. Async-signal-safe: only for the
/// signal handler of cli/main.cpp.
void remove_temporaries_in_flight() noexcept;

}  // namespace symgnn
