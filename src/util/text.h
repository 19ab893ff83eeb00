// The project's text helpers, one of each: the whole-file reader and the fixed-precision
// number formatter that every folder uses, and the duration of the reports (reproduce, tune).
#pragma once

#include <sys/stat.h>

#include <fstream>
#include <sstream>
#include <string>
#include <utility>

namespace symgnn {

/// How read_file() ended.
enum class ReadStatus { ok, cannot_open, is_directory, read_error };

/// The whole file as bytes into `text` (no decoding: MovieLens files are latin-1), or why
/// it could not be read (`text` is then unchanged). The one whole-file reader: the wrappers
/// word its failures for their callers (read_text_file below; data::read_text_file adds
/// "<path>: file is empty").
inline ReadStatus read_file(const std::string& path, std::string& text) {
  // A directory opens as a stream that reads nothing: said as what it is, not "empty".
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) return ReadStatus::is_directory;
  std::ifstream in(path, std::ios::binary);
  if (!in) return ReadStatus::cannot_open;
  std::ostringstream buf;
  buf << in.rdbuf();
  if (in.bad()) return ReadStatus::read_error;
  text = std::move(buf).str();
  return ReadStatus::ok;
}

/// The whole file (read_file); DataError "<path>: cannot open (missing or unreadable file)"
/// or "<path>: read error" when it cannot be read.
std::string read_text_file(const std::string& path);

/// v with `digits` decimals ("0.7357"); "n/a" when v is not finite. The one fixed-precision
/// number formatter of the project.
std::string fixed(double v, int digits);

/// "45s", "3m05s", "1h12m".
std::string duration(double seconds);

}  // namespace symgnn
