// A model in memory written as a model directory, and refreshed directories
// (symgnn/model_dir.h, infer/refresh.h).
#include "symgnn/model_dir.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "data/dataset_snapshot.h"
#include "infer/graph_journal.h"
#include "infer/model_parts.h"
#include "infer/new_node_files.h"
#include "infer/refresh.h"
#include "symgnn/error.h"
#include "symgnn/graph_edit.h"
#include "train/checkpoint.h"
#include "train/model_folder.h"
#include "util/atomic_file.h"
#include "util/checksum.h"

namespace fs = std::filesystem;

namespace symgnn {

namespace infer {

std::string refresh_folder(const std::string& model_dir, size_t k) {
  return (fs::path(model_dir) / train::kRefreshFolder / std::to_string(k)).string();
}

std::vector<NewNodeFiles> saved_refreshes(const std::string& model_path,
                                          const std::vector<std::string>& recorded_parts) {
  std::vector<NewNodeFiles> out;
  if (std::find(recorded_parts.begin(), recorded_parts.end(), train::kRefreshPart) == recorded_parts.end())
    return out;
  const fs::path parent = fs::path(model_path).parent_path();
  const std::string dir = parent.empty() ? "." : parent.string();
  const fs::path root = fs::path(dir) / train::kRefreshFolder;
  size_t folders = 0;  // refresh/<k>/ folders, whatever their names
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(root, ec))
    if (entry.is_directory()) ++folders;
  for (size_t k = 1; fs::is_directory(refresh_folder(dir, k)); ++k) {
    const std::string folder = refresh_folder(dir, k);
    NewNodeFiles nodes;
    for (const RefreshFile& f : kRefreshFiles) {
      const std::string path = folder + "/" + f.name;
      if (!fs::is_regular_file(path)) continue;
      read_verified_file(path);  // DataError naming it where its checksum differs
      nodes.*f.field = path;
    }
    if (nodes.ratings.empty())
      throw DataError(folder + "/ratings.csv: missing; " + model_path + " folds in the ratings of " + folder +
                      " (restore the file or copy the whole model folder)");
    out.push_back(std::move(nodes));
  }
  if (out.empty() || out.size() != folders)
    throw DataError(root.string() + ": expected the folders 1, 2, ... of the ratings folded into " +
                    model_path + " (symgnn refresh), found " + std::to_string(folders) +
                    " folder(s) of which " + std::to_string(out.size()) + " numbered in order");
  return out;
}

}  // namespace infer

namespace {

/// A file's bytes as they are (what a refresh copies); DataError naming it when unreadable.
std::string file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw DataError(path + ": cannot open (missing or unreadable file)");
  std::ostringstream os;
  os << in.rdbuf();
  if (in.bad()) throw DataError(path + ": cannot read");
  return os.str();
}

/// The folder a new directory `target` is written in before it is renamed into place: beside
/// it (one file system), hidden, unique to the process. A name near the 255-byte limit keeps
/// its first 120 bytes and a hash of the whole, so that the temporary name fits where the
/// name itself does.
fs::path staging_dir(const fs::path& target) {
  std::string name = target.filename().string();
  if (name.size() > 160) name = name.substr(0, 120) + "-" + sha256_hex(name).substr(0, 16);
  return target.parent_path() / ("." + name + ".tmp." + std::to_string(::getpid()));
}

