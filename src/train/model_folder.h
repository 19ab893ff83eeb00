// The files beside a saved model.pt that loading it needs, and where they are
// (docs/reliability.md, "Model folders"): the data its run pinned (dataset.bin, in the
// model's folder or, for a run's, final's or the ranker's own model, in the run folder
// above), the ranker fitted beside it (ranker/) and the ratings folded in after the fit
// (refresh/, written by `symgnn refresh`: infer/refresh.h). save_model records which of them the
// folder had; TrainedModel::load refuses a folder that has lost one, naming it, instead of
// answering from the training files as they are now or ranking without the ranker.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace symgnn::train {

/// The folder of the ranker fitted beside a model (fit/ranker.h), inside the model's folder.
inline constexpr const char* kRankerFolder = "ranker";
/// The folder of the network trained for ranking whose scores join the ranker's lists
/// (train.ranker_network, fit/ranker_network_choice.h), inside the model's folder.
inline constexpr const char* kRankerNetworkFolder = "ranker_network";
/// The folder of the ratings folded into a model after its fit (infer/refresh.h), inside the
/// model's folder: refresh/1/, refresh/2/, ... applied in turn on every load.
inline constexpr const char* kRefreshFolder = "refresh";
/// The names save_model records.
inline constexpr const char* kDataPart = "dataset.bin";
inline constexpr const char* kRankerPart = "ranker";
inline constexpr const char* kRefreshPart = "refresh";

/// The pinned data of the model saved at `model_path`: its folder's dataset.bin or, from
/// run<k>/, final/ and ranker/, the first found up to two folders above; "" where none is.
std::string find_snapshot(const std::string& model_path);

/// The parts found beside `model_path` now: kDataPart where find_snapshot finds one,
/// kRankerPart where ranker/model.pt is a file in the run folder (the pinned data's folder),
/// kRefreshPart where the model's own folder has a refresh/ folder.
std::vector<std::string> folder_parts(const std::string& model_path);

/// A part's checksum as the folder holds it now, so that a part from another run is told
/// from the one the model was saved with: dataset.bin's SHA-256 from its sealed header line,
/// the ranker's model.pt's as its folder's manifest lists it; "" where the part has none to
/// read (refresh/, whose files their own checksums guard; a file older than the checksums).
std::string part_checksum(const std::string& model_path, const std::string& part);

/// DataError naming the part's path when `recorded` (the parts save_model found) lists one
/// that folder_parts(model_path) no longer finds, or one whose checksum then (`checksums`,
/// by part; older records have none) is not its checksum now.
void check_folder_parts(const std::string& model_path, const std::vector<std::string>& recorded,
                        const std::map<std::string, std::string>& checksums = {});

}  // namespace symgnn::train
