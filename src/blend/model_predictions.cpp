// Reading a model directory's prediction files and aligning them by pair.
#include "blend/model_predictions.h"

#include <nlohmann/json.hpp>
#include <sstream>
#include <unordered_map>

#include "data/text_reader.h"
#include "symgnn/error.h"
#include "symgnn/run_metrics.h"

namespace symgnn::blend {

namespace {

double range_bound(const nlohmann::json& ds, const char* key, const std::string& file) {
  if (!ds.is_object() || !ds.contains(key) || !ds[key].is_number())
    throw DataError(file, 0, std::string("no number at dataset.") + key + " (the rating range)");
  return ds[key].get<double>();
}

std::string num(double v) {
  std::ostringstream os;
  os.precision(17);
  os << v;
  return os.str();
}

std::string pair_text(const data::PredictionRow& r) {
  return "(" + data::quote(r.user) + ", " + data::quote(r.item) + ")";
}

}  // namespace

ModelPredictions load_model_predictions(const std::string& dir) {
  ModelPredictions m;
  m.dir = dir;
  m.val_file = dir + "/predictions/val.csv";
  m.test_file = dir + "/predictions/test.csv";
  const std::string metrics_file = dir + "/metrics.json";
  const RunMetrics metrics = RunMetrics::read(dir);
  m.rating_min = range_bound(metrics.dataset, "rating_min", metrics_file);
  m.rating_max = range_bound(metrics.dataset, "rating_max", metrics_file);
  if (!(m.rating_min < m.rating_max))
    throw DataError(metrics_file, 0, "dataset.rating_min is not below dataset.rating_max");
  m.dataset = metrics.dataset;
  m.val_in_sample = metrics.figures.value(kValInSampleKey, false);
  m.val = data::read_predictions_csv(m.val_file);
  m.test = data::read_predictions_csv(m.test_file);
  return m;
}

AlignedSplit align_split(const std::vector<const std::vector<data::PredictionRow>*>& files,
                         const std::vector<std::string>& names) {
  AlignedSplit a;
  const auto& ref = *files.at(0);
  a.pairs = ref;
  a.x = Matrix(ref.size(), files.size());
  for (size_t r = 0; r < ref.size(); ++r) {
    a.truth.push_back(ref[r].rating);
    a.x(r, 0) = ref[r].prediction;
  }
  std::unordered_map<std::string, size_t> row_of;  // "user\nitem" -> row (ids hold no '\n')
  for (size_t r = 0; r < ref.size(); ++r) row_of.emplace(ref[r].user + "\n" + ref[r].item, r);

  for (size_t m = 1; m < files.size(); ++m) {
    const auto& rows = *files[m];
    const std::string both = names[m] + " and " + names[0];
    // The first pair of the first file the other lacks or rates differently comes first.
    std::unordered_map<std::string, size_t> other;
    for (size_t r = 0; r < rows.size(); ++r) other.emplace(rows[r].user + "\n" + rows[r].item, r);
    for (size_t r = 0; r < ref.size(); ++r) {
      const auto it = other.find(ref[r].user + "\n" + ref[r].item);
      if (it == other.end())
        throw DataError(both + " differ: pair " + pair_text(ref[r]) + " of " + names[0] + ":" +
                        std::to_string(ref[r].line) + " is missing from " + names[m]);
      const data::PredictionRow& o = rows[it->second];
      if (o.rating != ref[r].rating)
        throw DataError(both + " differ: pair " + pair_text(ref[r]) + " has rating " + num(o.rating) +
                        " at " + names[m] + ":" + std::to_string(o.line) + " but " + num(ref[r].rating) +
                        " at " + names[0] + ":" + std::to_string(ref[r].line));
      a.x(r, m) = o.prediction;
    }
    if (rows.size() != ref.size())
      for (const data::PredictionRow& o : rows)
        if (!row_of.count(o.user + "\n" + o.item))
          throw DataError(both + " differ: pair " + pair_text(o) + " of " + names[m] + ":" +
                          std::to_string(o.line) + " is missing from " + names[0]);
  }
  return a;
}

}  // namespace symgnn::blend
