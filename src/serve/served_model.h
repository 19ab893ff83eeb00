// A model as `symgnn serve` holds it (docs/serve.md): the loaded TrainedModel, its original
// ids both ways, and what GET /v1/models reports of it (config, metrics, training curve),
// read once at load so that no request touches the model directory.
#pragma once

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "data/text_reader.h"
#include "symgnn/trained_model.h"

namespace symgnn::serve {

struct ServedModel {
  std::string name;       // the --model NAME (or "default")
  std::string dir;        // the model directory it was loaded from
  std::string device;     // where it scores
  int64_t version = 0;    // 1 at start, +1 per successful reload
  std::string loaded_at;  // UTC, ISO 8601
  bool cached = false;    // lists and predictions answered from scores computed at load
  std::shared_ptr<const TrainedModel> model;
  data::IdIndex users, items;  // original id -> index
  /// Display names by item index ("" where none; empty: the model has no names): from
  /// --item-names FILE, else the titles of a MovieLens data source (data/item_names.h).
  std::vector<std::string> item_names;
  nlohmann::json info;  // GET /v1/models' entry, without the live fields
  /// The records of its directory's graph journal the model holds (infer/graph_journal.h):
  /// those read at load, or the number of the record its last edit wrote.
  int64_t journal_records = 0;
};

/// `old` serving `model` instead (a graph edit's result): version + 1, its scores computed
/// now where users x items <= cache_pairs, as load_served_model does.
std::shared_ptr<ServedModel> served_with(const ServedModel& old, TrainedModel model, int64_t cache_pairs);

/// Loads DIR as TrainedModel::load does (its files verified against their checksums) and
/// reads metrics.json and run0's training curve where present. Throws what load throws
/// (DataError naming the file) on a missing or damaged directory. Where users x items <=
/// `cache_pairs`, every user's scores are computed now (TrainedModel::cache_all_scores), so
/// that a request ranks a row in memory instead of running the model. `item_names_file`:
/// a names file ("id,name"; "" : the data source's titles where it has them).
std::shared_ptr<const ServedModel> load_served_model(const std::string& name, const std::string& dir,
                                                     const std::string& device, int64_t version,
                                                     int64_t cache_pairs,
                                                     const std::string& item_names_file = "");

}  // namespace symgnn::serve
