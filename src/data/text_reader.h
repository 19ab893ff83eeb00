/// @file text_reader.h
/// The line reader shared by every text format (MovieLens, CSV/TSV ratings, edge lists, feature
/// tables): whole-file reading, numbered lines, field splitting, number parsing, id maps and the
/// duplicate-pair registry. Kept apart from the formats so that each parser reports errors the
/// same way ("<file>:<line>: <what>") and the fuzzer links only torch-free, HDF5-free code.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace symgnn::data {

/// The whole file as bytes (no decoding: MovieLens files are latin-1), read by the project's
/// one reader (symgnn::read_file, util/text.h). Throws DataError "<path>: cannot open ...",
/// "<path>: read error" or "<path>: file is empty".
std::string read_text_file(const std::string& path);

/// One non-blank line; `text` points into the buffer given to split_lines().
struct TextLine {
  long number;  // 1-based
  std::string_view text;
};

/// The non-blank lines of `text` with their 1-based numbers, trimmed of spaces and '\r' (a
/// UTF-8 byte-order mark on the first line is dropped). With `comments`, lines starting with
/// '#' are skipped too. Throws DataError "<name>: file is empty" when no line is left.
std::vector<TextLine> split_lines(const std::string& text, const std::string& name, bool comments);

enum class Delimiter { Tab, Comma, Semicolon, Whitespace, Pipe, DoubleColon };

/// For messages: "tab", "comma", ...
const char* delimiter_name(Delimiter d);

/// Tab if the line has one, else comma, else semicolon, else runs of spaces.
Delimiter detect_delimiter(std::string_view line);

/// Splits `line` into `out` (cleared first). Character delimiters keep empty fields; each
/// field is trimmed of spaces and one pair of enclosing double quotes (no quoted delimiters).
/// Whitespace splits on runs of spaces and tabs and yields no empty field.
void split_fields(std::string_view line, Delimiter d, std::vector<std::string_view>& out);

/// Whole-field decimal parses (an optional leading '+'); false on anything else or overflow.
/// to_double accepts "nan" and "inf", and numbers beyond a double's range as +-inf or
/// zero: callers decide whether they are admissible.
bool to_int(std::string_view s, int64_t& out);
bool to_double(std::string_view s, double& out);

/// A field quoted for a one-line message: 'text', cut to 40 bytes, control and non-ASCII
/// bytes written as \xNN so that binary input never breaks the line.
std::string quote(std::string_view field);

/// Original string ids -> dense indices in order of first appearance.
class IdIndex {
 public:
  /// Index of `id`, or -1 when unknown.
  int64_t find(std::string_view id) const;
  /// Index of `id`, adding it when new.
  int64_t add(std::string_view id);
  int64_t size() const { return static_cast<int64_t>(ids_.size()); }
  const std::vector<std::string>& ids() const { return ids_; }

 private:
  std::unordered_map<std::string, int64_t> index_;
  std::vector<std::string> ids_;
};

/// Remembers where each (user, item) pair was first read, across files, so that a duplicate
/// is reported with both places.
class PairRegistry {
 public:
  struct Origin {
    uint32_t file;
    long line;
  };
  /// Records (a, b) read at file:line. Returns nullptr when new, else the first occurrence.
  /// Both keys must be below 2^32.
  const Origin* insert(uint64_t a, uint64_t b, const std::string& file, long line);
  /// "file:line" of an origin returned by insert().
  std::string where(const Origin& o) const;

 private:
  std::unordered_map<uint64_t, Origin> seen_;
  std::vector<std::string> files_;
};

}  // namespace symgnn::data