/// UsageError unless `dir` is absent or an empty directory, and can be made: checked before
/// any work, the error naming --out as given (a link to nothing, a path under /proc, a parent
/// that is a file or read-only are found here, not after minutes of work).
void check_new_dir(const std::string& dir) {
  if (dir.empty()) throw UsageError("--out: an empty path; name the new model directory");
  std::error_code ec;
  if (fs::is_symlink(fs::symlink_status(dir, ec)) && !fs::exists(fs::status(dir, ec)))
    throw UsageError("--out " + dir + ": a link to nothing; choose a new folder");
  if (fs::exists(dir, ec)) {
    if (!fs::is_directory(dir, ec))
      throw UsageError("--out " + dir + ": exists and is not a directory; choose a new folder");
    if (!fs::is_empty(dir, ec))
      throw UsageError("--out " + dir +
                       ": exists and is not empty; choose a new folder (a model directory is never "
                       "written over)");
  }
  // Made and removed again: what the write will need, the folder beside the target.
  const fs::path target = fs::absolute(dir).lexically_normal();
  fs::create_directories(target.parent_path(), ec);
  fs::path probe = staging_dir(target);
  probe += ".probe";  // not the staging folder itself, which a second check may meet full
  if (ec || (!fs::create_directory(probe, ec) && !fs::is_directory(probe)) || ec)
    throw UsageError("--out " + dir + ": cannot be made (" +
                     (ec ? ec.message() : std::string("not a folder")) + "); choose another folder");
  fs::remove_all(probe, ec);
}

/// Rethrows the error being handled, `e`, of the same kind, its message naming the directory
/// the user named where it named the staging folder.
[[noreturn]] void rethrow_as_named(const Error& e, const fs::path& staging, const std::string& dir) {
  std::string what = e.what();
  const std::string from = staging.string();
  for (size_t at = what.find(from); at != std::string::npos; at = what.find(from, at + dir.size()))
    what.replace(at, from.size(), dir);
  if (what == e.what()) throw;
  if (dynamic_cast<const UsageError*>(&e)) throw UsageError(what);
  if (dynamic_cast<const DataError*>(&e)) throw DataError(what);
  if (dynamic_cast<const ConfigError*>(&e)) throw ConfigError(what);
  if (dynamic_cast<const CheckpointError*>(&e)) throw CheckpointError(what);
  throw Error(what);
}

/// The files of `model` (as fitted) in `dir`, nearest parts first so that model.pt's record
/// lists them (train/model_folder.h); `parent_data`, the fingerprint of the data the folder
/// above pins ("" none): a ranker's equal data is found there rather than written twice.
/// `written` gathers the paths relative to `top`.
void write_model_files(const TrainedModel& model, const std::string& dir, const std::string& parent_data,
                       const ModelDirFiles& files, bool top, const fs::path& root,
                       std::vector<std::string>& written) {
  const infer::ModelParts& p = model.parts();
  if (p.ctx.added_from >= 0)
    throw ConfigError(
        "save_model_dir: the model was grown by new nodes after its fit; write the model as "
        "fitted and give the new nodes' files as refreshes (symgnn refresh)");
  if (p.members.empty()) throw ConfigError("save_model_dir: the model has no weights");
  fs::create_directories(dir);
  const auto note = [&](const std::string& path) { written.push_back(fs::relative(path, root).string()); };
  const std::string data = data::fingerprint(p.ds);
  if (data != parent_data) {
    data::write_snapshot(p.ds, dir + "/" + data::kSnapshotFile);
    note(dir + "/" + data::kSnapshotFile);
  }
  if (p.ranker) {
    ModelDirFiles ranker_files;
    ranker_files.metrics_json = files.ranker_metrics_json;
    write_model_files(p.ranker->model(), infer::ranker_dir(dir), data, ranker_files, false, root, written);
    // The network trained for ranking beside it (train.ranker_network = on), as fitted.
    if (p.ranker->network())
      write_model_files(*p.ranker->network(), infer::ranker_network_dir(dir), data, ModelDirFiles{}, false,
                        root, written);
  }
  if (top)
    for (size_t k = 0; k < files.refreshes.size(); ++k) {
      const NewNodeFiles& r = files.refreshes[k];
      if (r.ratings.empty()) throw ConfigError("save_model_dir: a refresh without its ratings file");
      const std::string folder = infer::refresh_folder(dir, k + 1);
      fs::create_directories(folder);
      for (const infer::RefreshFile& f : infer::kRefreshFiles) {
        const std::string& from = r.*f.field;
        if (from.empty()) continue;
        write_text_atomic(folder + "/" + f.name, file_bytes(from));
        note(folder + "/" + f.name);
      }
    }
  std::vector<train::ModuleState> states;
  if (p.members.size() > 1)
    for (const auto& m : p.members) states.push_back(train::module_state(*m));
  RunConfig cfg = p.cfg;  // to_text visits the fields
  const std::string config = to_text(cfg);
  train::save_model(*p.members.front(), config, dir + "/model.pt", states);
  note(dir + "/model.pt");
  write_text_atomic(dir + "/config.txt", config);
  note(dir + "/config.txt");
  if (!files.metrics_json.empty()) {
    write_text_atomic(dir + "/metrics.json", files.metrics_json);
    note(dir + "/metrics.json");
  }
  if (top && !files.item_names_csv.empty()) {
    write_text_atomic(dir + "/" + data::kItemNamesFile, files.item_names_csv);
    note(dir + "/" + data::kItemNamesFile);
  }
}

