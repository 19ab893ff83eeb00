/// @file prediction_file.h
/// The prediction files a trained model leaves in its output directory, predictions/val.csv
/// and predictions/test.csv: the header line "user,item,rating,prediction", then one line per
/// rating of the split with the original user and item ids (NodeSet::id_of), the true rating
/// and the model's prediction. `symgnn train --out` writes them, `symgnn blend` reads them
/// (docs/blending.md). The parser is separate from file reading so that the fuzzer can call it.
#pragma once

#include <string>
#include <vector>

#include "symgnn/dataset.h"

namespace symgnn::data {

/// The header line every prediction file starts with.
inline constexpr const char* kPredictionHeader = "user,item,rating,prediction";

/// One line of a prediction file; `line` is its 1-based number (0 for rows not read from a file).
struct PredictionRow {
  std::string user;
  std::string item;
  double rating = 0.0;
  double prediction = 0.0;
  long line = 0;
};

/// Parses a whole prediction file. Throws DataError "<name>:<line>: <what>" for a wrong
/// header, a line without exactly 4 comma-separated fields, an empty id, a rating or
/// prediction that is not a finite number, or a (user, item) pair given twice. A file with
/// the header alone is an empty split.
std::vector<PredictionRow> parse_predictions_text(const std::string& text, const std::string& name);

/// Reads and parses `path` (DataError naming it when it is missing or bad).
std::vector<PredictionRow> read_predictions_csv(const std::string& path);

/// Writes rows atomically in the format above, numbers at full precision. DataError when
/// an id cannot be written unambiguously (empty, or holding a comma, quote or line break).
void write_predictions_csv(const std::string& path, const std::vector<PredictionRow>& rows);

/// The trainer's entry point: one row per rating of `split` (a split of `ds`), with the
/// original ids from ds.users / ds.items and predictions[k] for rating k.
/// DataError when predictions.size() != split.size().
void write_predictions_csv(const std::string& path, const Dataset& ds, const RatingList& split,
                           const std::vector<double>& predictions);

}  // namespace symgnn::data
