/// @file text_reader.cpp
/// Line reading, field splitting and number parsing for the text formats (see text_reader.h).
#include "data/text_reader.h"

#include <sys/stat.h>

#include <algorithm>
#include <charconv>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iterator>

#include "symgnn/error.h"
#include "util/text.h"

namespace symgnn::data {

std::string read_text_file(const std::string& path) {
  std::string text = symgnn::read_text_file(path);
  if (text.empty()) throw DataError(path, 0, "file is empty");
  return text;
}

namespace {

bool is_space(char c) {
  return c == ' ' || c == '\r' || c == '\t' || c == '\v' || c == '\f';
}

std::string_view trim_spaces(std::string_view s) {
  // Tabs are kept inside a line (they delimit TSV fields, even empty trailing ones) but a line
  // made only of whitespace is blank; split_lines handles that case.
  size_t b = 0, e = s.size();
  while (b < e && (s[b] == ' ' || s[b] == '\r')) ++b;
  while (e > b && (s[e - 1] == ' ' || s[e - 1] == '\r')) --e;
  return s.substr(b, e - b);
}

std::string_view trim_field(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && is_space(s[b])) ++b;
  while (e > b && is_space(s[e - 1])) --e;
  s = s.substr(b, e - b);
  if (s.size() >= 2 && s.front() == '"' && s.back() == '"') s = s.substr(1, s.size() - 2);
  return s;
}

}  // namespace

LineReader::LineReader(const std::string& path, bool comments, size_t chunk)
    : name_(path), comments_(comments), chunk_(std::max<size_t>(chunk, 1)), eof_(false) {
  file_ = std::fopen(path.c_str(), "rb");
  if (!file_) throw DataError(path, 0, "cannot open (missing or unreadable file)");
  struct stat st {};
  if (::fstat(::fileno(file_), &st) == 0) {
    if (S_ISDIR(st.st_mode)) {
      std::fclose(file_);
      file_ = nullptr;
      throw DataError(path, 0, "is a directory, not a file");
    }
    total_bytes_ = static_cast<uint64_t>(st.st_size);
  }
  // At least the three bytes of a byte-order mark, however small the chunk.
  while (buffer_.size() < 3 && fill()) {
  }
  if (buffer_.empty()) {
    std::fclose(file_);
    file_ = nullptr;
    throw DataError(path, 0, "file is empty");
  }
  if (text_.substr(0, 3) == "\xEF\xBB\xBF") begin_ = 3;
}

LineReader::LineReader(std::string_view text, std::string name, bool comments)
    : name_(std::move(name)), comments_(comments), text_(text), total_bytes_(text.size()) {
  if (text_.substr(0, 3) == "\xEF\xBB\xBF") begin_ = 3;
}

LineReader::~LineReader() {
  if (file_) std::fclose(file_);
}

bool LineReader::fill() {
  if (eof_) return false;
  // Keep the unread tail (a partial line) at the front, then append a chunk behind it.
  buffer_.erase(0, std::min(begin_, buffer_.size()));
  begin_ = 0;
  const size_t have = buffer_.size();
  buffer_.resize(have + chunk_);
  const size_t n = std::fread(&buffer_[have], 1, chunk_, file_);
  buffer_.resize(have + n);
  if (n < chunk_) {
    if (std::ferror(file_)) throw DataError(name_, 0, "read error");
    eof_ = std::feof(file_) != 0;
  }
  text_ = buffer_;
  return n > 0;
}

bool LineReader::next(TextLine& out) {
  for (;;) {
    size_t end = text_.find('\n', begin_);
    if (end == std::string_view::npos) {
      if (!eof_) {
        fill();
        continue;
      }
      if (begin_ >= text_.size()) {
        if (returned_ == 0) throw DataError(name_, 0, "file is empty (no data lines)");
        return false;
      }
      end = text_.size();  // a last line without '\n'
    }
    const std::string_view line = trim_spaces(text_.substr(begin_, end - begin_));
    consumed_ += end - begin_ + 1;
    begin_ = end + 1;
    ++number_;
    bool blank = true;
    for (char c : line)
      if (!is_space(c)) {
        blank = false;
        break;
      }
    if (blank || (comments_ && line.front() == '#')) continue;
    out = {number_, line};
    ++returned_;
    return true;
  }
}

size_t LineReader::estimated_lines() const {
  if (number_ == 0 || consumed_ == 0) return 0;
  return static_cast<size_t>(static_cast<double>(total_bytes_) * static_cast<double>(number_) /
                             static_cast<double>(consumed_));
}

std::vector<TextLine> split_lines(const std::string& text, const std::string& name, bool comments) {
  LineReader in(std::string_view(text), name, comments);
  std::vector<TextLine> lines;
  TextLine ln;
  while (in.next(ln)) lines.push_back(ln);
  return lines;
}

