// The parts of a model folder (model_folder.h).
#include "train/model_folder.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>

#include "data/dataset_snapshot.h"
#include "symgnn/error.h"
#include "util/checksum.h"

namespace fs = std::filesystem;

namespace symgnn::train {

namespace {

fs::path folder_of(const std::string& model_path) {
  const fs::path dir = fs::path(model_path).parent_path();
  return dir.empty() ? fs::path(".") : dir;
}

/// The folders where `model_path`'s pinned data may be, nearest first: its own and, from
/// run<k>/, final/ and ranker/, up to two above.
std::vector<fs::path> data_folders(const std::string& model_path) {
  static const std::regex inner(R"(run[0-9]+|final|ranker)");
  std::vector<fs::path> out;
  fs::path dir = folder_of(model_path);
  for (int up = 0; up < 3; ++up) {
    out.push_back(dir);
    if (!std::regex_match(dir.filename().string(), inner) || !dir.has_parent_path()) break;
    dir = dir.parent_path();
  }
  return out;
}

}  // namespace

std::string find_snapshot(const std::string& model_path) {
  for (const fs::path& dir : data_folders(model_path))
    if (fs::is_regular_file(dir / data::kSnapshotFile)) return (dir / data::kSnapshotFile).string();
  return "";
}

namespace {

/// The run folder `model_path` belongs to: where its pinned data is (`snapshot`, what
/// find_snapshot found), else the farthest folder it could be in. (DIR/model.pt is a copy of
/// DIR/run0/model.pt, or of DIR/final/run0/model.pt, so the record is the same whichever of them it was
/// written as.)
fs::path run_folder_of(const std::string& model_path, const std::string& snapshot) {
  return snapshot.empty() ? data_folders(model_path).back() : fs::path(snapshot).parent_path();
}

}  // namespace

std::vector<std::string> folder_parts(const std::string& model_path) {
  std::vector<std::string> parts;
  const std::string snapshot = find_snapshot(model_path);
  if (!snapshot.empty()) parts.emplace_back(kDataPart);
  const fs::path run = run_folder_of(model_path, snapshot);
  // The ranker's own model is no part of itself.
  if (folder_of(model_path) != run / kRankerFolder && fs::is_regular_file(run / kRankerFolder / "model.pt"))
    parts.emplace_back(kRankerPart);
  if (fs::is_directory(folder_of(model_path) / kRefreshFolder)) parts.emplace_back(kRefreshPart);
  return parts;
}

namespace {

/// The SHA-256 a sealed file's header line names (util/checksum.h), "" where it has none.
std::string sealed_checksum(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::string line;
  if (!in || !std::getline(in, line)) return "";
  static const std::string prefix = "symgnn-sealed-1 sha256=";
  if (line.compare(0, prefix.size(), prefix) != 0 || line.size() < prefix.size() + 64) return "";
  return line.substr(prefix.size(), 64);
}

/// The part's file, where the folder has it: what a message names.
fs::path part_path(const std::string& model_path, const std::string& part) {
  const std::string snapshot = find_snapshot(model_path);
  const fs::path run = run_folder_of(model_path, snapshot);
  if (part == kDataPart) return snapshot.empty() ? run / data::kSnapshotFile : fs::path(snapshot);
  if (part == kRankerPart) return run / kRankerFolder / "model.pt";
  return folder_of(model_path) / kRefreshFolder;
}

}  // namespace

std::string part_checksum(const std::string& model_path, const std::string& part) {
  const fs::path path = part_path(model_path, part);
  if (part == kDataPart) return sealed_checksum(path.string());
  if (part == kRankerPart) {
    std::string hash;
    for (const manifest::Entry& e : manifest::read(path.parent_path().string()))
      if (e.name == path.filename().string()) hash = e.hash;  // the last listed: the file in place
    return hash;
  }
  return "";
}

void check_folder_parts(const std::string& model_path, const std::vector<std::string>& recorded,
                        const std::map<std::string, std::string>& checksums) {
  const std::vector<std::string> now = folder_parts(model_path);
  for (const std::string& part : recorded) {
    if (std::find(now.begin(), now.end(), part) != now.end()) {
      const auto it = checksums.find(part);
      if (it == checksums.end() || it->second.empty()) continue;
      const std::string here = part_checksum(model_path, part);
      if (here == it->second) continue;
      throw DataError(
          part_path(model_path, part).string() + ": not the " + part + " " + model_path +
          " was saved with (its checksum " +
          (here.empty() ? std::string("is unreadable") : here.substr(0, 12)) + ", the model records " +
          it->second.substr(0, 12) +
          "): a part from another run; restore this run's or copy the whole model folder, or train "
          "again");
    }
    const fs::path dir = run_folder_of(model_path, find_snapshot(model_path));
    if (part == kDataPart)
      throw DataError((dir / data::kSnapshotFile).string() + ": missing; " + model_path +
                      " was saved with the data it trained on there (restore the file or copy the whole "
                      "folder, or train again)");
    if (part == kRankerPart)
      throw DataError((dir / kRankerFolder / "model.pt").string() + ": missing; " + model_path +
                      " was saved with the ranker its lists come from there (restore the folder or copy the "
                      "whole model folder, or train again)");
    if (part == kRefreshPart)
      throw DataError(
          (folder_of(model_path) / kRefreshFolder).string() + ": missing; " + model_path +
          " was saved with the ratings folded in after its fit there (symgnn refresh; restore the "
          "folder or copy the whole model folder)");
    throw DataError(model_path + ": records a part '" + part +
                    "' this symgnn does not know; use a newer symgnn");
  }
}

}  // namespace symgnn::train
