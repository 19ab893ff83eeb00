/// @file text_reader.cpp
/// Line reading, field splitting and number parsing for the text formats (see text_reader.h).
#include "data/text_reader.h"

#include <charconv>
#include <cstdio>
#include <cstdlib>

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

std::vector<TextLine> split_lines(const std::string& text, const std::string& name, bool comments) {
  std::vector<TextLine> lines;
  std::string_view all(text);
  if (all.substr(0, 3) == "\xEF\xBB\xBF") all.remove_prefix(3);
  long number = 0;
  size_t start = 0;
  while (start < all.size()) {
    size_t end = all.find('\n', start);
    if (end == std::string_view::npos) end = all.size();
    ++number;
    std::string_view line = trim_spaces(all.substr(start, end - start));
    start = end + 1;
    bool blank = true;
    for (char c : line)
      if (!is_space(c)) {
        blank = false;
        break;
      }
    if (blank || (comments && line.front() == '#')) continue;
    lines.push_back({number, line});
  }
  if (lines.empty()) throw DataError(name, 0, "file is empty (no data lines)");
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

std::string quote(std::string_view field) {
  constexpr size_t kMax = 40;
  std::string out = "'";
  for (size_t k = 0; k < field.size() && k < kMax; ++k) {
    const auto c = static_cast<unsigned char>(field[k]);
    if (c < 0x20 || c >= 0x7f || c == '\'') {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02X", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  if (field.size() > kMax) out += "...";
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

const PairRegistry::Origin* PairRegistry::insert(uint64_t a, uint64_t b, const std::string& file, long line) {
  size_t f = 0;
  while (f < files_.size() && files_[f] != file) ++f;
  if (f == files_.size()) files_.push_back(file);
  const Origin o{static_cast<uint32_t>(f), line};
  const auto [it, inserted] = seen_.emplace((a << 32) | (b & 0xffffffffu), o);
  return inserted ? nullptr : &it->second;
}

std::string PairRegistry::where(const Origin& o) const {
  return files_.at(o.file) + ":" + std::to_string(o.line);
}

}  // namespace symgnn::data
