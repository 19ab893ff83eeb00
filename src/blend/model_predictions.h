// The predictions of one trained model, read from its `symgnn train --out` directory
// (predictions/val.csv, predictions/test.csv, metrics.json), and the alignment of several
// models' files by (user, item) pair into one matrix per split.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "blend/nnls.h"
#include "data/prediction_file.h"

namespace symgnn::blend {

/// The key of metrics.json's figures that marks a blend's directory, whose validation
/// predictions are in-sample (the format's name, kept as written since the first blend).
inline constexpr const char* kValInSampleKey = "val_rmse_in_sample";

struct ModelPredictions {
  std::string dir;
  std::string val_file;   // dir/predictions/val.csv
  std::string test_file;  // dir/predictions/test.csv
  std::vector<data::PredictionRow> val;
  std::vector<data::PredictionRow> test;
  double rating_min = 0.0;  // metrics.json: dataset.rating_min / rating_max
  double rating_max = 0.0;
  nlohmann::json dataset;  // metrics.json's "dataset" object, passed on to a blend's metrics.json
  // metrics.json's kValInSampleKey (a blend's directory): its validation predictions
  // were fitted on the validation ratings, so blending it again favours it unfairly.
  bool val_in_sample = false;
};

/// Reads a model directory. DataError naming the file (and line) when a file is missing,
/// malformed, or metrics.json lacks dataset.rating_min / rating_max.
ModelPredictions load_model_predictions(const std::string& dir);

/// One split of every model, aligned by pair: pairs[r] holds the user, item and rating of
/// row r (in the first file's order), x(r, m) the prediction of model m.
struct AlignedSplit {
  std::vector<data::PredictionRow> pairs;
  Matrix x;
  std::vector<double> truth;  // pairs[r].rating
};

/// Aligns files[m] (read from names[m]) by (user, item). DataError naming both files and
/// the first differing pair (in the first file's order, then the other file's) when a file
/// lacks a pair of the first, has one it lacks, or gives a pair another rating.
AlignedSplit align_split(const std::vector<const std::vector<data::PredictionRow>*>& files,
                         const std::vector<std::string>& names);

}  // namespace symgnn::blend
