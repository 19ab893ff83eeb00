#include "infer/new_ratings.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <tuple>
#include <unordered_set>

#include "data/id_rule.h"
#include "data/parsers.h"
#include "data/text_reader.h"
#include "infer/edge_rows.h"
#include "symgnn/error.h"
#include "symgnn/graph.h"

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

void add_ratings(Dataset& ds, const std::string& file, data::IdIndex& users, data::IdIndex& items,
                 NewRatingsSummary& s) {
  const std::string text = data::read_text_file(file);
  // A model of interactions (data/feedback.h) reads the file as its training data was read:
  // `user,item` rows (implicit) or counts, a pair's repeated rows one interaction.
  const std::vector<data::RawRating> raw = data::parse_ratings_text(text, file, ds.feedback);
  data::PairRegistry within_file;  // duplicates inside the file, with both lines
  const RatingList added =
      data::index_ratings(raw, file, users, items, /*add_new=*/true, within_file, ds.feedback);
  // The row each added pair came from: its first (repeats merged in that order).
  std::vector<const data::RawRating*> first;
  std::unordered_set<std::string> seen_pairs;
  for (const data::RawRating& r : raw)
    if (!ds.implicit() || seen_pairs.insert(std::string(r.user) + '\0' + std::string(r.item)).second)
      first.push_back(&r);
  const std::unordered_set<uint64_t> known = known_pairs(ds);
  for (size_t e = 0; e < added.size(); ++e) {
    const data::RawRating& row = *first[e];
    if (known.count(pair_key(added.user[e], added.item[e])))
      throw DataError(file, row.line,
                      "the pair (" + data::quote(row.user) + ", " + data::quote(row.item) +
                          ") is already in the model's data");
    const double value = interaction_value(ds, added.value[e]);
    const std::string problem = rating_problem(ds, value);
    if (!problem.empty()) throw DataError(file, row.line, problem);
    ds.train.add(added.user[e], added.item[e], static_cast<float>(value));
  }
  s.file = file;
  s.ratings += static_cast<int64_t>(added.size());
}

/// `rows` as add_ratings takes a file's lines, from memory: each row checked (ids, the pair
/// new to the data and to the rows before it, the value) before any joins, so that a bad
/// row leaves the data as it was; errors name `name`[k].
void add_rating_rows(Dataset& ds, const std::vector<NewRating>& rows, const std::string& name,
                     data::IdIndex& users, data::IdIndex& items, NewRatingsSummary& s) {
  const std::unordered_set<uint64_t> known = known_pairs(ds);
  std::unordered_set<uint64_t> given;  // the rows' pairs so far
  RatingList added;
  for (size_t k = 0; k < rows.size(); ++k) {
    const NewRating& r = rows[k];
    const std::string where = name + "[" + std::to_string(k) + "]";
    if (r.user.empty()) throw DataError(where, 0, "empty user id");
    if (r.item.empty()) throw DataError(where, 0, "empty item id");
    // The one id rule (data/id_rule.h) for the ids that join the model here.
    for (const auto& [what, id, index] :
         {std::tuple{"user", &r.user, &users}, std::tuple{"item", &r.item, &items}})
      if (index->find(*id) < 0)
        if (const std::string bad = data::id_problem(*id); !bad.empty())
          throw DataError(where, 0, data::id_refusal(what, *id, bad));
    if (ds.feedback == "counts" && !(r.rating > 0))
      throw DataError(where, 0,
                      "count " + data::number_text(r.rating) + " is not positive (a model of counts)");
    const std::string problem = rating_problem(ds, interaction_value(ds, r.rating));
    if (!problem.empty()) throw DataError(where, 0, problem);
    const int64_t u = users.add(r.user), i = items.add(r.item);
    const std::string pair = "the pair (" + data::quote(r.user) + ", " + data::quote(r.item) + ")";
    if (known.count(pair_key(u, i))) throw DataError(where, 0, pair + " is already in the model's data");
    if (!given.insert(pair_key(u, i)).second) throw DataError(where, 0, pair + " is given twice");
    added.add(u, i, static_cast<float>(interaction_value(ds, r.rating)));
  }
  for (size_t e = 0; e < added.size(); ++e) ds.train.add(added.user[e], added.item[e], added.value[e]);
  if (s.file.empty()) s.file = name;
  s.ratings += static_cast<int64_t>(added.size());
}

/// The text of rows given in memory, as the lines of a file of their kind (tab-separated, so
/// that an id may hold a comma; numbers to the last digit), for that kind's one reader. An
/// id a line cannot hold (a tab, a line break) is an error naming its row.
std::string row_field(const std::string& id, const std::string& name, size_t row) {
  // The one id rule (data/id_rule.h).
  if (const std::string bad = data::id_problem(id); !bad.empty())
    throw DataError(name + "[" + std::to_string(row) + "]: " + data::id_refusal("node", id, bad));
  return id;
}

