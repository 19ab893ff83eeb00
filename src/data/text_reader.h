/// @file text_reader.h
/// The line reader shared by every text format (MovieLens, CSV/TSV ratings, edge lists, feature
/// tables): a chunked line reader (files of any size, never held whole), numbered lines, field
/// splitting, number parsing, id maps and the duplicate-pair registry. Kept apart from the formats so that
/// each parser reports errors the same way ("<file>:<line>: <what>") and the fuzzer links only torch-free,
/// HDF5-free code.
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace symgnn::data {

/// The whole file as bytes (no decoding: MovieLens files are latin-1), read by the project's
/// one reader (symgnn::read_file, util/text.h). Throws DataError "<path>: cannot open ...",
/// "<path>: read error" or "<path>: file is empty".
std::string read_text_file(const std::string& path);

/// One non-blank line; `text` points into the reader's buffer (or the text given to it).
struct TextLine {
  long number;  // 1-based
  std::string_view text;
};

/// The non-blank lines of a file or of text in memory, one at a time, with their 1-based
/// numbers, trimmed of spaces and '\r' (a UTF-8 byte-order mark at the start is dropped).
/// With `comments`, lines starting with '#' are skipped too. A file is read in chunks of
/// `chunk` bytes (a line longer than a chunk grows the buffer), so memory stays O(chunk +
/// longest line) whatever the file's size. The one line splitter of every text format.
class LineReader {
 public:
  static constexpr size_t kDefaultChunk = size_t{1} << 20;
  /// Streams file `path`. Throws DataError "<path>: cannot open (missing or unreadable
  /// file)" or "<path>: file is empty" (no byte at all).
  LineReader(const std::string& path, bool comments, size_t chunk = kDefaultChunk);
  /// Over `text` (which must outlive the reader; the lines are views into it), `name` in messages.
  LineReader(std::string_view text, std::string name, bool comments);
  ~LineReader();
  LineReader(const LineReader&) = delete;
  LineReader& operator=(const LineReader&) = delete;

  /// The next line, valid until the following call; false at the end. With no line at all
  /// in the input: DataError "<name>: file is empty (no data lines)". "<name>: read error"
  /// when the file cannot be read further.
  bool next(TextLine& line);
  const std::string& name() const { return name_; }
  /// About how many lines the whole input has (its size over the mean line length so far;
  /// 0 before the first line): for reserving memory.
  size_t estimated_lines() const;

 private:
  bool fill();  // reads more of the file behind the unread bytes; false at its end

  std::string name_;
  bool comments_;
  std::FILE* file_ = nullptr;
  std::string buffer_;     // a file's bytes: [begin_, end_) unread
  std::string_view text_;  // what is being split: the buffer, or the caller's text
  size_t begin_ = 0;
  size_t chunk_ = kDefaultChunk;
  bool eof_ = true;
  long number_ = 0;           // lines seen, blank ones included
  long returned_ = 0;         // lines returned
  uint64_t consumed_ = 0;     // bytes of the lines seen
  uint64_t total_bytes_ = 0;  // of the file or text
};

/// Every line LineReader gives of `text` (views into it). Throws DataError "<name>: file is
/// empty (no data lines)" when no line is left.
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

/// The latest time a rating may carry, in unix seconds: 9999-12-31T23:59:59Z (and as far
/// before 1970). A number past it (1e30) is no time anyone recorded.
inline constexpr double kLatestTime = 253402300799.0;

/// A rating's time as unix seconds: a finite number (integer or decimal) within
/// +-kLatestTime, or a UTC date YYYY-MM-DD, optionally with a time THH:MM:SS ('T' or one
/// space) and a final 'Z'. False on anything else, an impossible date included (2023-02-30).
bool to_time(std::string_view s, double& out);

/// A field quoted for a one-line message: 'text', cut to 40 bytes (never inside a UTF-8
/// character), UTF-8 text as typed, control bytes and bytes that are no UTF-8 written as
/// \xNN so that binary input never breaks the line.
std::string quote(std::string_view field);

/// `v` as a person writes it (3.5, 0.37, 1e-300): the shortest text that reads back as `v`.
std::string number_text(double v);
std::string number_text(float v);  // as the float reads back (0.1f is "0.1")

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

/// The (user, item) pairs read so far, across files, with where each was read, so that a
/// repeat is reported with both places. 12 bytes a pair (its 64-bit key and a 32-bit line;
/// files are kept as ranges): checked in one sort when a file is done (first_duplicate)
/// rather than with a hash map entry per pair, which cost 50+ bytes each.
class PairRegistry {
 public:
  /// Records (a, b) read at file:line. Both keys must be below 2^32; DataError for a line
  /// number beyond 2^32 - 1.
  void add(uint64_t a, uint64_t b, const std::string& file, long line);
  size_t size() const { return keys_.size(); }
  void reserve(size_t n);

  struct Duplicate {
    uint64_t a = 0, b = 0;  // the pair
    std::string file;       // where the repeat is
    long line = 0;
    std::string first_at;  // "file:line" of its first occurrence
  };
  /// The earliest pair, in the order added, equal to one added before it.
  std::optional<Duplicate> first_duplicate() const;
  /// Throws first_duplicate(), if any, as DataError "<file>:<line>: duplicate (user, item)
  /// pair (<a>, <b>), first at <file>:<line>", the ids written by `id_text(a, b)` ("a, b").
  void throw_first_duplicate(const std::function<std::string(uint64_t, uint64_t)>& id_text) const;

 private:
  std::string file_of(size_t k) const;
  std::vector<uint64_t> keys_;
  std::vector<uint32_t> lines_;
  std::vector<std::pair<size_t, std::string>> files_;  // (first pair, file), in order
};

}  // namespace symgnn::data
