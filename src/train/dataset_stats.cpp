#include "train/dataset_stats.h"

#include <algorithm>
#include <iomanip>
#include <sstream>

#include "data/time_split.h"

namespace symgnn::train {

int64_t undirected_edges(const EdgeList& g) {
  int64_t loops = 0;
  for (size_t k = 0; k < g.size(); ++k) loops += g.src[k] == g.dst[k];
  return (static_cast<int64_t>(g.size()) - loops) / 2 + loops;
}

/// Nodes with at least one edge to another node: a social graph covering a fraction of the
/// users is normal, and the summary says how large that fraction is.
int64_t covered_nodes(const EdgeList& g, int64_t n) {
  std::vector<char> has(static_cast<size_t>(std::max<int64_t>(0, n)), 0);
  int64_t count = 0;
  for (size_t k = 0; k < g.size(); ++k)
    if (g.src[k] != g.dst[k] && g.src[k] >= 0 && g.src[k] < n && !has[static_cast<size_t>(g.src[k])])
      has[static_cast<size_t>(g.src[k])] = 1, ++count;
  return count;
}

namespace {
nlohmann::json side_stats(const NodeSet& s) {
  nlohmann::json j;
  j["count"] = s.count;
  j["graph"] = to_string(s.graph_origin);
  j["graph_edges"] = s.graph_origin == GraphOrigin::Identity ? 0 : undirected_edges(s.graph);
  j["graph_nodes_with_edges"] = s.graph_origin == GraphOrigin::Identity ? 0 : covered_nodes(s.graph, s.count);
  j["feature_dims"] = s.features.cols;
  j["features"] = s.features_origin;
  return j;
}
}  // namespace

namespace {
/// Nodes of a side without a training or validation rating: placed by features and graphs.
int64_t unrated_nodes(const Dataset& ds, bool users) {
  std::vector<char> rated(static_cast<size_t>(users ? ds.users.count : ds.items.count), 0);
  for (const RatingList* r : {&ds.train, &ds.validation})
    for (const int64_t k : users ? r->user : r->item) rated[static_cast<size_t>(k)] = 1;
  return static_cast<int64_t>(std::count(rated.begin(), rated.end(), 0));
}
}  // namespace

nlohmann::json dataset_stats(const Dataset& ds) {
  nlohmann::json j;
  j["name"] = ds.name;
  j["source"] = ds.source;
  j["users"] = ds.users.count;
  j["items"] = ds.items.count;
  j["ratings"] = ds.num_ratings();
  j["rating_levels"] = ds.rating_levels;
  j["rating_min"] = ds.rating_min;
  j["rating_max"] = ds.rating_max;
  j["train"] = ds.train.size();
  j["validation"] = ds.validation.size();
  j["test"] = ds.test.size();
  j["test_unknown"] = ds.test_unknown.size();
  j["users_without_training_ratings"] = unrated_nodes(ds, true);
  j["items_without_training_ratings"] = unrated_nodes(ds, false);
  j["density"] = ds.density();
  j["user_side"] = side_stats(ds.users);
  j["item_side"] = side_stats(ds.items);
  if (!ds.time_split.split.empty()) j["time_split"] = time_split_json(ds.time_split);
  return j;
}

nlohmann::json time_split_json(const TimeSplitReport& r) {
  nlohmann::json j;
  j["split"] = r.split;
  if (r.split == "temporal") j["cutoff"] = r.cutoff;
  if (r.split == "leave_last_out") {
    j["last_n"] = r.last_n;
    j["users_kept"] = r.users_kept;
  }
  const auto share = [](int64_t part, int64_t whole) {
    return whole > 0 ? static_cast<double>(part) / static_cast<double>(whole) : 0.0;
  };
  j["training_ratings"] = r.training_ratings;
  j["test_ratings"] = r.test_ratings;
  j["cold_item_test_ratings"] = r.cold_item_ratings;
  j["cold_item_test_share"] = share(r.cold_item_ratings, r.test_ratings);
  j["cold_items"] = r.cold_items;
  j["cold_user_test_ratings"] = r.cold_user_ratings;
  j["cold_user_test_share"] = share(r.cold_user_ratings, r.test_ratings);
  j["later_training_ratings"] = r.later_training;
  j["later_training_share"] = share(r.later_training, r.training_ratings);
  return j;
}

std::string dataset_stats_text(const Dataset& ds) {
  std::ostringstream os;
  auto levels = [&] {
    std::ostringstream l;
    if (ds.rating_levels.size() <= 12) {
      for (size_t k = 0; k < ds.rating_levels.size(); ++k) l << (k ? " " : "") << ds.rating_levels[k];
    } else {
      l << ds.rating_levels.front() << " .. " << ds.rating_levels.back();
    }
    l << " (" << ds.rating_levels.size() << " levels)";
    return l.str();
  };
  auto side = [&](const char* label, const NodeSet& s) {
    os << std::left << std::setw(14) << label << s.count << " nodes";
    if (const int64_t n = unrated_nodes(ds, &s == &ds.users); n > 0)
      os << " (" << n << " without training ratings)";
    os << "; graph: " << to_string(s.graph_origin);
    if (s.graph_origin != GraphOrigin::Identity)
      os << ", " << undirected_edges(s.graph) << " edges, " << covered_nodes(s.graph, s.count) << " of the "
         << s.count << " nodes with one" << (s.graph_note.empty() ? "" : " (" + s.graph_note + ")")
         << (s.links_only ? " (for the lists and the people; the models read the identity)" : "");
    os << "; features: ";
    if (s.features.empty())
      os << "none (one-hot ids)";
    else
      os << s.features.cols << " dims (" << s.features_origin << ")";
    os << "\n";
  };
  os << std::left << std::setw(14) << "dataset" << ds.name << "  [" << ds.source << "]\n";
  os << std::setw(14) << "ratings" << ds.num_ratings() << " (train " << ds.train.size() << ", validation "
     << ds.validation.size() << ", test " << ds.test.size();
  if (!ds.test_unknown.empty())
    os << ", and " << ds.test_unknown.size() << " test naming an id that is no node, scored apart";
  os << ")\n";
  os << std::setw(14) << "levels" << levels() << "\n";
  os << std::setw(14) << "density" << std::setprecision(4) << 100.0 * ds.density() << " %\n";
  side("users", ds.users);
  side("items", ds.items);
  if (const std::string split = data::describe(ds.time_split); !split.empty())
    os << std::setw(14) << "split" << split.substr(6) << "\n";  // "split temporal ..." -> "temporal ..."
  return os.str();
}

}  // namespace symgnn::train
