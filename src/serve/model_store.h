// The models a server answers from, by name, each swappable without downtime (docs/serve.md,
// "Reloading"). The set of names is fixed when the server starts; each name's model is a
// shared_ptr read and replaced atomically (std::atomic_load / atomic_store), so a request
// takes the model it started with to the end, a reload never blocks a reader, and a failed
// reload leaves the old model serving.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "serve/served_model.h"
#include "symgnn/graph_edit.h"

namespace symgnn::serve {

/// What one reload did: the new version, or why the old model still serves.
struct ReloadOutcome {
  std::string name;
  bool ok = false;
  int64_t version = 0;  // the version serving after the attempt
  std::string error;    // the load's one-line error when !ok
};

class ModelStore {
 public:
  /// `models`: (name, directory) in the order given; the first is the default. Loads each
  /// (throws the first load's error: a server does not start on a model it cannot load).
  /// `cache_pairs`: load_served_model's limit of cached scores (0: none).
  /// `item_names_file`: names of items for every model (load_served_model; "" : the data's own).
  ModelStore(const std::vector<std::pair<std::string, std::string>>& models, std::string device,
             int64_t cache_pairs = kDefaultCachePairs, std::string item_names_file = "");
  /// 2^25 user x item pairs: 256 MiB of scores and ratings per model at most.
  static constexpr int64_t kDefaultCachePairs = int64_t{1} << 25;

  /// The model named `name` ("" : the default); null when no model has that name.
  std::shared_ptr<const ServedModel> get(const std::string& name) const;
  /// Every model, in the order given.
  std::vector<std::shared_ptr<const ServedModel>> all() const;
  const std::vector<std::string>& names() const { return names_; }

  /// Loads `name`'s directory again ("" : every model) and swaps each loaded model in;
  /// one reload at a time (reloads queue on a mutex readers never take).
  std::vector<ReloadOutcome> reload(const std::string& name = "");

  /// Applies `edits` to `name`'s model ("" : the default) as one batch (symgnn/graph_edit.h):
  /// recomputed beside the serving model, journalled in its directory (the record synced to
  /// disk, infer/graph_journal.h), then swapped in whole, so that a request sees the graphs
  /// before or after the batch, never half of it. One edit or reload at a time. Throws what
  /// apply_graph_edits throws for a refused edit and Error where the journal cannot be
  /// written; the model serving then stays. Returns the model now serving.
  std::shared_ptr<const ServedModel> edit_graph(const std::string& name,
                                                const std::vector<Delta::Edge>& edits);

 private:
  std::vector<std::string> names_, dirs_;
  std::vector<std::shared_ptr<const ServedModel>> slots_;  // atomic_load / atomic_store only
  std::string device_;
  int64_t cache_pairs_;
  std::string item_names_file_;
  std::mutex reload_mutex_;
};

}  // namespace symgnn::serve
