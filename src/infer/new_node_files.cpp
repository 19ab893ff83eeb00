// read_new_node_files (infer/new_node_files.h): a change's files read into Deltas by the
// readers of their formats (data/parsers.h) at the edges that name them.
#include "infer/new_node_files.h"

#include <algorithm>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "data/parsers.h"
#include "data/text_reader.h"
#include "infer/new_ratings.h"
#include "symgnn/error.h"

namespace symgnn::infer {

namespace {

/// The ratings file as rows: parsed and indexed as the training data were (the file's own
/// rules: fields, values, repeats), ids given back as text with each row's first line.
Delta rating_rows(const std::string& file, const Dataset& ds, data::IdIndex& users, data::IdIndex& items) {
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
  Delta d;
  d.ratings_name = file;
  for (size_t e = 0; e < added.size(); ++e) {
    // A rating as written (its message shows 3.7, not the float the list holds); a model of
    // interactions' merged value.
    const double value = ds.implicit() ? added.value[e] : first[e]->value;
    Delta::Rating r{std::string(first[e]->user), std::string(first[e]->item), value};
    r.line = first[e]->line;
    d.ratings.push_back(std::move(r));
  }
  return d;
}

/// A graph file of `side` as edge rows: read over `ids` (trained and new), then given back as
/// rows that the edge-list rules turn into the same graph and direction: the file's one-way
/// links where it has some, else every entry of the symmetric graph.
/// Where `linked_alone` is given, an id neither trained nor new in the ratings that a row names
/// first (a,b: a follows b) is a new node known by its links alone: the rows naming such nodes go
/// there, each an edge that creates its unknown ends (a graph edit's `create`), instead of being
/// refused. An unknown id that no row names first stays an error naming its line (a mistyped
/// neighbour is not made a node).
Delta edge_rows(const std::string& file, NodeSide which, const NodeSet& side, const data::IdIndex& ids,
                const char* noun, std::vector<Delta::Edge>* linked_alone = nullptr) {
  check_file_graph(side, file, noun);
  const std::string text = data::read_text_file(file);
  EdgeList directed, g;
  data::IdIndex grown;
  if (linked_alone != nullptr) {
    grown = ids;
    data::LineReader in(std::string_view(text), file, true);
    try {
      g = data::read_edge_list_adding(in, grown, noun, nullptr, &directed);
    } catch (const DataError&) {
      // Reported as a file of known ids reports it (the adding reader's words are the training
      // files'): read again over the ids seen up to the row at fault.
      data::parse_edge_list_text(text, file, grown, noun);
      throw;
    }
  } else {
    g = data::parse_edge_list_text(text, file, ids, noun, &directed);
  }
  const EdgeList& rows = directed.size() > 0 ? directed : g;
  if (linked_alone != nullptr && grown.size() > ids.size()) {
    std::vector<bool> named_first(static_cast<size_t>(grown.size() - ids.size()), false);
    for (size_t e = 0; e < rows.size(); ++e)
      if (rows.src[e] >= ids.size()) named_first[static_cast<size_t>(rows.src[e] - ids.size())] = true;
    if (std::find(named_first.begin(), named_first.end(), false) != named_first.end()) {
      // Read again over the ids a row names first, which refuses the others naming their line.
      data::IdIndex allowed = ids;
      for (size_t k = 0; k < named_first.size(); ++k)
        if (named_first[k]) allowed.add(grown.ids()[static_cast<size_t>(ids.size()) + k]);
      data::parse_edge_list_text(text, file, allowed, noun);
    }
  }
  const data::IdIndex& names = linked_alone != nullptr ? grown : ids;
  Delta d;
  d.edges_name = file;
  for (size_t e = 0; e < rows.size(); ++e) {
    Delta::Edge edge(which, EdgeOp::add, names.ids()[static_cast<size_t>(rows.src[e])],
                     names.ids()[static_cast<size_t>(rows.dst[e])], rows.weight[e]);
    if (rows.src[e] >= ids.size() || rows.dst[e] >= ids.size()) {
      edge.create = true;
      linked_alone->push_back(std::move(edge));
    } else {
      d.edges.push_back(std::move(edge));
    }
  }
  return d;
}

/// A features file of `side` as rows, one per new node (`ids` from `first` on).
Delta feature_rows(const std::string& file, NodeSide which, const NodeSet& side, const data::IdIndex& ids,
                   int64_t first, const char* noun) {
  check_features_given(side, ids.size() - first, file, noun);
  data::IdIndex fresh;
  for (int64_t k = first; k < ids.size(); ++k) fresh.add(ids.ids()[static_cast<size_t>(k)]);
  const std::string text = data::read_text_file(file);
  data::LineReader in(std::string_view(text), file, true);
  const FeatureMatrix m = data::read_features(in, fresh, noun);
  Delta d;
  d.features_name = file;
  for (int64_t r = 0; r < m.rows; ++r)
    d.features.emplace_back(
        which, fresh.ids()[static_cast<size_t>(r)],
        std::vector<double>(m.values.begin() + r * m.cols, m.values.begin() + (r + 1) * m.cols));
  return d;
}

}  // namespace

NewNodes read_new_node_files(const NewNodeFiles& files, const Dataset& ds,
                             std::vector<Delta::Edge>* users_linked_alone) {
  NewNodes out;
  data::IdIndex users = data::id_index(ds.users), items = data::id_index(ds.items);
  if (!files.ratings.empty()) out.files.push_back(rating_rows(files.ratings, ds, users, items));
  // Features before graphs, as the growth takes them (a k-NN graph of features compares the
  // new rows), so that the same problem is reported first.
  if (!files.user_features_file.empty())
    out.files.push_back(
        feature_rows(files.user_features_file, NodeSide::users, ds.users, users, ds.users.count, "user"));
  if (!files.item_features_file.empty())
    out.files.push_back(
        feature_rows(files.item_features_file, NodeSide::items, ds.items, items, ds.items.count, "item"));
  if (!files.user_graph_file.empty())
    out.files.push_back(
        edge_rows(files.user_graph_file, NodeSide::users, ds.users, users, "user", users_linked_alone));
  if (!files.item_graph_file.empty())
    out.files.push_back(edge_rows(files.item_graph_file, NodeSide::items, ds.items, items, "item"));
  return out;
}

}  // namespace symgnn::infer