const char* delimiter_name(Delimiter d) {
  switch (d) {
    case Delimiter::Tab: return "tab";
    case Delimiter::Comma: return "comma";
    case Delimiter::Semicolon: return "semicolon";
    case Delimiter::Whitespace: return "whitespace";
    case Delimiter::Pipe: return "'|'";
    case Delimiter::DoubleColon: return "'::'";
  }
  return "?";
}

Delimiter detect_delimiter(std::string_view line) {
  if (line.find('\t') != std::string_view::npos) return Delimiter::Tab;
  if (line.find(',') != std::string_view::npos) return Delimiter::Comma;
  if (line.find(';') != std::string_view::npos) return Delimiter::Semicolon;
  return Delimiter::Whitespace;
}

void split_fields(std::string_view line, Delimiter d, std::vector<std::string_view>& out) {
  out.clear();
  if (d == Delimiter::Whitespace) {
    size_t k = 0;
    while (k < line.size()) {
      while (k < line.size() && is_space(line[k])) ++k;
      const size_t b = k;
      while (k < line.size() && !is_space(line[k])) ++k;
      if (k > b) out.push_back(trim_field(line.substr(b, k - b)));
    }
    return;
  }
  if (d == Delimiter::DoubleColon) {
    size_t start = 0;
    for (;;) {
      const size_t pos = line.find("::", start);
      if (pos == std::string_view::npos) break;
      out.push_back(trim_field(line.substr(start, pos - start)));
      start = pos + 2;
    }
    out.push_back(trim_field(line.substr(start)));
    return;
  }
  const char sep = d == Delimiter::Tab         ? '\t'
                   : d == Delimiter::Comma     ? ','
                   : d == Delimiter::Semicolon ? ';'
                                               : '|';
  size_t start = 0;
  for (;;) {
    const size_t pos = line.find(sep, start);
    if (pos == std::string_view::npos) break;
    out.push_back(trim_field(line.substr(start, pos - start)));
    start = pos + 1;
  }
  out.push_back(trim_field(line.substr(start)));
}

bool to_int(std::string_view s, int64_t& out) {
  if (!s.empty() && s.front() == '+') {
    s.remove_prefix(1);
    if (!s.empty() && s.front() == '-') return false;
  }
  if (s.empty()) return false;
  int64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size()) return false;
  out = v;
  return true;
}

bool to_double(std::string_view s, double& out) {
  if (!s.empty() && s.front() == '+') {
    s.remove_prefix(1);
    if (!s.empty() && s.front() == '-') return false;
  }
  if (s.empty()) return false;
  double v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (end != s.data() + s.size()) return false;
  if (ec == std::errc::result_out_of_range) {
    // A number too large or too small for a double ("1e400") is still a number: +-inf or
    // (nearly) zero, as strtod gives, so that callers reject it as "not finite" rather than
    // taking it for a header's text.
    out = std::strtod(std::string(s).c_str(), nullptr);
    return true;
  }
  if (ec != std::errc()) return false;
  out = v;
  return true;
}

