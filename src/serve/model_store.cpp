#include "serve/model_store.h"

#include <algorithm>
#include <exception>
#include <optional>

#include "infer/graph_journal.h"
#include "symgnn/error.h"
#include "symgnn/trained_model.h"

namespace symgnn::serve {

ModelStore::ModelStore(const std::vector<std::pair<std::string, std::string>>& models, std::string device,
                       int64_t cache_pairs, std::string item_names_file)
    : device_(std::move(device)), cache_pairs_(cache_pairs), item_names_file_(std::move(item_names_file)) {
  if (models.empty()) throw UsageError("serve: no model to serve (give --model DIR)");
  for (const auto& [name, dir] : models) {
    if (std::find(names_.begin(), names_.end(), name) != names_.end())
      throw UsageError("serve: --model " + name + "=... given twice (each name serves one model)");
    names_.push_back(name);
    dirs_.push_back(dir);
    slots_.push_back(load_served_model(name, dir, device_, 1, cache_pairs_, item_names_file_));
  }
}

std::shared_ptr<const ServedModel> ModelStore::get(const std::string& name) const {
  if (name.empty()) return std::atomic_load(&slots_.front());
  for (size_t k = 0; k < names_.size(); ++k)
    if (names_[k] == name) return std::atomic_load(&slots_[k]);
  return nullptr;
}

std::vector<std::shared_ptr<const ServedModel>> ModelStore::all() const {
  std::vector<std::shared_ptr<const ServedModel>> out;
  for (const auto& slot : slots_) out.push_back(std::atomic_load(&slot));
  return out;
}

std::vector<ReloadOutcome> ModelStore::reload(const std::string& name) {
  std::lock_guard<std::mutex> lock(reload_mutex_);
  std::vector<ReloadOutcome> out;
  for (size_t k = 0; k < names_.size(); ++k) {
    if (!name.empty() && names_[k] != name) continue;
    ReloadOutcome r;
    r.name = names_[k];
    const auto old = std::atomic_load(&slots_[k]);
    try {
      // Loaded beside the serving model, swapped in whole: readers see the old or the new.
      auto fresh =
          load_served_model(names_[k], dirs_[k], device_, old->version + 1, cache_pairs_, item_names_file_);
      std::atomic_store(&slots_[k], fresh);
      r.ok = true;
      r.version = fresh->version;
    } catch (const std::exception& e) {
      r.version = old->version;
      r.error = e.what();
    }
    out.push_back(r);
  }
  if (out.empty()) throw UsageError("serve: no model named '" + name + "'");
  return out;
}

std::shared_ptr<const ServedModel> ModelStore::edit_graph(const std::string& name,
                                                          const std::vector<Delta::Edge>& edits) {
  std::lock_guard<std::mutex> lock(reload_mutex_);
  for (size_t k = 0; k < names_.size(); ++k) {
    if (!name.empty() && names_[k] != name) continue;
    const auto old = std::atomic_load(&slots_[k]);
    // Checked against the journal as it is under its lock, not only against the graphs this
    // server holds: records another writer (`symgnn graph edit`) appended since the last load
    // are applied first, so that an edit they make impossible is refused here, and nothing
    // acknowledged can make the directory unloadable. Journalled before it is served: an
    // edit a client was told of survives a restart.
    std::optional<TrainedModel> edited;
    const int64_t record = infer::append_graph_journal(
        dirs_[k], edits, old->journal_records, [&](const std::vector<Delta::Edge>& unseen) {
          if (unseen.empty()) {
            edited.emplace(apply_graph_edits(*old->model, edits));  // refused: nothing changes
            return;
          }
          const TrainedModel caught_up = infer::replay_unseen(*old->model, unseen, dirs_[k]);
          edited.emplace(apply_graph_edits(caught_up, edits));
        });
    // Not cached again: every user's scores are seconds on a catalogue the cache is worth
    // having for, per edit; the edited model scores per request from its representations.
    std::shared_ptr<ServedModel> fresh = served_with(*old, std::move(*edited), 0);
    fresh->journal_records = record;
    std::shared_ptr<const ServedModel> serving = std::move(fresh);
    std::atomic_store(&slots_[k], serving);
    return serving;
  }
  throw UsageError("serve: no model named '" + name + "'");
}

}  // namespace symgnn::serve
