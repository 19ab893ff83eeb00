#include "util/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <memory>
#include <sstream>
#include <vector>

#include "symgnn/error.h"
#include "util/checksum.h"
#include "util/fault_injection.h"

namespace symgnn {

namespace {

// The temporaries being written, for the signal handler: fixed slots (no allocation in the
// handler), each holding a path while its file may exist. A slot is 0 free, 1 being filled
// in, 2 holding a path.
constexpr int kSlots = 16;
constexpr size_t kPathMax = 4096;
char g_paths[kSlots][kPathMax];
std::atomic<int> g_state[kSlots];

}  // namespace

// Named, not anonymous: StreamingFileWriter::State holds one, and a member of a class with
// external linkage whose type is anonymous-namespace-local draws -Wsubobject-linkage where
// this file is compiled inside another (CMake's unity build).
namespace atomic_file_detail {

/// Registers one temporary for the life of the object (with no slot free it is not: the
/// next run that locks the folder still removes it).
class InFlight {
 public:
  explicit InFlight(const std::string& tmp) {
    if (tmp.size() >= kPathMax) return;
    for (int k = 0; k < kSlots; ++k) {
      int expected = 0;
      if (!g_state[k].compare_exchange_strong(expected, 1)) continue;
      std::memcpy(g_paths[k], tmp.c_str(), tmp.size() + 1);
      g_state[k].store(2);
      slot_ = k;
      return;
    }
  }
  InFlight(const InFlight&) = delete;
  InFlight& operator=(const InFlight&) = delete;
  ~InFlight() {
    if (slot_ >= 0) g_state[slot_].store(0);
  }