std::string edges_text(const std::vector<NewEdge>& rows, const std::string& name) {
  std::string text;
  for (size_t k = 0; k < rows.size(); ++k)
    text += row_field(rows[k].a, name, k) + "\t" + row_field(rows[k].b, name, k) + "\t" +
            data::number_text(rows[k].weight) + "\n";
  return text;
}

std::string features_text(const std::vector<NewFeatureRow>& rows, const std::string& name) {
  std::string text;
  for (size_t k = 0; k < rows.size(); ++k) {
    text += row_field(rows[k].id, name, k);
    for (const double v : rows[k].values) text += "\t" + data::number_text(v);
    text += "\n";
  }
  return text;
}

/// Copies the rows of features text `text` (a file's contents, or rows in memory; `file` names
/// it: "id,f1,...", one per new node of the side: nodes first..) into the side's (already
/// grown) feature matrix. Returns the rows read.
int64_t add_features(NodeSet& side, int64_t first, const std::string& text, const std::string& file,
                     const char* noun) {
  if (side.features.empty())
    throw ConfigError(file + ": the model's " + noun + "s have no side features; drop them");
  if (first == side.count)
    throw ConfigError(file + ": features of new " + noun + "s, but the new ratings bring none");
  data::IdIndex fresh;  // the new ids only: a row for a trained node is an "unknown id"
  for (int64_t k = first; k < side.count; ++k) fresh.add(side.ids[static_cast<size_t>(k)]);
  const FeatureMatrix m = data::parse_features_text(text, file, fresh, noun);
  if (m.cols != side.features.cols)
    throw DataError(file + ": " + std::to_string(m.cols) + " feature column(s); the model's " + noun +
                    " features have " + std::to_string(side.features.cols));
  std::copy(m.values.begin(), m.values.end(), side.features.values.begin() + first * side.features.cols);
  return m.rows;
}

/// Adds the entries of the edges file (ids looked up in `ids`, the grown side's) whose row is a new node (the
/// file's graph is symmetric, so an edge (new, trained) gives the new node's row only). Returns them. An
/// edge between two trained nodes is a graph edit (symgnn/graph_edit.h): set in both directions, counted in
/// `between`.
int64_t add_edges(NodeSet& side, const data::IdIndex& ids, int64_t first, const std::string& text,
                  const std::string& file, const char* noun, int64_t& between) {
  if (side.graph_origin != GraphOrigin::File)
    throw ConfigError(file + ": the model's " + noun + " graph is " +
                      (side.graph_origin == GraphOrigin::Knn
                           ? std::string("a k-NN graph, which links new ") + noun + "s by itself"
                           : std::string("the identity (no graph)")) +
                      "; drop them");
  EdgeList given;
  const EdgeList g = data::parse_edge_list_text(text, file, ids, noun, &given);
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
  const int64_t first_user = ds.users.count, first_item = ds.items.count;
  data::IdIndex users = data::id_index(ds.users), items = data::id_index(ds.items);
  if (!nodes.ratings.empty()) add_ratings(ds, nodes.ratings, users, items, s);
  if (!nodes.rating_rows.empty()) add_rating_rows(ds, nodes.rating_rows, nodes.rows_name, users, items, s);
  s.new_users = grow_side(ds.users, users);
  s.new_items = grow_side(ds.items, items);
  // Each side's features and edges: the file's, then the rows given in memory (their text
  // through the same reader, named as rows).
  const auto features = [&](NodeSet& side, int64_t first, const std::string& file,
                            const std::vector<NewFeatureRow>& rows, const char* noun) {
    int64_t read = 0;
    if (!file.empty()) read += add_features(side, first, data::read_text_file(file), file, noun);
    const std::string& name = nodes.feature_rows_name;
    if (!rows.empty()) read += add_features(side, first, features_text(rows, name), name, noun);
    return read;
  };
  s.user_features = features(ds.users, first_user, nodes.user_features_file, nodes.user_feature_rows, "user");
  s.item_features = features(ds.items, first_item, nodes.item_features_file, nodes.item_feature_rows, "item");
  // Graph rows after the features: a k-NN graph of features compares the new rows.
  const auto edges = [&](NodeSet& side, const data::IdIndex& ids, int64_t first, const std::string& file,
                         const std::vector<NewEdge>& rows, const char* noun, bool users_side,
                         std::string& how, int64_t& between) {
    if (file.empty() && rows.empty()) return graph::link_new_nodes(ds, users_side, first, graph, &how);
    int64_t added = 0;
    if (!file.empty()) added += add_edges(side, ids, first, data::read_text_file(file), file, noun, between);
    const std::string& name = nodes.edge_rows_name;
    if (!rows.empty()) added += add_edges(side, ids, first, edges_text(rows, name), name, noun, between);
    how = file.empty() ? "edges given" : "file";
    return added;
  };
  s.user_edges = edges(ds.users, users, first_user, nodes.user_graph_file, nodes.user_edge_rows, "user", true,
                       s.user_graph_how, s.user_edits);
  s.item_edges = edges(ds.items, items, first_item, nodes.item_graph_file, nodes.item_edge_rows, "item",
                       false, s.item_graph_how, s.item_edits);
  return s;
}

}  // namespace symgnn::infer
