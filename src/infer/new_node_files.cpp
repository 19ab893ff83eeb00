// read_new_node_files (infer/new_node_files.h): a change's files read into Deltas by the
// readers of their formats (data/parsers.h) at the edges that name them.
#include "infer/new_node_files.h"

#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "data/parsers.h"
#include "data/text_reader.h"
#include "infer/new_ratings.h"

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
Delta edge_rows(const std::string& file, NodeSide which, const NodeSet& side, const data::IdIndex& ids,
                const char* noun) {
  check_file_graph(side, file, noun);
  EdgeList directed;
  const EdgeList g = data::parse_edge_list_text(data::read_text_file(file), file, ids, noun, &directed);
  const EdgeList& rows = directed.size() > 0 ? directed : g;
  Delta d;
  d.edges_name = file;
  for (size_t e = 0; e < rows.size(); ++e)
    d.edges.emplace_back(which, EdgeOp::add, ids.ids()[static_cast<size_t>(rows.src[e])],
                         ids.ids()[static_cast<size_t>(rows.dst[e])], rows.weight[e]);
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

NewNodes read_new_node_files(const NewNodeFiles& files, const Dataset& ds) {
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
    out.files.push_back(edge_rows(files.user_graph_file, NodeSide::users, ds.users, users, "user"));
  if (!files.item_graph_file.empty())
    out.files.push_back(edge_rows(files.item_graph_file, NodeSide::items, ds.items, items, "item"));
  return out;
}

}  // namespace symgnn::infer