/// Whether `loaded` predicts as `expected` on a few pairs (the first and last users, a few
/// items each): a written directory that loads into another model is refused.
bool same_predictions(const TrainedModel& expected, const TrainedModel& loaded) {
  if (expected.users() != loaded.users() || expected.items() != loaded.items()) return false;
  std::vector<int64_t> users, items;
  for (const int64_t u : {int64_t{0}, expected.users() / 2, expected.users() - 1})
    for (const int64_t i : {int64_t{0}, expected.items() / 2, expected.items() - 1}) {
      users.push_back(u);
      items.push_back(i);
    }
  const std::vector<float> a = expected.predict(users, items), b = loaded.predict(users, items);
  for (size_t k = 0; k < a.size(); ++k)
    if (!(std::fabs(a[k] - b[k]) <= 1e-3f * std::max(1.0f, std::fabs(a[k])))) return false;
  return true;
}

/// save_model_dir, checked against `expected` (the model the directory must load into: the
/// model itself, or the model grown by the refreshes).
std::vector<std::string> write_checked(const TrainedModel& model, const std::string& dir,
                                       const ModelDirFiles& files, const TrainedModel& expected) {
  check_new_dir(dir);
  const fs::path target = fs::absolute(dir).lexically_normal();
  fs::create_directories(target.parent_path());
  // Beside the target, so that the rename stays on one file system; a killed write leaves
  // this folder, never a half-written `dir`.
  const fs::path tmp = staging_dir(target);
  fs::remove_all(tmp);
  std::vector<std::string> written;
  try {
    write_model_files(model, tmp.string(), "", files, true, tmp, written);
    const TrainedModel loaded = TrainedModel::load(tmp.string(), expected.config().train.device);
    if (!same_predictions(expected, loaded))
      throw Error(dir + ": the directory written does not load into the model it was written from");
    check_new_dir(dir);
    std::error_code ec;
    if (fs::exists(target, ec)) fs::remove(target);  // empty: checked
    fs::rename(tmp, target);
  } catch (const Error& e) {
    std::error_code ec;
    fs::remove_all(tmp, ec);
    rethrow_as_named(e, tmp, dir);
  } catch (...) {
    std::error_code ec;
    fs::remove_all(tmp, ec);
    throw;
  }
  std::sort(written.begin(), written.end());
  return written;
}

/// The text of `path` checked against its folder's manifest, "" where it is no file.
std::string verified_or_empty(const std::string& path) {
  return fs::is_regular_file(path) ? read_verified_file(path) : std::string();
}

/// What a model directory holds beside its weights, for a new directory of the same model:
/// the model as fitted with the graph edits its journal holds applied (infer/graph_journal.h:
/// they go into the new directory's data), its refreshes (applied after them on every load),
/// its metrics, ranker metrics and item names.
struct SavedDir {
  TrainedModel base;
  ModelDirFiles files;
  int64_t journal_records = 0;
};