 private:
  int slot_ = -1;
};

}  // namespace atomic_file_detail

using atomic_file_detail::InFlight;

namespace {

[[noreturn]] void fail(const std::string& path, const std::string& what, int error) {
  std::string msg = path + ": cannot write: " + what + " (" + std::strerror(error) + ")";
  if (error == ENOSPC || error == EDQUOT) msg += "; free some space and run again";
  throw Error(msg + "; the previous file, if any, is unchanged");
}

/// write(2) until every byte is out, or the errno that stopped it (0 on success).
int write_all(int fd, const char* data, size_t size) {
  while (size > 0) {
    const ssize_t n = ::write(fd, data, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    data += n;
    size -= static_cast<size_t>(n);
  }
  return 0;
}

/// Creates (truncating) the temporary `tmp` for `path`, or throws the writer's one-line
/// error; an injected create fault fails here.
int create_temporary(const std::string& path, const std::string& tmp, const fault::WriteFault& injected) {
  int fd = -1;
  if (injected.error != 0 && injected.stage == fault::WriteStage::create) {
    errno = injected.error;
  } else {
    fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  }
  if (fd < 0) {
    const int e = errno;
    fail(path, "cannot create " + tmp, e);
  }
  return fd;
}

/// Closes and removes the temporary, then throws the writer's error.
[[noreturn]] void abandon(int fd, const std::string& path, const std::string& tmp, const std::string& what,
                          int error) {
  ::close(fd);
  ::unlink(tmp.c_str());
  fail(path, what, error);
}

/// Renames the complete temporary `tmp` over `path` and fsyncs the folder, a fault point on
/// each side: the end of every write and link.
void rename_into_place(const std::string& path, const std::string& tmp) {
  fault::point();
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const int e = errno;
    ::unlink(tmp.c_str());
    fail(path, "cannot rename " + tmp + " into place", e);
  }
  // The rename itself reaches the disk with the folder's own fsync (best effort: some file
  // systems refuse it on a folder, and the file is already complete).
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  const int dir = ::open(parent.empty() ? "." : parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir >= 0) {
    ::fsync(dir);
    ::close(dir);
  }
  fault::point();
}

/// fsync, close, rename `tmp` over `path` and fsync the folder: the end of every write.
void sync_and_rename(int fd, const std::string& path, const std::string& tmp,
                     const fault::WriteFault& injected) {
  if (injected.error != 0 && injected.stage == fault::WriteStage::sync)
    abandon(fd, path, tmp, "flush to disk failed", injected.error);
  // fsync before rename: without it a crash of the machine can leave the new name on an
  // empty file (ext4 delayed allocation).
  if (::fsync(fd) != 0) {
    const int e = errno;
    abandon(fd, path, tmp, "flush to disk failed", e);
  }
  if (::close(fd) != 0) {
    const int e = errno;
    ::unlink(tmp.c_str());
    fail(path, "close failed", e);
  }
  rename_into_place(path, tmp);
}

std::string temporary_name(const std::string& path) {
  return path + ".tmp." + std::to_string(::getpid());
}

/// Writes `head` then `bytes` to `tmp` and renames it to `path`; the temporary is gone on
/// every error. (Two pieces: a sealed file's header is not copied in front of its payload.)
void write_and_rename(const std::string& path, const std::string& tmp, const std::string& head,
                      const std::string& bytes) {
  const fault::WriteFault injected = fault::write_fault(path);
  InFlight registered(tmp);
  const int fd = create_temporary(path, tmp, injected);
  if (injected.error != 0 && injected.stage == fault::WriteStage::write) {
    // A disk that fills part-way: half the bytes land, then the error.
    write_all(fd, bytes.data(), bytes.size() / 2);
    abandon(fd, path, tmp, "write failed", injected.error);
  }
  // errno is read before anything else can change it.
  if (const int e = write_all(fd, head.data(), head.size()); e != 0)
    abandon(fd, path, tmp, "write failed", e);
  if (const int e = write_all(fd, bytes.data(), bytes.size()); e != 0)
    abandon(fd, path, tmp, "write failed", e);
  sync_and_rename(fd, path, tmp, injected);
}

}  // namespace

void write_file_atomic(const std::string& path, const std::function<void(std::ostream&)>& write,
                       Integrity integrity) {
  std::string bytes;
  {
    std::ostringstream out;
    write(out);
    bytes = std::move(out).str();
  }
  write_text_atomic(path, bytes, integrity);
}

namespace {

/// Hard-links `from` as `tmp`, then renames it over `path` and syncs the folder
/// (rename_into_place). False, with nothing changed, where the file system takes no
/// hard link there (another device, links not supported or too many). An injected fault of
/// `path` fails the link (create or write stage) or the step before the rename (sync stage).
bool link_and_rename(const std::string& from, const std::string& path, const std::string& tmp) {
  const fault::WriteFault injected = fault::write_fault(path);
  InFlight registered(tmp);
  ::unlink(tmp.c_str());  // a temporary of this process's earlier, failed write
  if (injected.error != 0 && injected.stage != fault::WriteStage::sync)
    fail(path, "cannot link " + from, injected.error);
  if (::link(from.c_str(), tmp.c_str()) != 0) {
    const int e = errno;
    if (e == EXDEV || e == EPERM || e == EMLINK || e == ENOTSUP || e == EOPNOTSUPP) return false;
    fail(path, "cannot link " + from, e);
  }
  if (injected.error != 0 && injected.stage == fault::WriteStage::sync) {
    ::unlink(tmp.c_str());
    fail(path, "flush to disk failed", injected.error);
  }
  rename_into_place(path, tmp);
  return true;
}

/// Puts a file with contents `bytes` at `path` by `place`, its SHA-256 listed in the folder's
/// manifest (Integrity::listed) so that a crash at any point leaves a file that verifies.
void place_listed(const std::string& path, const std::string& bytes, const std::function<void()>& place) {
  const std::filesystem::path p(path);
  const std::string dir = p.has_parent_path() ? p.parent_path().string() : ".";
  const std::string name = p.filename().string();
  // sha256sum escapes such names; they are not listed (the file is still written atomically).
  if (name.find_first_of("\n\\") != std::string::npos) return place();
  const std::string hash = sha256_hex(bytes);
  // Old and new both listed while the rename happens: a crash at any point leaves a file
  // that verifies.
  manifest::add_pending(dir, name, hash);
  try {
    place();
  } catch (...) {
    // The old file stayed; its hash is still listed. The new one (never renamed in) can go.
    try {
      std::vector<manifest::Entry> keep;
      for (const manifest::Entry& e : manifest::read(dir))
        if (e.name == name && e.hash != hash) keep.push_back(e);
      if (keep.empty())
        manifest::forget(dir, {name});
      else if (keep.size() == 1)
        manifest::commit(dir, name, keep[0].hash);
    } catch (const Error&) {
      // The manifest still lists both hashes: still correct, only longer.
    }
    throw;
  }
  manifest::commit(dir, name, hash);
}

}  // namespace

void write_text_atomic(const std::string& path, const std::string& bytes, Integrity integrity) {
  // The bytes as given, never copied: a checkpoint's are tens of megabytes, and a copy
  // through a stream buffer was most of a small run's peak memory.
  const std::string tmp = temporary_name(path);
  if (integrity == Integrity::sealed) return write_and_rename(path, tmp, seal_header(bytes), bytes);
  if (integrity == Integrity::none) return write_and_rename(path, tmp, "", bytes);
  place_listed(path, bytes, [&] { write_and_rename(path, tmp, "", bytes); });
}

void link_file_atomic(const std::string& from, const std::string& path, const std::string& bytes) {
  const std::string tmp = temporary_name(path);
  place_listed(path, bytes, [&] {
    if (!link_and_rename(from, path, tmp)) write_and_rename(path, tmp, "", bytes);
  });
}

struct StreamingFileWriter::State {
  std::string path, tmp;
  fault::WriteFault injected;
  InFlight registered;
  int fd = -1;
  std::vector<char> buffer;
  size_t used = 0;
  bool first_flush = true;
  State(std::string p, std::string t, fault::WriteFault f)
      : path(std::move(p)), tmp(std::move(t)), injected(f), registered(tmp) {}
};

StreamingFileWriter::StreamingFileWriter(const std::string& path, size_t buffer_bytes)
    : state_(std::make_unique<State>(path, temporary_name(path), fault::write_fault(path))) {
  state_->buffer.resize(std::max<size_t>(buffer_bytes, 1));
  state_->fd = create_temporary(path, state_->tmp, state_->injected);
}

StreamingFileWriter::~StreamingFileWriter() {
  // Never committed (an exception unwound past it): the temporary goes, the target stays.
  if (state_ && state_->fd >= 0) {
    ::close(state_->fd);
    ::unlink(state_->tmp.c_str());
  }
}

void StreamingFileWriter::flush_buffer() {
  State& s = *state_;
  if (s.fd < 0) throw Error(s.path + ": cannot write: the file was already committed or failed");
  if (s.first_flush && s.injected.error != 0 && s.injected.stage == fault::WriteStage::write) {
    // A disk that fills part-way: half the first buffer lands, then the error.
    write_all(s.fd, s.buffer.data(), s.used / 2);
    const int fd = s.fd;
    s.fd = -1;
    abandon(fd, s.path, s.tmp, "write failed", s.injected.error);
  }
  s.first_flush = false;
  if (const int e = write_all(s.fd, s.buffer.data(), s.used); e != 0) {
    const int fd = s.fd;
    s.fd = -1;
    abandon(fd, s.path, s.tmp, "write failed", e);
  }
  written_ += s.used;
  s.used = 0;
}

void StreamingFileWriter::write(std::string_view bytes) {
  State& s = *state_;
  while (!bytes.empty()) {
    if (s.used == s.buffer.size()) flush_buffer();
    const size_t n = std::min(bytes.size(), s.buffer.size() - s.used);
    std::memcpy(s.buffer.data() + s.used, bytes.data(), n);
    s.used += n;
    bytes.remove_prefix(n);
  }
}

void StreamingFileWriter::commit() {
  flush_buffer();
  State& s = *state_;
  const int fd = s.fd;
  s.fd = -1;  // from here sync_and_rename owns the descriptor and the temporary
  sync_and_rename(fd, s.path, s.tmp, s.injected);
}

void remove_temporaries_in_flight() noexcept {
  for (int k = 0; k < kSlots; ++k)
    if (g_state[k].load() == 2) ::unlink(g_paths[k]);
}

}  // namespace symgnn
