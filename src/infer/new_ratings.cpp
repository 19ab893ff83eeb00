#include "infer/new_ratings.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <sstream>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include "data/id_rule.h"
#include "data/parsers.h"
#include "data/text_reader.h"
#include "infer/edge_rows.h"
#include "symgnn/error.h"
#include "symgnn/graph.h"
#include "symgnn/model_kinds.h"

namespace symgnn::infer {

namespace {

uint64_t pair_key(int64_t u, int64_t i) {
  return (static_cast<uint64_t>(u) << 32) | static_cast<uint64_t>(i);
}

/// The pairs the model learned from (training and validation ratings), which new ratings
/// may not give again. A test pair may: a known user rating an item of their test ratings is
/// a fresh rating to fold in (refresh), which then leaves their candidates.
std::unordered_set<uint64_t> known_pairs(const Dataset& ds) {
  std::unordered_set<uint64_t> known;
  for (const RatingList* r : {&ds.train, &ds.validation})
    for (size_t e = 0; e < r->size(); ++e) known.insert(pair_key(r->user[e], r->item[e]));
  return known;
}

/// A scale of at most this many distinct values (1-5 stars, half stars, 1-10) takes new
/// ratings on its levels only; more distinct values are a continuous target (log play counts,
/// prices), where a new value need only lie in the range: the model's priors bin values by
/// quantile, and a value the training ratings happen not to hold is as good as one they do.
constexpr size_t kScaleLevels = 20;

/// A new row's value as the model's data hold it: the rating itself, or for interactions
/// (data/feedback.h) 1 (implicit) or log(1 + count) (counts).
double interaction_value(const Dataset& ds, double given) {
  if (ds.feedback == "implicit") return 1.0;
  if (ds.feedback == "counts") return std::log1p(given);
  return given;
}

/// Why rating `v` cannot join the model's data ("" where it can): a value outside its range,
/// or off the levels of a rating scale. Interactions take any positive count.
std::string rating_problem(const Dataset& ds, double v) {
  if (ds.implicit()) return std::isfinite(v) && v > 0 ? "" : "count is not positive";
  if (!std::isfinite(v)) return "rating is not a finite number";
  const auto f = static_cast<float>(v);
  if (f < ds.rating_min || f > ds.rating_max)
    return "rating " + data::number_text(v) + " is outside the model's rating range [" +
           data::number_text(ds.rating_min) + ", " + data::number_text(ds.rating_max) + "]";
  const std::vector<float>& levels = ds.rating_levels;
  if (!levels.empty() && levels.size() <= kScaleLevels &&
      std::find(levels.begin(), levels.end(), f) == levels.end()) {
    std::string listed;
    for (const float l : levels) listed += (listed.empty() ? "" : " ") + data::number_text(l);
    return "rating " + data::number_text(v) + " is not one of the model's rating levels (" + listed + ")";
  }
  return "";
}

/// Rating rows (a file's, read at the edge, or given in memory) checked by check_rating_rows
/// against the data's own ids and pairs, then joined; a bad row leaves the data as it was.
void add_rating_rows(Dataset& ds, const std::vector<Delta::Rating>& rows, const std::string& name,
                     data::IdIndex& users, data::IdIndex& items, NewRatingsSummary& s) {
  const std::unordered_set<uint64_t> known = known_pairs(ds);
  KnownNodes nodes;
  nodes.users = users.size();
  nodes.items = items.size();
  nodes.user = [&users](const std::string& id) { return users.find(id); };
  nodes.item = [&items](const std::string& id) { return items.find(id); };
  nodes.learned = [&known](int64_t u, int64_t i) { return known.count(pair_key(u, i)) > 0; };
  const RatingList added = check_rating_rows(ds, rows, name, nodes);
  for (const Delta::Rating& r : rows) users.add(r.user), items.add(r.item);  // new ids in check's order
  for (size_t e = 0; e < added.size(); ++e) ds.train.add(added.user[e], added.item[e], added.value[e]);
  if (s.file.empty()) s.file = name;
  s.ratings += static_cast<int64_t>(added.size());
}

/// The one id rule (data/id_rule.h) for the ids of edge or feature rows given in memory,
/// every row before any joins: an id a file's line could not hold (a tab, a line break) is an
/// error naming its row as `name`[k].
template <typename Rows, typename Ids>
void check_row_ids(const Rows& rows, const std::string& name, Ids ids_of) {
  for (size_t k = 0; k < rows.size(); ++k)
    for (const std::string* id : ids_of(rows[k]))
      if (const std::string bad = data::id_problem(*id); !bad.empty())
        throw DataError(name + "[" + std::to_string(k) + "]: " + data::id_refusal("node", *id, bad));
}

/// Copies the feature rows `read` gives (over the side's new ids alone: a row for a trained
/// node is an "unknown id"; `file` names them: "id,f1,...", one per new node of the side, nodes
/// first..) into the side's (already grown) feature matrix. Returns the rows read.
template <typename Read>
int64_t add_features(NodeSet& side, int64_t first, const std::string& file, const char* noun, Read read) {
  check_features_given(side, side.count - first, file, noun);
  data::IdIndex fresh;
  for (int64_t k = first; k < side.count; ++k) fresh.add(side.ids[static_cast<size_t>(k)]);
  const FeatureMatrix m = read(fresh);
  if (m.cols != side.features.cols)
    throw DataError(file + ": " + std::to_string(m.cols) + " feature column(s); the model's " + noun +
                    " features have " + std::to_string(side.features.cols));
  std::copy(m.values.begin(), m.values.end(), side.features.values.begin() + first * side.features.cols);
  return m.rows;
}

/// Adds the entries of edge list `g` (read over the grown side's ids, `given` its rows' own
/// direction) whose row is a new node (the graph is symmetric, so an edge (new, trained) gives
/// the new node's row only). Returns them. An edge between two trained nodes is a graph edit
/// (symgnn/graph_edit.h): set in both directions, counted in `between`.
int64_t add_edges(NodeSet& side, int64_t first, const EdgeList& g, const EdgeList& given, int64_t& between) {
  int64_t added = 0;
  for (size_t e = 0; e < g.size(); ++e) {
    if (g.src[e] < first && g.dst[e] < first) {
      // The reader made the file's graph symmetric: the edge's other direction comes too, and
      // sets the same weight.
      infer::set_pair(side.graph.src, side.graph.dst, side.graph.weight, g.src[e], g.dst[e], g.weight[e]);
      ++between;
      continue;
    }
    if (g.src[e] < first) continue;
    side.graph.add(g.src[e], g.dst[e], g.weight[e]);
    ++added;
  }
  // A directed graph keeps each row's direction (a new user's rows: the people they follow);
  // rows given both ways, or a file that gives every pair both ways, link both ways.
  EdgeList& links = side.directed;
  if (links.size() > 0) {
    if (given.size() > 0) {
      for (size_t e = 0; e < given.size(); ++e)
        infer::set_link(links.src, links.dst, links.weight, given.src[e], given.dst[e], given.weight[e]);
    } else {
      for (size_t e = 0; e < g.size(); ++e)
        infer::set_link(links.src, links.dst, links.weight, g.src[e], g.dst[e], g.weight[e]);
    }
  }
  return added;
}

}  // namespace

void check_file_graph(const NodeSet& side, const std::string& name, const char* noun) {
  if (side.graph_origin != GraphOrigin::File)
    throw ConfigError(name + ": the model's " + noun + " graph is " +
                      (side.graph_origin == GraphOrigin::Knn
                           ? std::string("a k-NN graph, which links new ") + noun + "s by itself"
                           : std::string("the identity (no graph)")) +
                      "; drop them");
}

void check_features_given(const NodeSet& side, int64_t new_nodes, const std::string& name, const char* noun) {
  if (side.features.empty())
    throw ConfigError(name + ": the model's " + noun + "s have no side features; drop them");
  if (new_nodes == 0)
    throw ConfigError(name + ": features of new " + noun + "s, but the new ratings bring none");
}

void check_takes_new_nodes(const RunConfig& cfg, bool any) {
  if (!any || model_kind(cfg.model).new_nodes) return;
  std::string kinds;  // those that place new nodes (symgnn/model_kinds.h)
  for (const ModelKind& k : kModelKinds)
    if (k.new_nodes) kinds += (kinds.empty() ? "" : ", ") + std::string(k.name);
  throw ConfigError("new ratings: model = " + cfg.model +
                    " is fitted to the training data and cannot place users or items it was not fitted on; "
                    "fit a kind that scores them from their ratings (" +
                    kinds + ")");
}

void check_node_rows(const Delta& rows) {
  for (size_t k = 0; k < rows.edges.size(); ++k) {
    const Delta::Edge& e = rows.edges[k];
    if (e.op != EdgeOp::add || e.create || !e.features.empty())
      throw ConfigError(rows.edges_name + "[" + std::to_string(k) +
                        "]: new nodes come with added edges; removing an edge or creating a node is a graph "
                        "edit (apply_graph_edits, symgnn/graph_edit.h)");
  }
  check_row_ids(rows.edges, rows.edges_name, [](const Delta::Edge& e) {
    return std::vector<const std::string*>{&e.a, &e.b};
  });
  check_row_ids(rows.features, rows.features_name,
                [](const Delta::Features& f) { return std::vector<const std::string*>{&f.id}; });
}

RatingList check_rating_rows(const Dataset& ds, const std::vector<Delta::Rating>& rows,
                             const std::string& name, const KnownNodes& nodes) {
  // Ids absent from the model, numbered after its nodes in order of first appearance, as
  // IdIndex::add numbers them when the rows join.
  std::unordered_map<std::string, int64_t> new_users, new_items;
  const auto index = [](const std::function<int64_t(const std::string&)>& find,
                        std::unordered_map<std::string, int64_t>& fresh, int64_t count,
                        const std::string& id) {
    const int64_t i = find(id);
    if (i >= 0) return i;
    return fresh.emplace(id, count + static_cast<int64_t>(fresh.size())).first->second;
  };
  std::unordered_set<uint64_t> given;  // the rows' pairs so far
  RatingList added;
  for (size_t k = 0; k < rows.size(); ++k) {
    const Delta::Rating& r = rows[k];
    // A file's row by its line, a row in memory as name[k].
    const auto error = [&](const std::string& message) {
      return r.line > 0 ? DataError(name, r.line, message)
                        : DataError(name + "[" + std::to_string(k) + "]", 0, message);
    };
    if (r.user.empty()) throw error("empty user id");
    if (r.item.empty()) throw error("empty item id");
    // The one id rule (data/id_rule.h) for the ids that join the model here.
    for (const auto& [what, id, find, fresh] : {std::tuple{"user", &r.user, &nodes.user, &new_users},
                                                std::tuple{"item", &r.item, &nodes.item, &new_items}})
      if ((*find)(*id) < 0 && !fresh->count(*id))
        if (const std::string bad = data::id_problem(*id); !bad.empty())
          throw error(data::id_refusal(what, *id, bad));
    if (ds.feedback == "counts" && !(r.value > 0))
      throw error("count " + data::number_text(r.value) + " is not positive (a model of counts)");
    const std::string problem = rating_problem(ds, interaction_value(ds, r.value));
    if (!problem.empty()) throw error(problem);
    const int64_t u = index(nodes.user, new_users, nodes.users, r.user);
    const int64_t i = index(nodes.item, new_items, nodes.items, r.item);
    const std::string pair = "the pair (" + data::quote(r.user) + ", " + data::quote(r.item) + ")";
    if (u < nodes.users && i < nodes.items && nodes.learned(u, i))
      throw error(pair + " is already in the model's data");
    if (!given.insert(pair_key(u, i)).second) throw error(pair + " is given twice");
    added.add(u, i, static_cast<float>(interaction_value(ds, r.value)));
  }
  return added;
}

int64_t grow_side(NodeSet& side, const data::IdIndex& index) {
  const int64_t added = index.size() - side.count;
  if (added <= 0) return 0;
  side.ids = index.ids();
  side.count = index.size();
  side.graph.num_nodes = side.count;
  if (side.directed.size() > 0) side.directed.num_nodes = side.count;
  if (!side.features.empty()) {
    side.features.rows = side.count;
    side.features.values.resize(static_cast<size_t>(side.count * side.features.cols), 0.0f);
  }
  return added;
}

NewRatingsSummary add_new_nodes(Dataset& ds, const NewNodes& nodes, const GraphConfig& graph) {
  NewRatingsSummary s;
  // The files' rows (read at the edge, named by their paths), then the rows given in memory:
  // each part by the same rules (data/parsers.h), named as its rows are.
  const std::vector<const Delta*> parts = nodes.parts();
  for (const Delta* part : parts) check_node_rows(*part);
  const int64_t first_user = ds.users.count, first_item = ds.items.count;
  data::IdIndex users = data::id_index(ds.users), items = data::id_index(ds.items);
  for (const Delta* part : parts)
    if (!part->ratings.empty()) add_rating_rows(ds, part->ratings, part->ratings_name, users, items, s);
  s.new_users = grow_side(ds.users, users);
  s.new_items = grow_side(ds.items, items);
  const auto features = [&](NodeSet& side, int64_t first, NodeSide which, const char* noun) {
    int64_t read = 0;
    for (const Delta* part : parts) {
      const std::vector<Delta::Features> given = part->features_of(which);
      const std::string& name = part->features_name;
      if (given.empty()) continue;
      read += add_features(side, first, name, noun, [&](data::IdIndex& fresh) {
        return data::feature_matrix_of_rows(given, name, fresh, noun, /*add_new=*/false);
      });
    }
    return read;
  };
  s.user_features = features(ds.users, first_user, NodeSide::users, "user");
  s.item_features = features(ds.items, first_item, NodeSide::items, "item");
  // Graph rows after the features: a k-NN graph of features compares the new rows.
  const auto edges = [&](NodeSet& side, data::IdIndex& ids, int64_t first, NodeSide which, const char* noun,
                         std::string& how, int64_t& between) {
    int64_t added = 0;
    for (const Delta* part : parts) {
      const std::vector<Delta::Edge> given = part->edges_of(which);
      if (given.empty()) continue;
      const std::string& name = part->edges_name;
      check_file_graph(side, name, noun);
      EdgeList directed;
      const EdgeList g =
          data::edge_list_of_rows(given, name, ids, noun, /*add_new=*/false, nullptr, &directed);
      added += add_edges(side, first, g, directed, between);
      if (how.empty()) how = part == &nodes.rows ? "edges given" : "file";
    }
    if (how.empty()) return graph::link_new_nodes(ds, which == NodeSide::users, first, graph, &how);
    return added;
  };
  s.user_edges = edges(ds.users, users, first_user, NodeSide::users, "user", s.user_graph_how, s.user_edits);
  s.item_edges = edges(ds.items, items, first_item, NodeSide::items, "item", s.item_graph_how, s.item_edits);
  return s;
}

}  // namespace symgnn::infer
