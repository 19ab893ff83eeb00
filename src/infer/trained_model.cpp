#include "symgnn/trained_model.h"

#include <torch/types.h>
#include <torch/utils.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <iterator>
#include <mutex>
#include <utility>
#include <vector>

#include "data/dataset_snapshot.h"
#include "data/parsers.h"
#include "infer/cold_lists.h"
#include "infer/graph_journal.h"
#include "infer/model_parts.h"
#include "infer/new_node_files.h"
#include "infer/new_ratings.h"
#include "infer/ranker_graph_term.h"
#include "infer/ranker_quality_term.h"
#include "infer/refresh.h"
#include "infer/split_rows.h"
#include "models/baseline/offset_model.h"
#include "runtime/runtime.h"
#include "symgnn/error.h"
#include "symgnn/graph.h"
#include "symgnn/graph_edit.h"
#include "symgnn/model.h"
#include "symgnn/model_kinds.h"
#include "symgnn/update.h"
#include "train/checkpoint.h"
#include "train/model_folder.h"

namespace fs = std::filesystem;

namespace symgnn {

struct TrainedModel::Impl {
  infer::ModelParts parts;
  at::Device device{at::kCPU};
  std::vector<std::vector<int64_t>> seen;
  NewRatingsSummary added;
  std::string data_note;

  /// score_all_items() of `users` where a ranker is beside the model: the ranker's rows, the
  /// model's own for users without ratings.
  std::vector<float> ranker_rows(const std::vector<int64_t>& users);
  /// The ranker's own rows of `users`, before the user graph's term.
  std::vector<float> raw_ranker_rows(const std::vector<int64_t>& users) const {
    return parts.ranker->rows(users, seen);
  }
  /// train.ranker_graph = user (infer/ranker_graph_term.h): the linked raters' term joins the
  /// ranker's rows.
  bool ranker_graph_term() const { return parts.ranker && parts.cfg.train.ranker_graph == "user"; }
  /// train.ranker_quality = item (infer/ranker_quality_term.h): the items' ratings join the
  /// ranker's rows, after the user graph's term; q(i) from the ratings the model was fitted on
  /// (with_new_nodes hands them on).
  bool ranker_quality_term() const { return parts.ranker && parts.cfg.train.ranker_quality == "item"; }
  /// train.ranker_network = on (infer/ranker_network_term.h): the network trained for ranking
  /// joins the ranker's rows last, for the users and items it was fitted on.
  bool ranker_network_term(int64_t user = -1) const {
    return parts.ranker && parts.ranker->network() && (user < 0 || user < parts.ranker->network()->users());
  }
  std::once_flag quality_once;
  std::vector<float> quality;
  const std::vector<float>& item_quality() {
    std::call_once(quality_once, [this] {
      quality = infer::item_quality(parts.ds, parts.cfg.train.ranker_quality_shrinkage, /*validation=*/true);
    });
    return quality;
  }

  /// train.cold_lists other than model and a ranker beside the model, or a kind that scores users
  /// from their rated items alone (a ranking kind that reads no user graph): users without
  /// ratings are listed by infer/cold_lists.h.
  bool lists_cold = false;
  std::once_flag cold_once;
  std::unique_ptr<infer::ColdLists> cold;
  const infer::ColdLists& cold_lists() {
    std::call_once(cold_once, [this] {
      cold = std::make_unique<infer::ColdLists>(parts.ds, parts.cfg.train.cold_popularity_weight,
                                                parts.cfg.train.cold_lists == "popularity");
    });
    return *cold;
  }
  bool is_cold(int64_t user) const { return lists_cold && seen[static_cast<size_t>(user)].empty(); }
  /// score_all_items() of `users`: `rated_rows` of those with ratings, the cold lists' of the
  /// others (is_cold).
  template <typename Rows>
  std::vector<float> with_cold_rows(const std::vector<int64_t>& users, Rows rated_rows);
  /// The rows of `users`, row-major: `rows` of those `other` leaves, `other_rows` of the rest
  /// (infer/split_rows.h; the callers check the ids).
  template <typename Other, typename Rows, typename OtherRows>
  std::vector<float> split_rows(const std::vector<int64_t>& users, Other other, Rows rows,
                                OtherRows other_rows) {
    return infer::split_rows(users, static_cast<size_t>(parts.ctx.n2), other, rows, other_rows);
  }

