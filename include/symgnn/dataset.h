// symgnn: the in-memory dataset every model trains on.
//
// Loaders (src/data/) fill it from files; graph construction (src/graph/) completes the
// graphs; models never read files. This header has no LibTorch dependency so that the
// data layer (and its fuzz target) build in seconds.
//
// Benchmark statistics (asserted by tests/data/test_benchmarks.cpp):
//   | set            | users | items | ratings | levels   | user graph | item graph |
//   | ML-100K u1     |   943 |  1682 |  100000 | 1..5     | k-NN       | k-NN       |
//   | douban.mat     |  3000 |  3000 |  136891 | 1..5     | file       | identity   |
//   | flixster.mat   |  3000 |  3000 |   26173 | 0.5..5   | file       | file       |
//   | yahoo_music    |  3000 |  3000 |    5335 | 1..100   | identity   | file       |
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace symgnn {

/// Observed ratings as a coordinate list of 0-based user and item indices.
struct RatingList {
  std::vector<int64_t> user;
  std::vector<int64_t> item;
  std::vector<float> value;

  size_t size() const { return value.size(); }
  bool empty() const { return value.empty(); }
  void add(int64_t u, int64_t i, float r) {
    user.push_back(u);
    item.push_back(i);
    value.push_back(r);
  }
};

/// Test ratings that name a user or an item which is no node of the set (in neither the
/// training ratings nor a feature or graph file): no model can place them, so they keep their
/// original ids, are scored by the fallback data.unknown_test names, and are reported apart
/// from the test ratings models predict (infer/unseen_test.h).
struct UnknownRatings {
  std::vector<std::string> user;
  std::vector<std::string> item;
  std::vector<float> value;
  std::vector<long> line;  // of the test file, for messages

  size_t size() const { return value.size(); }
  bool empty() const { return value.empty(); }
};

/// Undirected weighted graph as a symmetric coordinate list: every edge {u, v} with
/// u != v is stored twice, (u, v) and (v, u), with the same positive weight.
/// Self-loops, if any, are stored once.
struct EdgeList {
  int64_t num_nodes = 0;
  std::vector<int64_t> src;
  std::vector<int64_t> dst;
  std::vector<float> weight;

  size_t size() const { return weight.size(); }
  void add(int64_t s, int64_t d, float w) {
    src.push_back(s);
    dst.push_back(d);
    weight.push_back(w);
  }
};

/// Where a side's graph came from. `Identity` means At = I (no edges stored); `None`
/// means no graph has been chosen yet (before graph::resolve_graphs).
enum class GraphOrigin { None, File, Knn, Identity };
const char* to_string(GraphOrigin origin);

/// Which links of a directed graph file a reader of the user graph's people follows
/// (NodeSet::directed): both (the symmetric graph the network reads), out (u -> v given: the
/// people u follows) or in (v -> u given: the people who follow u). An undirected graph reads
/// the same in every direction.
enum class LinkDirection { both = 0, out = 1, in = 2 };
const char* to_string(LinkDirection direction);
/// "both", "out" or "in" (a config value already checked); anything else is both.
LinkDirection link_direction_of(const std::string& name);

/// Dense row-major side features (one row per node). Empty (cols == 0) means the set
/// has no side features: models then use one-hot ids alone.
struct FeatureMatrix {
  int64_t rows = 0;
  int64_t cols = 0;
  std::vector<float> values;       // rows * cols, row-major
  std::vector<std::string> names;  // one per column, may be empty

  bool empty() const { return cols == 0; }
  float at(int64_t r, int64_t c) const { return values[static_cast<size_t>(r * cols + c)]; }
};

/// One side of the bipartite problem: the users or the items.
struct NodeSet {
  int64_t count = 0;
  std::vector<std::string> ids;  // original id of each index; empty: the id is the index
  EdgeList graph;                // raw (unnormalised) adjacency, from a file or built
  GraphOrigin graph_origin = GraphOrigin::None;
  /// The user graph of a file, kept for the lists and the people (the cold lists, the
  /// ranker's term, serve's linked people, explanations) while the network and the other
  /// models read the identity (graph::normalized_adjacency): graph.user_graph = identity over
  /// a file graph, as train.auto's graph choice sets it.
  bool links_only = false;
  /// A graph file's rows as it gave them, where it is directed (a -> b: a follows or trusts
  /// b; some pair given one way only): each directed edge once.
  /// Empty where every pair was given both ways, or the graph was built. `graph` holds their
  /// symmetric union, which the models read; the neighbour members may read one direction
  /// (graph::directed_links, baseline.link_direction).
  EdgeList directed;
  std::string graph_note;                // what reading its graph file left out, e.g. "2 self-loops dropped"
  FeatureMatrix features;                // side features, or empty
  std::string features_origin = "none";  // e.g. "u.user: age, gender, occupation"

  /// Original id of index i (the index itself when ids are implicit).
  std::string id_of(int64_t i) const;
};

/// What a time-aware test split (data.split = temporal or leave_last_out) did and the
/// leakage it leaves, counted once when the data are split (docs/your_data.md, "Time-aware
/// splits"); `split` is empty for every other split. "Training" here is every rating not in
/// the test split: the training and the validation ratings.
struct TimeSplitReport {
  std::string split;       // "temporal", "leave_last_out" or ""
  double cutoff = 0;       // temporal: the cut-off, unix seconds (test: at or after it)
  int64_t last_n = 0;      // leave_last_out: test ratings per user
  int64_t users_kept = 0;  // leave_last_out: users with at most last_n ratings, kept in training
  int64_t training_ratings = 0;
  int64_t test_ratings = 0;
  int64_t cold_item_ratings = 0;  // test ratings whose item has no training rating
  int64_t cold_items = 0;         // the distinct items of those
  int64_t cold_user_ratings = 0;  // test ratings whose user has no training rating
  int64_t later_training = 0;     // training ratings later than a test rating of another user
};

/// A rating matrix with its splits, graphs and features.
struct Dataset {
  std::string name;    // "ml-100k/u1", "douban", "synthetic", ...
  std::string source;  // what the user gave (path or "synthetic")
  NodeSet users;
  NodeSet items;
  RatingList train;       // training ratings (validation already carved out)
  RatingList validation;  // carved from training, never from test
  RatingList test;
  UnknownRatings test_unknown;       // test ratings naming an id that is no node (ratings CSV only)
  std::vector<float> rating_levels;  // sorted distinct admissible ratings
  float rating_min = 0.0f;
  float rating_max = 0.0f;
  TimeSplitReport time_split;  // data.split = temporal or leave_last_out
  bool test_drawn = false;     // the test is a random data.test_fraction (not given, not cut by time)
  /// What the values are (data.feedback resolved): "ratings"; "implicit" (every value 1: an
  /// interaction); "counts" (log(1 + count), a confidence weight). data/feedback.h.
  std::string feedback = "ratings";

  /// Whether the values are interactions rather than ratings to predict (implicit or counts).
  bool implicit() const { return feedback != "ratings"; }

  size_t num_ratings() const { return train.size() + validation.size() + test.size() + test_unknown.size(); }
  double density() const;
};

struct DataConfig;

/// Loads the source named by cfg.source (see docs/data.md for the formats):
///  - "synthetic": generated graph-structured matrix (cfg.synthetic_*);
///  - a directory with u.data: MovieLens-100K, split cfg.split;
///  - a directory with ratings.dat: MovieLens-1M, random test split;
///  - a file ending in .mat: Monti et al. MATLAB v7.3 (HDF5) file;
///  - any other file: a CSV/TSV ratings file "user,item,rating".
/// Then carves cfg.val_fraction of the training ratings into the validation split (the
/// time-aware splits, cfg.split = temporal or leave_last_out, carve theirs by time and fill
/// Dataset::time_split).
/// Graphs are left as found (GraphOrigin::File or None); see graph::resolve_graphs.
/// Throws DataError naming the file and line or key on any bad input, and when the split
/// leaves no test rating unless `need_test` is false (describing a set needs none).
Dataset load_dataset(const DataConfig& cfg, bool need_test = true);

/// Moves a seeded random `fraction` of ds.train into ds.validation.
void carve_validation(Dataset& ds, double fraction, uint64_t seed);

/// Checks the invariants every loader promises (indices in range, finite ratings, no
/// duplicate (user, item) pair across all splits, symmetric non-negative graphs).
/// Throws DataError prefixed with `where`; a set without test ratings only when `need_test`.
void validate_dataset(const Dataset& ds, const std::string& where, bool need_test = true);

}  // namespace symgnn
