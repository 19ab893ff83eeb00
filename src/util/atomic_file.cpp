#include "util/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <sstream>

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

/// Writes `head` then `bytes` to `tmp` and renames it to `path`; the temporary is gone on
/// every error. (Two pieces: a sealed file's header is not copied in front of its payload.)
void write_and_rename(const std::string& path, const std::string& tmp, const std::string& head,
                      const std::string& bytes) {
  const fault::WriteFault injected = fault::write_fault(path);
  InFlight registered(tmp);
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
  const auto abandon = [&](const std::string& what, int error) {
    ::close(fd);
    ::unlink(tmp.c_str());
    fail(path, what, error);
  };
  if (injected.error != 0 && injected.stage == fault::WriteStage::write) {
    // A disk that fills part-way: half the bytes land, then the error.
    write_all(fd, bytes.data(), bytes.size() / 2);
    abandon("write failed", injected.error);
  }
  // errno is read before anything else can change it.
  if (const int e = write_all(fd, head.data(), head.size()); e != 0) abandon("write failed", e);
  if (const int e = write_all(fd, bytes.data(), bytes.size()); e != 0) abandon("write failed", e);
  if (injected.error != 0 && injected.stage == fault::WriteStage::sync)
    abandon("flush to disk failed", injected.error);
  // fsync before rename: without it a crash of the machine can leave the new name on an
  // empty file (ext4 delayed allocation).
  if (::fsync(fd) != 0) {
    const int e = errno;
    abandon("flush to disk failed", e);
  }
  if (::close(fd) != 0) {
    const int e = errno;
    ::unlink(tmp.c_str());
    fail(path, "close failed", e);
  }
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

}  // namespace

void write_file_atomic(const std::string& path, const std::function<void(std::ostream&)>& write,
                       Integrity integrity) {
  std::string bytes;
  {
    std::ostringstream out;
    write(out);
    bytes = std::move(out).str();
  }
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  if (integrity == Integrity::sealed) return write_and_rename(path, tmp, seal_header(bytes), bytes);
  if (integrity == Integrity::none) return write_and_rename(path, tmp, "", bytes);

  const std::filesystem::path p(path);
  const std::string dir = p.has_parent_path() ? p.parent_path().string() : ".";
  const std::string name = p.filename().string();
  // sha256sum escapes such names; they are not listed (the file is still written atomically).
  if (name.find_first_of("\n\\") != std::string::npos) return write_and_rename(path, tmp, "", bytes);
  const std::string hash = sha256_hex(bytes);
  // Old and new both listed while the rename happens: a crash at any point leaves a file
  // that verifies.
  manifest::add_pending(dir, name, hash);
  try {
    write_and_rename(path, tmp, "", bytes);
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

void write_text_atomic(const std::string& path, const std::string& contents, Integrity integrity) {
  write_file_atomic(
      path, [&](std::ostream& out) { out << contents; }, integrity);
}

void remove_temporaries_in_flight() noexcept {
  for (int k = 0; k < kSlots; ++k)
    if (g_state[k].load() == 2) ::unlink(g_paths[k]);
}

}  // namespace symgnn