  /// Mean of the members' `score` of the index tensors, on the CPU as float.
  template <typename Score>
  at::Tensor mean_of(Score score) {
    torch::NoGradGuard no_grad;
    at::Tensor sum;
    for (const auto& m : parts.members) {
      const at::Tensor p = score(*m);
      sum = sum.defined() ? sum + p : p;
    }
    return (sum / static_cast<double>(parts.members.size())).to(torch::kCPU, torch::kFloat).contiguous();
  }

  /// score_all_items and rating_all_items: `of` (RatingModel::score_items or rating_items)
  /// of every member for the users, averaged, row-major.
  using ItemsOf = at::Tensor (models::RatingModel::*)(const at::Tensor&, int64_t);
  std::vector<float> all_items(const std::vector<int64_t>& users, ItemsOf of);

  /// cache_all_scores(): every user's scores and ratings, row-major (empty: not cached).
  std::vector<float> cached_scores, cached_ratings;
  /// The cached rows of `users`, row-major.
  std::vector<float> rows_of(const std::vector<float>& cache, const std::vector<int64_t>& users) const;

  /// similar(): per side, the members' representations side by side with unit rows (CPU,
  /// float), undefined where the kind has none; then `raters` (item -> users who rated it)
  /// serves the co-ratings fallback.
  std::once_flag similarity_once;
  std::array<at::Tensor, 2> unit_rows;
  std::vector<std::vector<int64_t>> raters;
  void prepare_similarity();
  /// Cosine of the binary interaction rows of node `index` of `side` with every node of it.
  std::vector<float> co_rating_cosine(int side, int64_t index) const;

