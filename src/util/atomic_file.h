// Writes that never leave a half-written file behind (docs/reliability.md): the bytes go to
// "<path>.tmp.<pid>", are flushed to disk (fsync), then renamed over the target, which is
// atomic on POSIX file systems. On any failure the temporary is removed, the previous file
// is left as it was, and an Error names the file and the system's reason. A temporary
// being written is registered, so the CLI's SIGINT/SIGTERM handler (cli/main.cpp) removes
// it before the process dies; one left by `kill -9` is removed by the next run that locks
// its folder (util/output_lock.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>

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

/// What write_text_atomic(path, bytes) gives (listed in the folder's manifest), where the
/// file `from` already holds `bytes` (read and verified by the caller): a hard link to it,
/// renamed into place, so that the bytes are on disk once (a model folder's model.pt beside
/// its run's, 128 MB on real/ml-latest-small). Where the file system takes no hard link
/// there, the bytes are written. A later atomic write of either name replaces that name only.
void link_file_atomic(const std::string& from, const std::string& path, const std::string& bytes);

/// The same atomic write for files too large to hold in memory (generated data sets of
/// gigabytes): bytes go through a buffer of `buffer_bytes` to "<path>.tmp.<pid>" as they
/// come, and commit() fsyncs, renames it over `path` and fsyncs the folder. Destroyed
/// without commit() (an exception, a failed write), the temporary is removed and `path` is
/// left as it was. Errors are the writer's one-line Error. No checksum: the files it writes
/// are exports for other tools and the loaders (Integrity::none, docs/reliability.md).
class StreamingFileWriter {
 public:
  explicit StreamingFileWriter(const std::string& path, size_t buffer_bytes = size_t{4} << 20);
  ~StreamingFileWriter();
  StreamingFileWriter(const StreamingFileWriter&) = delete;
  StreamingFileWriter& operator=(const StreamingFileWriter&) = delete;

  void write(std::string_view bytes);
  /// Makes the file visible under its name; the writer takes no more bytes after it.
  void commit();
  /// Bytes handed to the file so far (those still in the buffer not counted).
  uint64_t bytes_written() const { return written_; }

 private:
  void flush_buffer();
  struct State;
  std::unique_ptr<State> state_;
  uint64_t written_ = 0;
};

/// Removes every temporary file being written now. Async-signal-safe: only for the
/// signal handler of cli/main.cpp.
void remove_temporaries_in_flight() noexcept;

}  // namespace symgnn
