/// @file
/// The ratings folded into a model directory after its fit (`symgnn refresh`,
/// symgnn/model_dir.h): DIR/refresh/<k>/ (k = 1, 2, ...) holds one refresh's files, copied as
/// given (ratings.csv, and user_graph.csv, item_graph.csv, user_features.csv,
/// item_features.csv where given), listed in that folder's checksums.sha256. model.pt's
/// record lists the folder (train/model_folder.h, kRefreshPart), and TrainedModel::load grows
/// the model as fitted by each refresh in turn, as --new-ratings grows it.
#pragma once

#include <string>
#include <vector>

#include "symgnn/trained_model.h"

namespace symgnn::infer {

/// A refresh's files inside refresh/<k>/, each with the NewNodeFiles field it fills.
struct RefreshFile {
  const char* name;
  std::string NewNodeFiles::*field;
};
inline constexpr RefreshFile kRefreshFiles[] = {
    {"ratings.csv", &NewNodeFiles::ratings},
    {"user_graph.csv", &NewNodeFiles::user_graph_file},
    {"item_graph.csv", &NewNodeFiles::item_graph_file},
    {"user_features.csv", &NewNodeFiles::user_features_file},
    {"item_features.csv", &NewNodeFiles::item_features_file},
};

/// DIR/refresh/<k>/ (k from 1) of the model directory `model_dir`.
std::string refresh_folder(const std::string& model_dir, size_t k);

/// The refreshes of the model saved at `model_path` (its model.pt), in order, when
/// `recorded_parts` (its record) lists them; none otherwise. Each file is checked against its
/// folder's manifest first (DataError naming it when its checksum differs); a folder without
/// its ratings, or a gap in the numbering, is a DataError.
std::vector<NewNodeFiles> saved_refreshes(const std::string& model_path,
                                          const std::vector<std::string>& recorded_parts);

/// The model saved at `path` as fitted: the refreshes its directory holds not applied (what
/// refresh_model_dir writes again beside the new one). Defined in trained_model.cpp.
TrainedModel load_as_fitted(const std::string& path, const std::string& device);

}  // namespace symgnn::infer