  /// training_ratings_of(): each user's positions in parts.ds.train, made on first use.
  std::once_flag ratings_once;
  std::vector<std::vector<int64_t>> ratings_by_user;
  /// user_index() and item_index(): the ids of each side, indexed on first use.
  std::once_flag ids_once;
  data::IdIndex user_ids, item_ids;
  void index_ids() {
    std::call_once(ids_once, [this] {
      user_ids = data::id_index(parts.ds.users);
      item_ids = data::id_index(parts.ds.items);
    });
  }
};

namespace {

std::vector<std::vector<int64_t>> seen_by_user(const Dataset& ds) {
  std::vector<std::vector<int64_t>> seen(static_cast<size_t>(ds.users.count));
  for (const RatingList* r : {&ds.train, &ds.validation})
    for (size_t e = 0; e < r->size(); ++e) seen[static_cast<size_t>(r->user[e])].push_back(r->item[e]);
  for (auto& s : seen) {
    std::sort(s.begin(), s.end());
    s.erase(std::unique(s.begin(), s.end()), s.end());
  }
  return seen;
}

/// The data of the model saved at `model_path`: the snapshot its run pinned
/// (data/dataset_snapshot.h), found in the model's folder or, for a run's or the ranker's
/// own model, in the run folder above it; with the validation ratings in training where
/// the model was retrained on all of them (data.val_fraction = 0). A folder written before
/// snapshots existed reads its config's files again, and `note` says so.
Dataset model_data(const std::string& model_path, const RunConfig& cfg, std::string& note) {
  if (const std::string snapshot = train::find_snapshot(model_path); !snapshot.empty()) {
    Dataset ds = data::read_snapshot(snapshot);
    // A user graph the models do without stays for the lists (NodeSet::links_only): the
    // snapshot holds the graph, the config says the models read the identity.
    if (cfg.graph.user_graph == "identity") graph::use_identity_for_models(ds.users, true);
    return cfg.data.val_fraction == 0 && !ds.validation.empty() ? data::with_validation_in_train(ds) : ds;
  }
  note =
      "note: " + model_path + " was saved without the data it trained on (an older symgnn): reading " +
      (cfg.data.source == "synthetic" ? std::string("the synthetic set") : "data.source " + cfg.data.source) +
      " again; files changed since training change the answers (train again to pin them)";
  Dataset ds = load_dataset(cfg.data);
  graph::resolve_graphs(ds, cfg.graph);  // the graphs as trained: what was substituted was said then
  return ds;
}

void check_ids(const std::vector<int64_t>& ids, int64_t n, const char* what) {
  for (const int64_t id : ids)
    if (id < 0 || id >= n)
      throw ConfigError(std::string(what) + " index " + std::to_string(id) + " outside [0, " +
                        std::to_string(n) + ")");
}

std::vector<float> to_vector(const at::Tensor& t) {
  return std::vector<float>(t.data_ptr<float>(), t.data_ptr<float>() + t.numel());
}

}  // namespace

namespace infer {

at::Tensor member_representations(const ModelParts& parts, int side) {
  torch::NoGradGuard no_grad;
  std::vector<at::Tensor> rows;
  for (const auto& m : parts.members) {
    const at::Tensor r = m->node_representations(side);
    if (!r.defined()) return {};
    rows.push_back(r.to(torch::kCPU, torch::kFloat));
  }
  return rows.empty() ? at::Tensor() : torch::cat(rows, 1).contiguous();
}

ModelParts model_parts(const RunConfig& cfg, Dataset ds, const std::vector<train::ModuleState>& states,
                       std::shared_ptr<const models::ShrinkageChoice> bias_shrinkage) {
  TORCH_CHECK(!states.empty(), "model_parts: no weight set");
  ModelParts p;
  p.cfg = cfg;
  p.ds = std::move(ds);
  p.ctx = models::make_context(p.ds).to(at::Device(cfg.train.device));
  p.ctx.bias_shrinkage = std::move(bias_shrinkage);
  models::give_offset_shrinkage(p.ctx, cfg);
  for (const auto& state : states) {
    auto m = models::make_model(p.cfg, p.ctx);
    m->to(at::Device(cfg.train.device));
    train::set_module_state(*m, state);
    m->eval();
    p.members.push_back(std::move(m));
  }
  return p;
}

}  // namespace infer

namespace {

/// The members of `parts` (its config, data and trained context set) from the trained weight
/// sets `states`, grown by `new_nodes`: the data gain their rows, the context is the grown
/// data's with the trained rating scale, each state gains zero rows for the new nodes, and
/// the state that is no weight follows from their ratings (RatingModel::nodes_added).
/// `first`, where given, already holds states[0] for the data as trained.
NewRatingsSummary build_members(infer::ModelParts& parts, const std::vector<train::ModuleState>& states,
                                const NewNodes& new_nodes, const at::Device& dev,
                                std::shared_ptr<models::RatingModel> first) {
  NewRatingsSummary added;
  const int64_t trained_users = parts.ctx.n1, trained_items = parts.ctx.n2;
  if (!new_nodes.empty()) {
    const int64_t fitted_ratings = static_cast<int64_t>(parts.ds.train.size());
    added = infer::add_new_nodes(parts.ds, new_nodes, parts.cfg.graph);  // appends to ds.train
    models::ModelContext ctx = models::make_context(parts.ds);
    ctx.global_mean = parts.ctx.global_mean;
    ctx.rating_std = parts.ctx.rating_std;
    ctx.added_from = fitted_ratings;
    // The offset's shrinkage pair as trained (the ratings it was chosen on are those the members
    // learned from): the new nodes' biases under it, as a fold-in gives them
    // (OffsetModel::fold_user); chosen here only where the model carries none.
    ctx.bias_shrinkage = parts.ctx.bias_shrinkage;
    models::give_offset_shrinkage(ctx, parts.cfg);
    parts.ctx = ctx.to(dev);
    first = nullptr;
  }
  for (const auto& state : states) {
    auto m = first ? std::exchange(first, nullptr) : models::make_model(parts.cfg, parts.ctx);
    m->to(dev);
    if (new_nodes.empty()) {
      train::set_module_state(*m, state);
    } else {
      infer::grow_into(*m, state);
      m->nodes_added(parts.ctx, trained_users, trained_items);
    }
    parts.members.push_back(std::move(m));
  }
  return added;
}

}  // namespace

TrainedModel::TrainedModel(infer::ModelParts&& parts) : impl_(std::make_unique<Impl>()) {
  impl_->device = at::Device(parts.cfg.train.device);
  impl_->seen = seen_by_user(parts.ds);
  impl_->parts = std::move(parts);
  const infer::ModelParts& p = impl_->parts;
  impl_->lists_cold = p.cfg.train.cold_lists != "model" &&
                      (p.ranker || kind_scores_from_rated_items(model_kind(p.cfg.model)));
  // Only where needed: eval() drops what a member keeps of its forward (a graph edit's carried
  // representations, infer/graph_edit.cpp).
  for (auto& m : impl_->parts.members)
    if (m->is_training()) m->eval();
}
TrainedModel::TrainedModel(TrainedModel&&) noexcept = default;
TrainedModel& TrainedModel::operator=(TrainedModel&&) noexcept = default;
TrainedModel::~TrainedModel() = default;

TrainedModel TrainedModel::load(const std::string& path, const std::string& device,
                                const std::string& new_ratings) {
  NewNodeFiles files;
  files.ratings = new_ratings;
  return load(path, device, files);
}

namespace {

/// What loading a saved model reads: its parts as fitted, the data's note (TrainedModel::Impl's
/// field), and the refreshes its directory records (infer/refresh.h), which the caller applies
/// in turn.
struct Loaded {
  infer::ModelParts parts;
  std::string data_note;
  std::vector<NewNodeFiles> refreshes;  // the ratings the directory folded in after its fit
};

/// The model saved at `path` (a model directory or its model.pt) as fitted, with the refreshes
/// its record lists (symgnn refresh) unless `as_fitted`, which the caller applies in turn.
Loaded load_saved(const std::string& path, const std::string& device, bool as_fitted) {
  runtime::check_device(device, "--device");
  const std::string model_path = fs::is_directory(path) ? (fs::path(path) / "model.pt").string() : path;
  if (!fs::is_regular_file(model_path))
    throw DataError(model_path + ": no model here (write one with `symgnn train --out DIR`)");
  RunConfig cfg;
  const train::ModelRecord record = train::read_model_record(model_path);
  load_config_text(cfg, record.config, model_path);
  train::check_folder_parts(model_path, record.parts, record.part_checksums);
  cfg.train.device = device;
  Loaded out;
  if (!as_fitted) out.refreshes = infer::saved_refreshes(model_path, record.parts);
  infer::ModelParts& parts = out.parts;
  parts.cfg = cfg;
  parts.ds = model_data(model_path, cfg, out.data_note);
  const at::Device dev(device);
  parts.ctx = models::make_context(parts.ds).to(dev);
  // The offset's shrinkage of the saved data's ratings, chosen once for every member.
  models::give_offset_shrinkage(parts.ctx, cfg);
  // The saved weight sets, read into (and checked against) a model built from the config. New
  // nodes reach the loaded model through the door (symgnn/update.h).
  auto first = models::make_model(cfg, parts.ctx);
  first->to(dev);
  const std::vector<train::ModuleState> states = train::load_model_members(*first, model_path, dev);
  build_members(parts, states, NewNodes{}, dev, std::move(first));
  // The ranker beside the model (train.ranker): a model directory of its own, fitted to the
  // training users and items.
  const fs::path dir = fs::path(model_path).parent_path();
  const std::string ranker = infer::ranker_dir(dir.empty() ? "." : dir.string());
  if (fs::is_regular_file(ranker + "/model.pt")) {
    // The network trained for ranking beside it (train.ranker_network = on): a model directory
    // of its own too, fitted to the same users and items.
    std::shared_ptr<const TrainedModel> network;
    if (cfg.train.ranker_network == "on") {
      const std::string folder = infer::ranker_network_dir(dir.empty() ? "." : dir.string());
      if (!fs::is_regular_file(folder + "/model.pt"))
        throw CheckpointError(folder + "/model.pt: missing: the config has train.ranker_network = on");
      network = std::make_shared<const TrainedModel>(TrainedModel::load(folder, device));
    }
    parts.ranker = std::make_shared<const infer::RankerMember>(
        std::make_shared<const TrainedModel>(TrainedModel::load(ranker, device)), std::vector<int64_t>{},
        std::move(network));
  }
  return out;
}

}  // namespace

TrainedModel TrainedModel::load(const std::string& path, const std::string& device, const NewNodeFiles& files,
                                const Delta& rows) {
  Loaded l = load_saved(path, device, /*as_fitted=*/false);
  TrainedModel out(std::move(l.parts));
  out.impl_->data_note = l.data_note;
  const bool given = !files.empty() || !rows.empty();
  infer::check_takes_new_nodes(out.config(), given);  // before any file is read
  // Each refresh the directory holds (infer/refresh.h), then the change given, through the door
  // (symgnn/update.h), each read against the data those before it leave; what load reports as
  // added is the change's alone (the refreshes are the directory's own).
  const auto grown_by = [&out](const NewNodes& nodes) {
    out = std::move(*apply(out, nodes, Keep::model).model);
  };
  for (const NewNodeFiles& refresh : l.refreshes)
    grown_by(infer::read_new_node_files(refresh, out.dataset()));
  if (given) {
    std::vector<Delta::Edge> linked_alone;
    NewNodes nodes = infer::read_new_node_files(files, out.dataset(), &linked_alone);
    nodes.rows = rows;
    if (!nodes.empty() || linked_alone.empty())
      grown_by(nodes);
    else
      out.impl_->added = NewRatingsSummary{};
    // Users known by their links alone join as a graph edit creating them makes them
    // (`symgnn graph edit --create`): listed by the people they are linked to (infer/cold_lists.h).
    if (!linked_alone.empty()) {
      NewRatingsSummary added = out.impl_->added;
      TrainedModel edited = [&] {
        try {
          return apply_graph_edits(out, linked_alone);
        } catch (const ConfigError& e) {
          throw ConfigError(files.user_graph_file +
                            ": it names users absent from training and from the ratings, new users known by "
                            "their links alone, who join as a graph edit creating them would make them; " +
                            e.what());
        }
      }();
      added.linked_users = edited.users() - out.users();
      added.linked_users_links = static_cast<int64_t>(linked_alone.size());
      added.linked_users_file = files.user_graph_file;
      edited.impl_->data_note = out.impl_->data_note;
      out = std::move(edited);
      out.impl_->added = added;
    }
  } else {
    out.impl_->added = NewRatingsSummary{};
  }
  // The graph edits a server accepted since (infer/graph_journal.h), replayed last, in one
  // recompute; what the model reports of its loading stays.
  const std::vector<std::vector<Delta::Edge>> batches = infer::read_graph_journal(path);
  const std::vector<Delta::Edge> edits = infer::journal_edits(batches);
  if (edits.empty()) return out;
  TrainedModel edited = [&] {
    try {
      return apply_graph_edits(out, edits);
    } catch (const ConfigError& e) {  // a journal another model's data cannot take
      throw infer::journal_replay_error(infer::graph_journal_path(path), batches, e.what());
    }
  }();
  edited.impl_->added = out.impl_->added;
  edited.impl_->data_note = out.impl_->data_note;
  return edited;
}

namespace infer {

TrainedModel load_as_fitted(const std::string& path, const std::string& device) {
  Loaded l = load_saved(path, device, /*as_fitted=*/true);
  return TrainedModel(std::move(l.parts));
}

}  // namespace infer

TrainedModel TrainedModel::with_new_nodes(const NewNodes& new_nodes) const {
  const infer::ModelParts& base = impl_->parts;
  infer::check_takes_new_nodes(base.cfg, !new_nodes.empty());
  infer::ModelParts parts;
  parts.cfg = base.cfg;
  parts.ds = base.ds;
  parts.ctx = base.ctx;
  std::vector<train::ModuleState> states;
  // Not copied: the grown members copy what they read (grow_into).
  for (const auto& m : base.members) states.push_back(train::module_state(*m, /*copy=*/false));
  const size_t fitted_ratings = parts.ds.train.size();
  const NewRatingsSummary added = build_members(parts, states, new_nodes, impl_->device, nullptr);
  // The ranker places the same nodes: asked for their rows, or grown in the same order.
  parts.ranker = infer::grown(base.ranker, new_nodes, added, parts.ds, fitted_ratings);
  TrainedModel out(std::move(parts));
  out.impl_->added = added;
  out.impl_->data_note = impl_->data_note;
  if (impl_->ranker_quality_term()) {
    // The items' ratings as the ranker was fitted (as its rows are), so that a served user's
    // fold-in, which reads the model's, lists alike; a new item has none.
    std::vector<float> q = impl_->item_quality();
    q.resize(static_cast<size_t>(out.items()), 0.0f);
    std::call_once(out.impl_->quality_once, [&] { out.impl_->quality = std::move(q); });
  }
  return out;
}

const RunConfig& TrainedModel::config() const {
  return impl_->parts.cfg;
}
const Dataset& TrainedModel::dataset() const {
  return impl_->parts.ds;
}
int64_t TrainedModel::users() const {
  return impl_->parts.ctx.n1;
}
int64_t TrainedModel::items() const {
  return impl_->parts.ctx.n2;
}
float TrainedModel::rating_min() const {
  return impl_->parts.ctx.rating_min;
}
float TrainedModel::rating_max() const {
  return impl_->parts.ctx.rating_max;
}
float TrainedModel::global_mean() const {
  return impl_->parts.ctx.global_mean;
}
std::string TrainedModel::name() const {
  return impl_->parts.members.front()->name();
}
const std::vector<std::vector<int64_t>>& TrainedModel::seen_items() const {
  return impl_->seen;
}
const std::string& TrainedModel::data_note() const {
  return impl_->data_note;
}

const std::vector<int64_t>& TrainedModel::training_ratings_of(int64_t user) const {
  check_ids({user}, users(), "user");
  std::call_once(impl_->ratings_once, [this] {
    const RatingList& train = impl_->parts.ds.train;
    impl_->ratings_by_user.assign(static_cast<size_t>(users()), {});
    for (size_t e = 0; e < train.size(); ++e)
      impl_->ratings_by_user[static_cast<size_t>(train.user[e])].push_back(static_cast<int64_t>(e));
  });
  return impl_->ratings_by_user[static_cast<size_t>(user)];
}

int64_t TrainedModel::user_index(const std::string& id) const {
  impl_->index_ids();
  return impl_->user_ids.find(id);
}

int64_t TrainedModel::item_index(const std::string& id) const {
  impl_->index_ids();
  return impl_->item_ids.find(id);
}

const infer::ModelParts& TrainedModel::parts() const {
  return impl_->parts;
}

const NewRatingsSummary& TrainedModel::new_ratings() const {
  return impl_->added;
}

std::vector<float> TrainedModel::predict(const std::vector<int64_t>& users,
                                         const std::vector<int64_t>& items) const {
  if (users.size() != items.size()) throw ConfigError("predict: users and items differ in length");
  if (users.empty()) return {};
  check_ids(users, this->users(), "user");
  check_ids(items, this->items(), "item");
  const auto opts = torch::TensorOptions().dtype(torch::kInt64);
  const at::Tensor u = torch::tensor(users, opts).to(impl_->device);
  const at::Tensor i = torch::tensor(items, opts).to(impl_->device);
  const float lo = rating_min(), hi = rating_max();
  return to_vector(impl_->mean_of([&](models::RatingModel& m) { return m.forward(u, i).clamp(lo, hi); }));
}

std::vector<float> TrainedModel::Impl::all_items(const std::vector<int64_t>& users, ItemsOf of) {
  if (users.empty()) return {};
  check_ids(users, parts.ctx.n1, "user");
  const at::Tensor block = torch::tensor(users, torch::kInt64).to(device);
  const int64_t n2 = parts.ctx.n2;
  return to_vector(mean_of([&](models::RatingModel& m) { return (m.*of)(block, n2); }));
}

std::vector<float> TrainedModel::Impl::rows_of(const std::vector<float>& cache,
                                               const std::vector<int64_t>& users) const {
  check_ids(users, parts.ctx.n1, "user");
  const auto n2 = static_cast<size_t>(parts.ctx.n2);
  std::vector<float> out(users.size() * n2);
  for (size_t k = 0; k < users.size(); ++k)
    std::copy_n(cache.begin() + static_cast<std::ptrdiff_t>(static_cast<size_t>(users[k]) * n2), n2,
                out.begin() + static_cast<std::ptrdiff_t>(k * n2));
  return out;
}

template <typename Rows>
std::vector<float> TrainedModel::Impl::with_cold_rows(const std::vector<int64_t>& users, Rows rated_rows) {
  check_ids(users, parts.ctx.n1, "user");
  return split_rows(
      users, [this](int64_t u) { return is_cold(u); }, rated_rows,
      [this](const std::vector<int64_t>& u) { return cold_lists().rows(u); });
}

std::vector<float> TrainedModel::Impl::ranker_rows(const std::vector<int64_t>& users) {
  check_ids(users, parts.ctx.n1, "user");
  const auto of_ranker = [&](const std::vector<int64_t>& u) {
    std::vector<float> rows = raw_ranker_rows(u);
    if (ranker_graph_term())
      infer::add_user_graph_term(rows, u, parts.ctx.n2, cold_lists(), parts.cfg.train.ranker_graph_weight,
                                 parts.cfg.train.ranker_graph_shrinkage,
                                 link_direction_of(parts.cfg.train.ranker_graph_direction));
    if (ranker_quality_term()) {
      const std::vector<float>& q = item_quality();
      const auto n2 = static_cast<size_t>(parts.ctx.n2);
      for (size_t r = 0; r < u.size(); ++r)
        infer::add_item_quality_term(rows.data() + r * n2, q.data(), parts.ctx.n2,
                                     parts.cfg.train.ranker_quality_weight, ranker_graph_term());
    }
    if (ranker_network_term())
      parts.ranker->mix_network(rows, u, parts.ctx.n2, parts.cfg.train.ranker_network_weight,
                                ranker_graph_term() || ranker_quality_term());
    return rows;
  };
  if (lists_cold) return with_cold_rows(users, of_ranker);
  // train.cold_lists = model: a user without ratings (one a graph edit created, or a training
  // user with none) is no row to a ranker, which scores from rated items alone: ranked by the
  // model, through the graph.
  return split_rows(
      users, [this](int64_t u) { return seen[static_cast<size_t>(u)].empty(); }, of_ranker,
      [this](const std::vector<int64_t>& u) { return all_items(u, &models::RatingModel::score_items); });
}

std::vector<float> TrainedModel::score_all_items(const std::vector<int64_t>& users) const {
  if (!impl_->cached_scores.empty()) return impl_->rows_of(impl_->cached_scores, users);
  if (impl_->parts.ranker) return impl_->ranker_rows(users);
  if (impl_->lists_cold)
    return impl_->with_cold_rows(users, [this](const std::vector<int64_t>& u) {
      return impl_->all_items(u, &models::RatingModel::score_items);
    });
  return impl_->all_items(users, &models::RatingModel::score_items);
}

bool TrainedModel::lists_cold() const {
  return impl_->lists_cold;
}

bool TrainedModel::cold_listed(int64_t user) const {
  check_ids({user}, users(), "user");
  return impl_->is_cold(user);
}

std::vector<float> TrainedModel::ranker_scores(const std::vector<int64_t>& users) const {
  if (!impl_->parts.ranker) return {};
  check_ids(users, this->users(), "user");
  return impl_->raw_ranker_rows(users);
}

bool TrainedModel::ranker_graph_term() const {
  return impl_->ranker_graph_term();
}

bool TrainedModel::ranker_quality_term() const {
  return impl_->ranker_quality_term();
}

const std::vector<float>& TrainedModel::item_quality() const {
  return impl_->item_quality();
}

const infer::ColdLists& TrainedModel::cold_lists() const {
  return impl_->cold_lists();
}

std::string TrainedModel::ranked_by(int64_t user) const {
  if (cold_listed(user)) return impl_->cold_lists().ranked_by(user);
  if (ranker().empty()) return name();
  // The terms that join this user's list, in the order they join it.
  std::vector<std::string> terms;
  if (impl_->ranker_graph_term()) {
    const size_t linked = impl_->cold_lists()
                              .linked_raters(user, link_direction_of(config().train.ranker_graph_direction))
                              .size();
    if (linked > 0)
      terms.push_back("the " + std::to_string(linked) + (linked == 1 ? " person" : " people") +
                      " linked in the user graph who rated");
  }
  if (impl_->ranker_quality_term()) terms.push_back("the items' ratings");
  if (impl_->ranker_network_term(user)) terms.push_back("the network trained for ranking");
  std::string out = ranker();
  for (size_t k = 0; k < terms.size(); ++k) out += (k == 0 ? " and " : ", and ") + terms[k];
  return out;
}

std::vector<float> TrainedModel::rating_all_items(const std::vector<int64_t>& users) const {
  if (!impl_->cached_ratings.empty()) return impl_->rows_of(impl_->cached_ratings, users);
  return impl_->all_items(users, &models::RatingModel::rating_items);
}

bool TrainedModel::cache_all_scores(int64_t max_pairs) {
  const int64_t n1 = users(), n2 = items();
  if (n1 * n2 > max_pairs || n1 * n2 == 0) return false;
  std::vector<float> scores, ratings;
  scores.reserve(static_cast<size_t>(n1 * n2));
  ratings.reserve(static_cast<size_t>(n1 * n2));
  // In blocks of about 2^22 pairs, as recommend scores them.
  const int64_t per = std::max<int64_t>(1, (int64_t{1} << 22) / n2);
  for (int64_t u0 = 0; u0 < n1; u0 += per) {
    std::vector<int64_t> block;
    for (int64_t u = u0; u < std::min(n1, u0 + per); ++u) block.push_back(u);
    const std::vector<float> s = score_all_items(block), r = rating_all_items(block);
    scores.insert(scores.end(), s.begin(), s.end());
    ratings.insert(ratings.end(), r.begin(), r.end());
  }
  impl_->cached_scores = std::move(scores);
  impl_->cached_ratings = std::move(ratings);
  return true;
}

void TrainedModel::Impl::prepare_similarity() {
  torch::NoGradGuard no_grad;
  for (int side = 0; side < 2; ++side) {
    const at::Tensor all = infer::member_representations(parts, side);
    if (!all.defined()) continue;
    unit_rows[static_cast<size_t>(side)] = (all / all.norm(2, {1}, true).clamp_min(1e-12)).contiguous();
  }
  if (unit_rows[0].defined() && unit_rows[1].defined()) return;
  raters.assign(static_cast<size_t>(parts.ctx.n2), {});
  for (size_t u = 0; u < seen.size(); ++u)
    for (const int64_t i : seen[u]) raters[static_cast<size_t>(i)].push_back(static_cast<int64_t>(u));
}

std::vector<float> TrainedModel::Impl::co_rating_cosine(int side, int64_t index) const {
  // Items: count, for every other item, the users who rated both; users: the items both rated.
  const auto& own = side == 1 ? raters : seen;    // index -> its interactions
  const auto& other = side == 1 ? seen : raters;  // an interaction -> the nodes that share it
  const size_t n = own.size();
  std::vector<float> shared(n, 0.0f);
  for (const int64_t x : own[static_cast<size_t>(index)])
    for (const int64_t y : other[static_cast<size_t>(x)]) shared[static_cast<size_t>(y)] += 1.0f;
  const double mine = static_cast<double>(own[static_cast<size_t>(index)].size());
  for (size_t y = 0; y < n; ++y)
    if (shared[y] > 0)
      shared[y] = static_cast<float>(shared[y] / std::sqrt(mine * static_cast<double>(own[y].size())));
  return shared;
}

std::vector<SimilarNode> TrainedModel::similar(NodeSide side, int64_t index, int64_t k) const {
  const int s = side == NodeSide::users ? 0 : 1;
  const int64_t n = s == 0 ? users() : items();
  check_ids({index}, n, s == 0 ? "user" : "item");
  if (k < 1) throw ConfigError("similar: k = " + std::to_string(k) + " must be at least 1");
  std::call_once(impl_->similarity_once, [this] { impl_->prepare_similarity(); });
  std::vector<float> sim;
  const at::Tensor& rows = impl_->unit_rows[static_cast<size_t>(s)];
  const bool by_rows = rows.defined();
  if (by_rows) {
    torch::NoGradGuard no_grad;
    sim = to_vector(torch::mv(rows, rows[index]).contiguous());
  } else {
    sim = impl_->co_rating_cosine(s, index);
  }
  std::vector<int64_t> order;
  for (int64_t j = 0; j < n; ++j)
    if (j != index && (by_rows || sim[static_cast<size_t>(j)] > 0) &&
        std::isfinite(sim[static_cast<size_t>(j)]))
      order.push_back(j);
  const auto take = static_cast<std::ptrdiff_t>(std::min<size_t>(static_cast<size_t>(k), order.size()));
  std::partial_sort(order.begin(), order.begin() + take, order.end(), [&](int64_t a, int64_t b) {
    const float x = sim[static_cast<size_t>(a)], y = sim[static_cast<size_t>(b)];
    return x != y ? x > y : a < b;
  });
  std::vector<SimilarNode> out;
  for (std::ptrdiff_t r = 0; r < take; ++r)
    out.push_back({order[static_cast<size_t>(r)], sim[static_cast<size_t>(order[static_cast<size_t>(r)])]});
  return out;
}

std::string TrainedModel::similarity_basis(NodeSide side) const {
  std::call_once(impl_->similarity_once, [this] { impl_->prepare_similarity(); });
  return impl_->unit_rows[side == NodeSide::users ? 0 : 1].defined() ? "representations" : "co-ratings";
}

bool TrainedModel::scores_cached() const {
  return !impl_->cached_scores.empty();
}

bool TrainedModel::ranks_by_rating() const {
  return !impl_->parts.ranker && impl_->parts.members.front()->ranks_by_rating();
}

std::string TrainedModel::ranker() const {
  return impl_->parts.ranker ? impl_->parts.ranker->name() : "";
}

}  // namespace symgnn