SavedDir saved_dir(const std::string& model_dir, const std::string& device) {
  const std::string model_path =
      fs::is_directory(model_dir) ? (fs::path(model_dir) / "model.pt").string() : model_dir;
  const fs::path folder = fs::path(model_path).parent_path();
  const std::string dir = folder.empty() ? "." : folder.string();
  SavedDir out{infer::load_as_fitted(model_dir, device), {}, 0};
  const auto batches = infer::read_graph_journal(dir);
  out.journal_records = static_cast<int64_t>(batches.size());
  if (!batches.empty()) out.base = apply_graph_edits(out.base, infer::journal_edits(batches));
  out.files.refreshes = infer::saved_refreshes(model_path, train::read_model_record(model_path).parts);
  out.files.metrics_json = verified_or_empty(dir + "/metrics.json");
  out.files.ranker_metrics_json = verified_or_empty(infer::ranker_dir(dir) + "/metrics.json");
  out.files.item_names_csv = verified_or_empty(dir + "/" + data::kItemNamesFile);
  return out;
}

/// The largest |a - b| over every user's scores of two models of the same nodes.
double largest_score_difference(const TrainedModel& a, const TrainedModel& b) {
  if (a.users() != b.users() || a.items() != b.items()) return INFINITY;
  double worst = 0;
  constexpr int64_t kBlock = 256;
  for (int64_t u0 = 0; u0 < a.users(); u0 += kBlock) {
    std::vector<int64_t> users;
    for (int64_t u = u0; u < std::min(a.users(), u0 + kBlock); ++u) users.push_back(u);
    const std::vector<float> x = a.score_all_items(users), y = b.score_all_items(users);
    for (size_t k = 0; k < x.size(); ++k) worst = std::max(worst, double(std::abs(x[k] - y[k])));
  }
  return worst;
}

}  // namespace

std::vector<std::string> save_model_dir(const TrainedModel& model, const std::string& dir,
                                        const ModelDirFiles& files) {
  if (!files.refreshes.empty()) {
    // What the directory will load into: the model grown by each refresh in turn.
    TrainedModel grown =
        model.with_new_nodes(infer::read_new_node_files(files.refreshes.front(), model.dataset()));
    for (size_t k = 1; k < files.refreshes.size(); ++k)
      grown = grown.with_new_nodes(infer::read_new_node_files(files.refreshes[k], grown.dataset()));
    return write_checked(model, dir, files, grown);
  }
  return write_checked(model, dir, files, model);
}

RefreshSummary refresh_model_dir(const std::string& model_dir, const NewNodeFiles& new_nodes,
                                 const std::string& out_dir, const std::string& device) {
  check_new_dir(out_dir);
  if (new_nodes.ratings.empty()) throw UsageError("refresh: no ratings file given (--ratings FILE)");
  // The new ratings checked (and their model built) as recommend --new-ratings builds it: a
  // bad row is refused here, naming its file and line, before anything is written.
  const TrainedModel grown = TrainedModel::load(model_dir, device, new_nodes);
  const SavedDir saved = saved_dir(model_dir, device);
  ModelDirFiles files = saved.files;
  files.refreshes.push_back(new_nodes);
  write_checked(saved.base, out_dir, files, grown);
  RefreshSummary s;
  s.added = grown.new_ratings();
  s.refreshes = static_cast<int64_t>(files.refreshes.size());
  s.users = grown.users();
  s.items = grown.items();
  return s;
}

int64_t compact_model_dir(const std::string& model_dir, const std::string& out_dir,
                          const std::string& device) {
  check_new_dir(out_dir);
  const TrainedModel now = TrainedModel::load(model_dir, device);  // the journal replayed last
  const SavedDir saved = saved_dir(model_dir, device);
  write_checked(saved.base, out_dir, saved.files, now);
  // write_checked compares a few predictions; a compacted directory must list as the
  // journalled one does for every user.
  const double worst = largest_score_difference(TrainedModel::load(out_dir, device), now);
  if (!(worst <= 1e-5)) {
    std::error_code ec;
    fs::remove_all(out_dir, ec);
    throw Error("graph compact: " + out_dir + " would score differently from " + model_dir + " (by " +
                std::to_string(worst) + "); nothing written");
  }
  return saved.journal_records;
}

}  // namespace symgnn
