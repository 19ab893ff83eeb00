// Checksums on the files symgnn writes, verified when it reads them back
// (docs/reliability.md). Two forms, one per kind of file:
//  - sealed: binary files (model.pt, checkpoint.pt) start with one header line
//      "symgnn-sealed-1 sha256=<64 hex> bytes=<payload size>\n"
//    followed by the payload, so a model copied on its own still verifies;
//  - listed: text files in a folder symgnn owns (config.txt, metrics.json, predictions,
//    spec.txt, ...) keep their format for other tools; their SHA-256 is listed in the
//    folder's checksums.sha256, in `sha256sum -c`'s format.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace symgnn {

/// The folder manifest's file name.
inline constexpr const char* kChecksumManifest = "checksums.sha256";

/// SHA-256 of `bytes`, as 64 lowercase hex digits.
std::string sha256_hex(std::string_view bytes);

/// The sealed header line of `payload`; and `payload` behind it.
std::string seal_header(std::string_view payload);
std::string seal(std::string_view payload);

/// The payload of a sealed file's bytes, after checking its size and checksum; a ZIP
/// archive without a header (a model written before checksums existed) is returned as it
/// is. CheckpointError naming `path` otherwise.
std::string unseal(std::string bytes, const std::string& path);

/// The whole file `path`, unsealed (Error when it cannot be read).
std::string read_sealed_file(const std::string& path);

/// The whole file `path`, checked against its folder's manifest: DataError naming the file
/// when its checksum is not one the manifest lists for it. A file the manifest does not
/// list (written by hand or by an older symgnn) is returned unchecked.
std::string read_verified_file(const std::string& path);

namespace manifest {

/// One "<hash>  <name>" line of a manifest.
struct Entry {
  std::string hash, name;
};

/// The entries of folder `dir`'s manifest (none when it has no manifest).
std::vector<Entry> read(const std::string& dir);

/// Lists `hash` for `name` in `dir`'s manifest beside the hashes it lists already, so that
/// both the old and the new file verify while the new one is renamed into place.
void add_pending(const std::string& dir, const std::string& name, const std::string& hash);

/// Lists `hash` alone for `name` (the new file is in place).
void commit(const std::string& dir, const std::string& name, const std::string& hash);

/// Drops the entries of `names` (files removed from `dir`).
void forget(const std::string& dir, const std::vector<std::string>& names);

}  // namespace manifest

}  // namespace symgnn