namespace {

/// Days from 1970-01-01 to y-m-d of the proleptic Gregorian calendar (H. Hinnant's
/// days_from_civil): exact for any year, without the local time zone mktime would apply.
int64_t days_from_civil(int64_t y, int64_t m, int64_t d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

/// The `n` digits of s at `at` as a number; false where one is not a digit.
bool read_digits(std::string_view s, size_t at, size_t n, int64_t& out) {
  if (at + n > s.size()) return false;
  out = 0;
  for (size_t k = at; k < at + n; ++k) {
    if (s[k] < '0' || s[k] > '9') return false;
    out = out * 10 + (s[k] - '0');
  }
  return true;
}

}  // namespace

bool to_time(std::string_view s, double& out) {
  if (to_double(s, out)) return std::isfinite(out) && std::fabs(out) <= kLatestTime;
  if (!s.empty() && s.back() == 'Z') s.remove_suffix(1);
  int64_t y = 0, mo = 0, d = 0, h = 0, mi = 0, sec = 0;
  if (!read_digits(s, 0, 4, y) || s.size() < 10 || s[4] != '-' || !read_digits(s, 5, 2, mo) || s[7] != '-' ||
      !read_digits(s, 8, 2, d))
    return false;
  if (s.size() != 10) {
    if (s.size() != 19 || (s[10] != 'T' && s[10] != ' ') || !read_digits(s, 11, 2, h) || s[13] != ':' ||
        !read_digits(s, 14, 2, mi) || s[16] != ':' || !read_digits(s, 17, 2, sec))
      return false;
  }
  static const int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  if (mo < 1 || mo > 12 || d < 1 || d > kDays[mo - 1] + (mo == 2 && leap) || h > 23 || mi > 59 || sec > 59)
    return false;
  out = static_cast<double>(days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + sec);
  return true;
}

std::string number_text(double v) {
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

std::string number_text(float v) {
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

namespace {

/// The length of the UTF-8 character starting at s[k] (2-4 bytes, no overlong form, no
/// surrogate, at most U+10FFFF), or 0 where the bytes there are not one.
size_t utf8_length(std::string_view s, size_t k) {
  const auto b = [&](size_t i) { return static_cast<unsigned char>(s[i]); };
  const unsigned char c = b(k);
  size_t n = 0;
  unsigned char lo = 0x80, hi = 0xBF;  // the second byte's range
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;
  } else {
    return 0;
  }
  if (k + n > s.size() || b(k + 1) < lo || b(k + 1) > hi) return 0;
  for (size_t i = 2; i < n; ++i)
    if (b(k + i) < 0x80 || b(k + i) > 0xBF) return 0;
  return n;
}

}  // namespace

std::string quote(std::string_view field) {
  constexpr size_t kMax = 40;
  std::string out = "'";
  size_t k = 0;
  while (k < field.size() && k < kMax) {
    const auto c = static_cast<unsigned char>(field[k]);
    // Text as typed (UTF-8 characters whole, never cut inside one); control bytes, the quote
    // and bytes that are no UTF-8 as \xNN, so that binary input never breaks the line.
    if (const size_t n = c >= 0x80 ? utf8_length(field, k) : 0; n > 0) {
      if (k + n > kMax) break;
      out.append(field.substr(k, n));
      k += n;
      continue;
    }
    if (c < 0x20 || c >= 0x7f || c == '\'') {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02X", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
    ++k;
  }
  if (k < field.size()) out += "...";
  out += "'";
  return out;
}

int64_t IdIndex::find(std::string_view id) const {
  const auto it = index_.find(std::string(id));
  return it == index_.end() ? -1 : it->second;
}

int64_t IdIndex::add(std::string_view id) {
  const auto [it, inserted] = index_.emplace(std::string(id), static_cast<int64_t>(ids_.size()));
  if (inserted) ids_.emplace_back(id);
  return it->second;
}

void PairRegistry::add(uint64_t a, uint64_t b, const std::string& file, long line) {
  if (files_.empty() || files_.back().second != file) files_.emplace_back(keys_.size(), file);
  if (line < 0 || static_cast<uint64_t>(line) > UINT32_MAX)
    throw DataError(file, line, "more than 4294967295 lines (too many to check for duplicates)");
  keys_.push_back((a << 32) | (b & 0xffffffffu));
  lines_.push_back(static_cast<uint32_t>(line));
}

void PairRegistry::reserve(size_t n) {
  keys_.reserve(n);
  lines_.reserve(n);
}

std::string PairRegistry::file_of(size_t k) const {
  auto it = std::upper_bound(files_.begin(), files_.end(), k,
                             [](size_t v, const std::pair<size_t, std::string>& f) { return v < f.first; });
  return std::prev(it)->second;
}

std::optional<PairRegistry::Duplicate> PairRegistry::first_duplicate() const {
  std::vector<uint64_t> sorted(keys_);
  std::sort(sorted.begin(), sorted.end());
  // The common case ends here: no two keys alike.
  if (std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end()) return std::nullopt;
  std::vector<uint64_t> repeated;
  for (size_t k = 1; k < sorted.size(); ++k)
    if (sorted[k] == sorted[k - 1] && (repeated.empty() || repeated.back() != sorted[k]))
      repeated.push_back(sorted[k]);
  sorted = std::vector<uint64_t>();
  // The first repeat in reading order, and where its key was first seen.
  std::unordered_map<uint64_t, size_t> first;
  for (size_t k = 0; k < keys_.size(); ++k) {
    if (!std::binary_search(repeated.begin(), repeated.end(), keys_[k])) continue;
    const auto [it, inserted] = first.emplace(keys_[k], k);
    if (inserted) continue;
    Duplicate d;
    d.a = keys_[k] >> 32;
    d.b = keys_[k] & 0xffffffffu;
    d.file = file_of(k);
    d.line = static_cast<long>(lines_[k]);
    d.first_at = file_of(it->second) + ":" + std::to_string(lines_[it->second]);
    return d;
  }
  return std::nullopt;
}

void PairRegistry::throw_first_duplicate(
    const std::function<std::string(uint64_t, uint64_t)>& id_text) const {
  if (const auto d = first_duplicate())
    throw DataError(d->file, d->line,
                    "duplicate (user, item) pair (" + id_text(d->a, d->b) + "), first at " + d->first_at);
}

}  // namespace symgnn::data
