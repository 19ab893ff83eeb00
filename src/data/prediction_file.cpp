/// @file prediction_file.cpp
/// The prediction-file parser and reader (format in prediction_file.h). Torch-free and free of
/// file writing, so that fuzz/fuzz_text_parsers.cpp links it with text_reader.cpp alone.
#include "data/prediction_file.h"

#include <cmath>

#include "data/text_reader.h"
#include "symgnn/error.h"
#include "util/checksum.h"

namespace symgnn::data {

namespace {

double finite_number(std::string_view field, const char* what, const std::string& name, long line) {
  double v = 0.0;
  if (!to_double(field, v))
    throw DataError(name, line, std::string(what) + " " + quote(field) + " is not a number");
  if (!std::isfinite(v))
    throw DataError(name, line, std::string(what) + " " + quote(field) + " is not finite");
  return v;
}

}  // namespace

std::vector<PredictionRow> parse_predictions_text(const std::string& text, const std::string& name) {
  const std::vector<TextLine> lines = split_lines(text, name, false);
  if (lines.front().text != kPredictionHeader)
    throw DataError(
        name, lines.front().number,
        "expected the header '" + std::string(kPredictionHeader) + "', found " + quote(lines.front().text));
  // Ids are interned so that the project's pair registry reports a duplicate with both lines.
  IdIndex users, items;
  PairRegistry seen;
  std::vector<PredictionRow> rows;
  rows.reserve(lines.size() - 1);
  std::vector<std::string_view> f;
  // A repeat is found in one sort at the end (PairRegistry); one before a bad line is still
  // the error reported, as when each line was checked in turn.
  const auto throw_repeat = [&] {
    seen.throw_first_duplicate(
        [&](uint64_t a, uint64_t b) { return quote(users.ids()[a]) + ", " + quote(items.ids()[b]); });
  };
  try {
    for (size_t k = 1; k < lines.size(); ++k) {
      const TextLine& ln = lines[k];
      split_fields(ln.text, Delimiter::Comma, f);
      if (f.size() != 4)
        throw DataError(name, ln.number,
                        "expected 4 comma-separated fields (user, item, rating, prediction), found " +
                            std::to_string(f.size()));
      if (f[0].empty()) throw DataError(name, ln.number, "empty user id");
      if (f[1].empty()) throw DataError(name, ln.number, "empty item id");
      PredictionRow row;
      row.rating = finite_number(f[2], "rating", name, ln.number);
      row.prediction = finite_number(f[3], "prediction", name, ln.number);
      const auto u = static_cast<uint64_t>(users.add(f[0]));
      const auto i = static_cast<uint64_t>(items.add(f[1]));
      seen.add(u, i, name, ln.number);
      row.user = std::string(f[0]);
      row.item = std::string(f[1]);
      row.line = ln.number;
      rows.push_back(std::move(row));
    }
  } catch (const DataError&) {
    throw_repeat();
    throw;
  }
  throw_repeat();
  return rows;
}

std::vector<PredictionRow> read_predictions_csv(const std::string& path) {
  // Verified against the folder's checksums.sha256 when symgnn wrote the file.
  const std::string text = read_verified_file(path);
  if (text.empty()) throw DataError(path, 0, "file is empty");
  return parse_predictions_text(text, path);
}

}  // namespace symgnn::data
