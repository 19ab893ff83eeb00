#include "util/text.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "symgnn/error.h"

namespace symgnn {

std::string read_text_file(const std::string& path) {
  std::string text;
  switch (read_file(path, text)) {
    case ReadStatus::cannot_open: throw DataError(path, 0, "cannot open (missing or unreadable file)");
    case ReadStatus::is_directory: throw DataError(path, 0, "is a directory, not a file");
    case ReadStatus::read_error: throw DataError(path, 0, "read error");
    case ReadStatus::ok: break;
  }
  return text;
}

std::string fixed(double v, int digits) {
  if (!std::isfinite(v)) return "n/a";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

std::string duration(double seconds) {
  const long s = std::lround(std::max(0.0, seconds));
  char buf[32];
  if (s < 60)
    std::snprintf(buf, sizeof buf, "%lds", s);
  else if (s < 3600)
    std::snprintf(buf, sizeof buf, "%ldm%02lds", s / 60, s % 60);
  else
    std::snprintf(buf, sizeof buf, "%ldh%02ldm", s / 3600, (s % 3600) / 60);
  return buf;
}

}  // namespace symgnn
