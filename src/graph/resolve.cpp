/// @file
/// Chooses each side's graph A before normalisation: the file's graph, a symmetric k-NN
/// graph (from side features F, n x f, or from training rating vectors), or A = I.
///
/// Shapes: the training ratings form H (n1 x n2, zero where unobserved; train split only,
/// so validation and test ratings never shape the graph); user vectors are the rows of H
/// (n1 x n2), item vectors its columns (n2 x n1). The k-NN graph of n nodes is built by
/// knn_graph in row blocks; H itself is dense, O(n1 n2) memory.
#include <torch/torch.h>

#include <algorithm>
#include <iostream>
#include <string>

#include "symgnn/error.h"
#include "symgnn/graph.h"
#include "util/memory_check.h"

namespace symgnn::graph {

namespace {

enum class Side { User, Item };

/// The training rating matrix H (n1 x n2) as seen from `side`: users get H, items H^T.
at::Tensor rating_vectors(const Dataset& ds, Side side) {
  // H and, for items, its transpose: two dense n1 x n2 floats (graph.knn_source = ratings).
  require_memory(2 * 4.0 * static_cast<double>(ds.users.count) * static_cast<double>(ds.items.count),
                 "graph.knn_source = ratings on " + std::to_string(ds.users.count) + " users x " +
                     std::to_string(ds.items.count) + " items",
                 "the k-NN graph compares dense rating rows",
                 "Use graph.knn_source = features, graphs from files (data.user_graph_file, "
                 "data.item_graph_file), or graph.user_graph = identity");
  auto h = torch::zeros({ds.users.count, ds.items.count}, torch::kFloat);
  auto acc = h.accessor<float, 2>();
  for (size_t e = 0; e < ds.train.size(); ++e) {
    const int64_t u = ds.train.user[e], i = ds.train.item[e];
    if (u < 0 || u >= ds.users.count || i < 0 || i >= ds.items.count)
      throw DataError(ds.name + ": training rating " + std::to_string(e) + " (" + std::to_string(u) + ", " +
                      std::to_string(i) + ") outside the " + std::to_string(ds.users.count) + " x " +
                      std::to_string(ds.items.count) + " rating matrix");
    acc[u][i] = ds.train.value[e];
  }
  return side == Side::User ? h : h.t().contiguous();
}

at::Tensor feature_vectors(const NodeSet& set, const std::string& where) {
  const FeatureMatrix& f = set.features;
  if (f.rows != set.count || static_cast<int64_t>(f.values.size()) != f.rows * f.cols)
    throw DataError(where + ": side features have " + std::to_string(f.rows) + " rows x " +
                    std::to_string(f.cols) + " columns (" + std::to_string(f.values.size()) +
                    " values) for " + std::to_string(set.count) + " nodes");
  auto x = torch::empty({f.rows, f.cols}, torch::kFloat);
  std::copy(f.values.begin(), f.values.end(), x.data_ptr<float>());
  return x;
}

void set_identity(NodeSet& set) {
  set.graph = EdgeList{};
  set.graph.num_nodes = set.count;
  set.graph_origin = GraphOrigin::Identity;
}

void set_knn(NodeSet& set, const at::Tensor& vectors, int64_t k) {
  set.graph = knn_graph(vectors, k);
  set.graph.num_nodes = set.count;
  set.graph_origin = GraphOrigin::Knn;
}

void resolve_side(Dataset& ds, Side side, const std::string& policy, const GraphConfig& cfg) {
  NodeSet& set = side == Side::User ? ds.users : ds.items;
  const std::string noun = side == Side::User ? "user" : "item";
  const std::string key = "graph." + noun + "_graph";
  const std::string name = ds.name.empty() ? std::string("dataset") : ds.name;
  const bool has_file_graph = set.graph_origin == GraphOrigin::File;
  const bool has_features = !set.features.empty();

  if (policy == "auto") {
    if (has_file_graph) return;
    if (cfg.knn_source == "ratings") {  // the user asked for rating-row neighbours: honour it
      std::cerr << "note: " << name << ": no " << noun << " graph in the file; using a " << cfg.knn_k
                << "-NN graph of the training rating rows (" << key << "=auto, graph.knn_source=ratings)\n";
      set_knn(set, rating_vectors(ds, side), cfg.knn_k);
    } else if (has_features) {
      std::cerr << "note: " << name << ": no " << noun << " graph in the file; using a " << cfg.knn_k
                << "-NN graph of the " << noun << " features (" << key << "=auto)\n";
      set_knn(set, feature_vectors(set, name), cfg.knn_k);
    } else {
      std::cerr << "warning: " << name << ": no " << noun << " graph in the file; using the identity (" << key
                << "=auto)\n";
      set_identity(set);
    }
  } else if (policy == "file") {
    if (!has_file_graph)
      throw ConfigError(key + " = file: " + name + " has no " + noun +
                        " graph in its file; use auto, knn or identity");
  } else if (policy == "knn") {
    if (cfg.knn_source == "ratings") {
      set_knn(set, rating_vectors(ds, side), cfg.knn_k);
    } else if (cfg.knn_source == "features") {
      if (!has_features)
        throw ConfigError(
            key + " = knn: " + name + " has no " + noun +
            " features to compare; set graph.knn_source = ratings to build the k-NN graph from the "
            "training rating vectors, or use " +
            key + " = identity");
      set_knn(set, feature_vectors(set, name), cfg.knn_k);
    } else {
      throw ConfigError("graph.knn_source = " + cfg.knn_source + ": must be one of features|ratings");
    }
  } else if (policy == "identity") {
    set_identity(set);
  } else {
    throw ConfigError(key + " = " + policy + ": must be one of auto|file|knn|identity");
  }
}

}  // namespace

void resolve_graphs(Dataset& ds, const GraphConfig& cfg) {
  if (cfg.knn_k < 1) throw ConfigError("graph.knn_k = " + std::to_string(cfg.knn_k) + ": must be >= 1");
  resolve_side(ds, Side::User, cfg.user_graph, cfg);
  resolve_side(ds, Side::Item, cfg.item_graph, cfg);
}

int64_t link_new_nodes(Dataset& ds, bool user_side, int64_t first, const GraphConfig& cfg, std::string* how) {
  NodeSet& set = user_side ? ds.users : ds.items;
  set.graph.num_nodes = set.count;
  if (set.graph_origin != GraphOrigin::Knn || first >= set.count) return 0;
  const Side side = user_side ? Side::User : Side::Item;
  const bool by_ratings = cfg.knn_source == "ratings";
  const at::Tensor x = by_ratings ? rating_vectors(ds, side) : feature_vectors(set, ds.name);
  const EdgeList added = knn_out_edges(x, first, cfg.knn_k);
  for (size_t e = 0; e < added.size(); ++e) set.graph.add(added.src[e], added.dst[e], added.weight[e]);
  if (how) *how = std::to_string(cfg.knn_k) + "-NN of the " + (by_ratings ? "rating rows" : "features");
  return static_cast<int64_t>(added.size());
}

}  // namespace symgnn::graph
