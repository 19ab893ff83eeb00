#include "serve/served_model.h"

#include <chrono>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "data/dataset_snapshot.h"
#include "data/item_names.h"
#include "data/parsers.h"
#include "infer/graph_journal.h"
#include "symgnn/error.h"
#include "symgnn/run_metrics.h"
#include "train/history_csv.h"
#include "util/checksum.h"

namespace fs = std::filesystem;

namespace symgnn::serve {

namespace {

std::string utc_now() {
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

/// The training curve of the model's first run (`run0/history.csv`, or `final/run0/` after
/// a retrain) as {"file": ..., "columns": [...], "rows": [[...], ...]}; null when there is
/// none or it cannot be read (the model serves without its curve).
nlohmann::json training_curve(const std::string& dir) {
  for (const std::string& at : {dir + "/run0/history.csv", dir + "/final/run0/history.csv"}) {
    if (!fs::exists(at)) continue;
    try {
      const train::HistoryTable t = train::read_history_csv(at);
      return {{"file", fs::relative(at, dir).string()}, {"columns", t.columns}, {"rows", t.rows}};
    } catch (const DataError&) {
      return nullptr;
    }
  }
  return nullptr;
}

std::string config_text(RunConfig cfg) {
  return to_text(cfg);
}

}  // namespace

/// Computes what requests would otherwise compute on first use, before threads share the
/// model: every score where users x items <= cache_pairs (returns whether it did), else the
/// node representations a model scoring per request keeps from its first call in eval mode
/// (LowRankModel::rating_items), so that requests only read them; and, with the scores, what
/// a new user's fold-in reads.
static bool ready_to_share(TrainedModel& model, int64_t cache_pairs) {
  const bool cached = model.cache_all_scores(cache_pairs);
  if (!cached && model.users() > 0) {
    model.score_all_items({0});
    model.rating_all_items({0});
  }
  // What a new user's fold-in reads (the door's fold_user, symgnn/update.h), where the model is small
  // enough for its scores to be held: a larger one makes it on its first new user.
  if (cached) model.prepare_fold_ins();
  return cached;
}

std::shared_ptr<ServedModel> served_with(const ServedModel& old, TrainedModel model, int64_t cache_pairs) {
  auto m = std::make_shared<ServedModel>(old);
  auto fresh = std::make_shared<TrainedModel>(std::move(model));
  m->cached = ready_to_share(*fresh, cache_pairs);
  m->model = std::move(fresh);
  m->version = old.version + 1;
  m->info["scores_cached"] = m->cached;
  if (m->model->users() != old.model->users() || m->model->items() != old.model->items()) {
    // Nodes the edit created: their ids join the indexes; created items have no names.
    m->users = data::id_index(m->model->dataset().users);
    m->items = data::id_index(m->model->dataset().items);
    if (!m->item_names.empty()) m->item_names.resize(static_cast<size_t>(m->model->items()));
    m->info["users"] = m->model->users();
    m->info["items"] = m->model->items();
  }
  m->loaded_at = utc_now();
  return m;
}

std::shared_ptr<const ServedModel> load_served_model(const std::string& name, const std::string& dir,
                                                     const std::string& device, int64_t version,
                                                     int64_t cache_pairs,
                                                     const std::string& item_names_file) {
  auto m = std::make_shared<ServedModel>();
  m->name = name;
  m->dir = dir;
  m->device = device;
  m->version = version;
  // The journal's records counted as the load replayed them (a `symgnn graph edit` may
  // append meanwhile): the server's next edit replays those it lacks first (model_store.cpp).
  auto [loaded, records] =
      infer::load_with_journal_count<TrainedModel>(dir, [&] { return TrainedModel::load(dir, device); });
  auto model = std::make_shared<TrainedModel>(std::move(loaded));
  m->cached = ready_to_share(*model, cache_pairs);
  m->model = std::move(model);
  m->journal_records = records;
  m->users = data::id_index(m->model->dataset().users);
  m->items = data::id_index(m->model->dataset().items);
  // The names given, else those the directory kept (fit.cpp), else the data source's own.
  const data::ItemNames names = data::model_item_names(dir, item_names_file, m->model->config().data.source);
  if (!names.empty()) {
    m->item_names.resize(static_cast<size_t>(m->model->items()));
    for (int64_t i = 0; i < m->model->items(); ++i) {
      const auto it = names.find(m->model->dataset().items.id_of(i));
      if (it != names.end()) m->item_names[static_cast<size_t>(i)] = it->second;
    }
  }
  // The representations GET /v1/similar compares are computed here, at load, rather than by
  // the first request (TrainedModel::similar prepares them once).
  const std::string similar_by = m->model->similarity_basis(NodeSide::items);
  nlohmann::json metrics = nullptr;
  if (fs::is_directory(dir) && fs::exists(dir + "/metrics.json")) metrics = RunMetrics::read(dir).to_json();
  m->info = {{"name", name},
             {"dir", dir},
             {"model", m->model->name()},
             {"users", m->model->users()},
             {"items", m->model->items()},
             {"rating_min", m->model->rating_min()},
             {"rating_max", m->model->rating_max()},
             {"ranked_by", m->model->ranker().empty() ? m->model->name() : m->model->ranker()},
             {"ranks_by_rating", m->model->ranks_by_rating()},
             {"item_names", !m->item_names.empty()},
             {"similar_by", similar_by},
             {"scores_cached", m->cached},
             {"config", config_text(m->model->config())},
             {"metrics", metrics},
             {"training_curve", fs::is_directory(dir) ? training_curve(dir) : nlohmann::json()}};
  m->loaded_at = utc_now();
  return m;
}

}  // namespace symgnn::serve
