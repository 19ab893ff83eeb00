/// @file
/// Chooses each side's graph A before normalisation: the file's graph, a symmetric k-NN
/// graph (from side features F, n x f, or from training rating vectors), or A = I.
///
/// Shapes: the training ratings form H (n1 x n2, zero where unobserved; train split only,
/// so validation and test ratings never shape the graph); user vectors are the rows of H
/// (n1 x n2), item vectors its columns (n2 x n1). H is kept sparse (CSR of the side's rows,
/// O(nnz) memory) and the k-NN graph is computed over its nonzeros (knn.cpp).
#include <ATen/ATen.h>

#include <algorithm>
#include <string>

#include "graph/knn_approximate.h"
#include "symgnn/error.h"
#include "symgnn/graph.h"

namespace symgnn::graph {

namespace {

enum class Side { User, Item };
using Notes = std::vector<std::string>;  // what the resolution substituted, a line each

/// The training rating matrix H (n1 x n2) as seen from `side`, sparse: users get the rows
/// of H, items those of H^T, columns ascending within each row. `binary`: every entry 1.
SparseRows rating_vectors(const Dataset& ds, Side side, bool binary) {
  const bool users = side == Side::User;
  const int64_t n = users ? ds.users.count : ds.items.count;
  SparseRows h;
  h.cols = users ? ds.items.count : ds.users.count;
  h.row_ptr.assign(static_cast<size_t>(n) + 1, 0);
  for (size_t e = 0; e < ds.train.size(); ++e) {
    const int64_t u = ds.train.user[e], i = ds.train.item[e];
    if (u < 0 || u >= ds.users.count || i < 0 || i >= ds.items.count)
      throw DataError(ds.name + ": training rating " + std::to_string(e) + " (" + std::to_string(u) + ", " +
                      std::to_string(i) + ") outside the " + std::to_string(ds.users.count) + " x " +
                      std::to_string(ds.items.count) + " rating matrix");
    ++h.row_ptr[static_cast<size_t>(users ? u : i) + 1];
  }
  for (size_t r = 0; r < static_cast<size_t>(n); ++r) h.row_ptr[r + 1] += h.row_ptr[r];
  h.col.resize(ds.train.size());
  h.value.resize(ds.train.size());
  std::vector<int64_t> fill(h.row_ptr.begin(), h.row_ptr.end() - 1);
  for (size_t e = 0; e < ds.train.size(); ++e) {
    const int64_t row = users ? ds.train.user[e] : ds.train.item[e];
    const auto at = static_cast<size_t>(fill[static_cast<size_t>(row)]++);
    h.col[at] = users ? ds.train.item[e] : ds.train.user[e];
    h.value[at] = binary ? 1.0f : ds.train.value[e];
  }
  std::vector<std::pair<int64_t, float>> row;
  for (int64_t r = 0; r < n; ++r) {
    const auto b = static_cast<size_t>(h.row_ptr[r]), e = static_cast<size_t>(h.row_ptr[r + 1]);
    row.clear();
    for (size_t k = b; k < e; ++k) row.emplace_back(h.col[k], h.value[k]);
    std::sort(row.begin(), row.end());
    for (size_t k = b; k < e; ++k) h.col[k] = row[k - b].first, h.value[k] = row[k - b].second;
  }
  return h;
}

at::Tensor feature_vectors(const NodeSet& set, const std::string& where) {
  const FeatureMatrix& f = set.features;
  if (f.rows != set.count || static_cast<int64_t>(f.values.size()) != f.rows * f.cols)
    throw DataError(where + ": side features have " + std::to_string(f.rows) + " rows x " +
                    std::to_string(f.cols) + " columns (" + std::to_string(f.values.size()) +
                    " values) for " + std::to_string(set.count) + " nodes");
  auto x = at::empty({f.rows, f.cols}, at::kFloat);
  std::copy(f.values.begin(), f.values.end(), x.data_ptr<float>());
  return x;
}

/// k-NN graphs from the training matrix's rows (its ratings, or binary interactions).
bool by_ratings(const GraphConfig& cfg) {
  return cfg.knn_source == "ratings" || cfg.knn_source == "interactions";
}

/// What the rows-based k-NN graph compares, for the messages.
std::string rows_name(const GraphConfig& cfg) {
  return cfg.knn_source == "interactions" ? "interaction rows" : "rating rows";
}

/// The k-NN graph of feature rows. Up to graph.knn_exact_max nodes exactly, with
/// similarities in blocks of about 2^22 entries (16 MiB of floats, a few times that in the
/// top-k masks), so that a wide catalogue's graph costs memory linear in its nodes (1024-row
/// blocks took 650 MB on 16 k items); over it, from an HNSW index (knn_approximate.h), since
/// the exact search is quadratic (18 of 22 minutes on 262 k items).
EdgeList knn_of(const at::Tensor& vectors, const GraphConfig& cfg, const std::string& what, Notes& notes) {
  const int64_t n = std::max<int64_t>(1, vectors.size(0));
  if (n > cfg.knn_exact_max) {
    notes.push_back("note: " + what + ": " + std::to_string(n) +
                    " nodes, over graph.knn_exact_max = " + std::to_string(cfg.knn_exact_max) + ": its " +
                    std::to_string(cfg.knn_k) + "-NN graph comes from an approximate index (HNSW)");
    return knn_graph_approximate(vectors, cfg.knn_k);
  }
  return knn_graph(vectors, cfg.knn_k, std::clamp<int64_t>((int64_t{1} << 22) / n, 1, 1024));
}
/// Rating rows are sparse: their exact search walks co-ratings only (knn.cpp), linear in
/// them for sparse data, so it has no approximate road.
EdgeList knn_of(const SparseRows& rows, const GraphConfig& cfg, const std::string&, Notes&) {
  return knn_graph(rows, cfg.knn_k);
}

template <class Vectors>
void set_knn(NodeSet& set, const Vectors& vectors, const GraphConfig& cfg, const std::string& what,
             Notes& notes) {
  set.graph = knn_of(vectors, cfg, what, notes);
  set.directed = EdgeList{};
  set.graph.num_nodes = set.count;
  set.graph_origin = GraphOrigin::Knn;
}

void resolve_side(Dataset& ds, Side side, const std::string& policy, const GraphConfig& cfg, Notes& notes) {
  NodeSet& set = side == Side::User ? ds.users : ds.items;
  const std::string noun = side == Side::User ? "user" : "item";
  const std::string key = "graph." + noun + "_graph";
  const std::string name = ds.name.empty() ? std::string("dataset") : ds.name;
  const bool has_file_graph = set.graph_origin == GraphOrigin::File;
  const bool has_features = !set.features.empty();

  if (policy == "auto") {
    if (has_file_graph) return;
    if (by_ratings(cfg)) {  // the user asked for rating-row neighbours: honour it
      notes.push_back("note: " + name + ": no " + noun + " graph in the file; using a " +
                      std::to_string(cfg.knn_k) + "-NN graph of the training " + rows_name(cfg) + " (" + key +
                      "=auto, graph.knn_source=" + cfg.knn_source + ")");
      set_knn(set, rating_vectors(ds, side, cfg.knn_source == "interactions"), cfg, name + " " + noun + "s",
              notes);
    } else if (has_features) {
      notes.push_back("note: " + name + ": no " + noun + " graph in the file; using a " +
                      std::to_string(cfg.knn_k) + "-NN graph of the " + noun + " features (" + key +
                      "=auto)");
      set_knn(set, feature_vectors(set, name), cfg, name + " " + noun + " features", notes);
    } else {
      notes.push_back("warning: " + name + ": no " + noun + " graph in the file; using the identity (" + key +
                      "=auto)");
      use_identity(set);
    }
  } else if (policy == "file") {
    if (!has_file_graph)
      throw ConfigError(key + " = file: " + name + " has no " + noun +
                        " graph in its file; use auto, knn or identity");
  } else if (policy == "knn") {
    if (by_ratings(cfg)) {
      set_knn(set, rating_vectors(ds, side, cfg.knn_source == "interactions"), cfg, name + " " + noun + "s",
              notes);
    } else if (cfg.knn_source == "features") {
      if (!has_features)
        throw ConfigError(
            key + " = knn: " + name + " has no " + noun +
            " features to compare; set graph.knn_source = ratings to build the k-NN graph from the "
            "training rating vectors, or use " +
            key + " = identity");
      set_knn(set, feature_vectors(set, name), cfg, name + " " + noun + " features", notes);
    } else {
      throw ConfigError("graph.knn_source = " + cfg.knn_source +
                        ": must be one of features|ratings|interactions");
    }
  } else if (policy == "identity") {
    use_identity_for_models(set, side == Side::User);
  } else {
    throw ConfigError(key + " = " + policy + ": must be one of auto|file|knn|identity");
  }
}

}  // namespace

void use_identity(NodeSet& side) {
  side.graph = EdgeList{};
  side.directed = EdgeList{};
  side.graph.num_nodes = side.count;
  side.graph_origin = GraphOrigin::Identity;
}

void use_identity_for_models(NodeSet& side, bool user_side) {
  if (user_side && side.graph_origin == GraphOrigin::File)
    side.links_only = true;
  else
    use_identity(side);
}

std::vector<std::string> resolve_graphs(Dataset& ds, const GraphConfig& cfg) {
  if (cfg.knn_k < 1) throw ConfigError("graph.knn_k = " + std::to_string(cfg.knn_k) + ": must be >= 1");
  Notes notes;
  resolve_side(ds, Side::User, cfg.user_graph, cfg, notes);
  resolve_side(ds, Side::Item, cfg.item_graph, cfg, notes);
  return notes;
}

int64_t link_new_nodes(Dataset& ds, bool user_side, int64_t first, const GraphConfig& cfg, std::string* how) {
  NodeSet& set = user_side ? ds.users : ds.items;
  set.graph.num_nodes = set.count;
  if (set.graph_origin != GraphOrigin::Knn || first >= set.count) return 0;
  const Side side = user_side ? Side::User : Side::Item;
  const bool rows = by_ratings(cfg);
  const EdgeList added =
      rows ? knn_out_edges(rating_vectors(ds, side, cfg.knn_source == "interactions"), first, cfg.knn_k)
           : knn_out_edges(feature_vectors(set, ds.name), first, cfg.knn_k);
  for (size_t e = 0; e < added.size(); ++e) set.graph.add(added.src[e], added.dst[e], added.weight[e]);
  if (how)
    *how = std::to_string(cfg.knn_k) + "-NN of the " + (rows ? rows_name(cfg) : std::string("features"));
  return static_cast<int64_t>(added.size());
}

}  // namespace symgnn::graph
