#include "util/checksum.h"

#include <fcntl.h>
#include <openssl/evp.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <memory>

#include "symgnn/error.h"
#include "util/atomic_file.h"
#include "util/text.h"

namespace symgnn {

namespace {

constexpr std::string_view kSealTag = "symgnn-sealed-1 ";
constexpr size_t kHexLength = 64;

std::string folder_of(const std::string& path) {
  const std::filesystem::path p(path);
  return p.has_parent_path() ? p.parent_path().string() : ".";
}

bool is_hex_digest(std::string_view s) {
  return s.size() == kHexLength && std::all_of(s.begin(), s.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

}  // namespace

std::string sha256_hex(std::string_view bytes) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (EVP_Digest(bytes.data(), bytes.size(), digest, &length, EVP_sha256(), nullptr) != 1)
    throw Error("SHA-256 failed (OpenSSL)");
  static const char* hex = "0123456789abcdef";
  std::string out;
  out.reserve(2 * length);
  for (unsigned int k = 0; k < length; ++k) {
    out += hex[digest[k] >> 4];
    out += hex[digest[k] & 15];
  }
  return out;
}

std::string seal_header(std::string_view payload) {
  return std::string(kSealTag) + "sha256=" + sha256_hex(payload) +
         " bytes=" + std::to_string(payload.size()) + "\n";
}

std::string seal(std::string_view payload) {
  std::string out = seal_header(payload);
  out += payload;
  return out;
}

std::string unseal(std::string bytes, const std::string& path) {
  if (bytes.compare(0, kSealTag.size(), kSealTag) != 0) {
    if (bytes.compare(0, 4, "PK\x03\x04") == 0) return bytes;  // written before checksums
    throw CheckpointError(path + ": not a file written by symgnn (no checksum header)");
  }
  const size_t eol = bytes.find('\n');
  const std::string header = bytes.substr(0, std::min(eol, size_t(256)));
  const size_t at_hash = header.find("sha256="), at_size = header.find(" bytes=");
  if (eol == std::string::npos || at_hash == std::string::npos || at_size == std::string::npos ||
      !is_hex_digest(header.substr(at_hash + 7, at_size - at_hash - 7)))
    throw CheckpointError(path + ": damaged checksum header");
  const std::string expected = header.substr(at_hash + 7, kHexLength);
  const std::string size_text = header.substr(at_size + 7);
  const size_t payload = bytes.size() - eol - 1;
  if (size_text != std::to_string(payload))
    throw CheckpointError(path + ": holds " + std::to_string(payload) +
                          " bytes after its header, which says " + size_text +
                          " (truncated or damaged file)");
  bytes.erase(0, eol + 1);
  if (sha256_hex(bytes) != expected)
    throw CheckpointError(path + ": checksum mismatch (the file is damaged; restore it or train again)");
  return bytes;
}

std::string read_sealed_file(const std::string& path) {
  std::string bytes;
  if (read_file(path, bytes) != ReadStatus::ok) throw CheckpointError(path + ": cannot read");
  return unseal(std::move(bytes), path);
}

std::string read_verified_file(const std::string& path) {
  const std::string bytes = read_text_file(path);
  const std::string name = std::filesystem::path(path).filename().string();
  bool listed = false;
  const std::string hash = sha256_hex(bytes);
  for (const manifest::Entry& e : manifest::read(folder_of(path))) {
    if (e.name != name) continue;
    if (e.hash == hash) return bytes;
    listed = true;
  }
  if (listed)
    throw DataError(path, 0,
                    std::string("checksum differs from the one in ") + kChecksumManifest +
                        " (the file was damaged or edited after symgnn wrote it)");
  return bytes;
}

namespace manifest {

namespace {

/// An exclusive flock on the folder itself for one read-modify-write of its manifest, so
/// that two processes (or threads) writing into one folder do not lose each other's entry.
class FolderLock {
 public:
  explicit FolderLock(const std::string& dir) : fd_(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)) {
    if (fd_ < 0) throw Error(dir + ": cannot open the folder to update " + kChecksumManifest);
    while (::flock(fd_, LOCK_EX) != 0)
      if (errno != EINTR) break;
  }
  FolderLock(const FolderLock&) = delete;
  FolderLock& operator=(const FolderLock&) = delete;
  ~FolderLock() { ::close(fd_); }  // closing releases the lock

 private:
  int fd_;
};

void write_entries(const std::string& dir, const std::vector<Entry>& entries) {
  const std::string path = dir + "/" + kChecksumManifest;
  if (entries.empty()) {
    std::remove(path.c_str());
    return;
  }
  std::string text;
  for (const Entry& e : entries) text += e.hash + "  " + e.name + "\n";
  write_text_atomic(path, text, Integrity::none);
}

/// Rewrites the manifest with `name`'s hashes replaced by `hashes` (kept in order, once).
void set_hashes(const std::string& dir, const std::string& name, const std::vector<std::string>& hashes) {
  FolderLock lock(dir);
  std::vector<Entry> entries;
  for (Entry& e : read(dir))
    if (e.name != name) entries.push_back(std::move(e));
  for (const std::string& h : hashes) entries.push_back({h, name});
  write_entries(dir, entries);
}

}  // namespace

std::vector<Entry> read(const std::string& dir) {
  std::string text;
  if (read_file(dir + "/" + kChecksumManifest, text) != ReadStatus::ok) return {};
  std::vector<Entry> out;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(start, end - start);
    start = end + 1;
    // "<hash>  <name>" (text mode) or "<hash> *<name>" (binary mode), as sha256sum writes.
    if (line.size() > kHexLength + 2 && is_hex_digest(line.substr(0, kHexLength)) && line[kHexLength] == ' ')
      out.push_back({line.substr(0, kHexLength), line.substr(kHexLength + 2)});
  }
  return out;
}

void add_pending(const std::string& dir, const std::string& name, const std::string& hash) {
  FolderLock lock(dir);
  std::vector<Entry> entries = read(dir);
  const bool old_listed =
      std::any_of(entries.begin(), entries.end(), [&](const Entry& e) { return e.name == name; });
  const bool old_exists = std::filesystem::exists(dir + "/" + name);
  if (old_exists && !old_listed) {
    // The file in place was not listed (an older symgnn wrote it): list it as it is, so that
    // it verifies until the rename.
    std::string bytes;
    if (read_file(dir + "/" + name, bytes) == ReadStatus::ok) entries.push_back({sha256_hex(bytes), name});
  }
  if (!std::any_of(entries.begin(), entries.end(),
                   [&](const Entry& e) { return e.name == name && e.hash == hash; }))
    entries.push_back({hash, name});
  write_entries(dir, entries);
}

void commit(const std::string& dir, const std::string& name, const std::string& hash) {
  set_hashes(dir, name, {hash});
}

void forget(const std::string& dir, const std::vector<std::string>& names) {
  FolderLock lock(dir);
  std::vector<Entry> entries;
  for (Entry& e : read(dir))
    if (std::find(names.begin(), names.end(), e.name) == names.end()) entries.push_back(std::move(e));
  write_entries(dir, entries);
}

}  // namespace manifest

}  // namespace symgnn
