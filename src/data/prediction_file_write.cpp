/// @file prediction_file_write.cpp
/// The prediction-file writer (format in prediction_file.h), the one place that formats it.
#include <charconv>
#include <cmath>
#include <filesystem>
#include <ostream>

#include "data/id_rule.h"
#include "data/prediction_file.h"
#include "data/text_reader.h"
#include "symgnn/error.h"
#include "util/atomic_file.h"

namespace symgnn::data {

namespace {

/// The reader trims fields and splits on commas without quoting: refuse ids it would misread
/// (the one id rule, data/id_rule.h; every id that entered the model passed it already).
void check_id(const std::string& id, const char* side, const std::string& path) {
  if (const std::string problem = id_problem(id); !problem.empty())
    throw DataError(path, 0, "cannot write " + id_refusal(side, id, problem));
}

}  // namespace

void write_predictions_csv(const std::string& path, const std::vector<PredictionRow>& rows) {
  for (const PredictionRow& r : rows) {
    check_id(r.user, "user", path);
    check_id(r.item, "item", path);
    if (!std::isfinite(r.rating) || !std::isfinite(r.prediction))
      throw DataError(path, 0,
                      "cannot write the non-finite rating or prediction of (" + quote(r.user) + ", " +
                          quote(r.item) + ")");
  }
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  if (!parent.empty()) std::filesystem::create_directories(parent);
  write_file_atomic(path, [&](std::ostream& out) {
    out << kPredictionHeader << '\n';
    for (const PredictionRow& r : rows)
      out << r.user << ',' << r.item << ',' << number_text(r.rating) << ',' << number_text(r.prediction) << '\n';
  });
}

void write_predictions_csv(const std::string& path, const Dataset& ds, const RatingList& split,
                           const std::vector<double>& predictions) {
  if (predictions.size() != split.size())
    throw DataError(
        path, 0,
        std::to_string(predictions.size()) + " predictions for " + std::to_string(split.size()) + " ratings");
  std::vector<PredictionRow> rows(split.size());
  for (size_t k = 0; k < split.size(); ++k) {
    PredictionRow& r = rows[k];
    r.user = ds.users.id_of(split.user[k]);
    r.item = ds.items.id_of(split.item[k]);
    // Ratings are floats: write the float's shortest text ("0.1", not 0.100000001490116...).
    const std::string rating = number_text(split.value[k]);
    std::from_chars(rating.data(), rating.data() + rating.size(), r.rating);
    r.prediction = predictions[k];
  }
  write_predictions_csv(path, rows);
}

}  // namespace symgnn::data
