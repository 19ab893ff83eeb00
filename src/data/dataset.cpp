// load_dataset(): picks the reader from the source, carves validation, validates.
#include "symgnn/dataset.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <numeric>
#include <random>
#include <set>

#include "data/feedback.h"
#include "data/loaders.h"
#include "data/parsers.h"
#include "data/random_split.h"
#include "data/time_split.h"
#include "symgnn/config.h"
#include "symgnn/error.h"

namespace fs = std::filesystem;

namespace symgnn {

const char* to_string(GraphOrigin origin) {
  switch (origin) {
    case GraphOrigin::None: return "none";
    case GraphOrigin::File: return "file";
    case GraphOrigin::Knn: return "knn";
    case GraphOrigin::Identity: return "identity";
  }
  return "?";
}

const char* to_string(LinkDirection direction) {
  switch (direction) {
    case LinkDirection::out: return "out";
    case LinkDirection::in: return "in";
    case LinkDirection::both: return "both";
  }
  return "both";
}

LinkDirection link_direction_of(const std::string& name) {
  return name == "out" ? LinkDirection::out : name == "in" ? LinkDirection::in : LinkDirection::both;
}

std::string NodeSet::id_of(int64_t i) const {
  return ids.empty() ? std::to_string(i) : ids.at(static_cast<size_t>(i));
}

double Dataset::density() const {
  const double cells = static_cast<double>(users.count) * static_cast<double>(items.count);
  return cells > 0 ? static_cast<double>(num_ratings()) / cells : 0.0;
}

void carve_validation(Dataset& ds, double fraction, uint64_t seed) {
  if (fraction <= 0.0 || ds.train.empty()) return;
  // Fold any earlier carve back so that calling this twice never compounds.
  for (size_t k = 0; k < ds.validation.size(); ++k)
    ds.train.add(ds.validation.user[k], ds.validation.item[k], ds.validation.value[k]);
  ds.validation = RatingList{};
  const size_t n = ds.train.size();
  const size_t n_val = static_cast<size_t>(std::llround(fraction * static_cast<double>(n)));
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), size_t{0});
  std::mt19937_64 rng(seed);
  data::portable_shuffle(order, rng);  // same validation split with any standard library
  std::vector<char> is_val(n, 0);
  for (size_t k = 0; k < n_val; ++k) is_val[order[k]] = 1;
  order = std::vector<size_t>();
  // In place (kept ratings shift down, in order): a second copy of a large training list
  // would double the peak memory of loading.
  data::move_marked(ds.train, is_val, ds.validation);
}

data::IdIndex data::id_index(const NodeSet& side) {
  IdIndex index;
  for (int64_t i = 0; i < side.count; ++i) index.add(side.id_of(i));
  return index;
}

namespace {

/// The first rating of `r` out of range or not finite, as a message ("" when none); the
/// valid pairs go into `seen` ("file" = the split, "line" = index + 1) for the repeat check.
std::string check_ratings(const Dataset& ds, const RatingList& r, const char* split, const std::string& where,
                          data::PairRegistry& seen) {
  for (size_t k = 0; k < r.size(); ++k) {
    const auto u = r.user[k], i = r.item[k];
    const float v = r.value[k];
    const std::string at = where + ": " + split + " rating " + std::to_string(k) + ": ";
    if (u < 0 || u >= ds.users.count) return at + "user index " + std::to_string(u) + " out of range";
    if (i < 0 || i >= ds.items.count) return at + "item index " + std::to_string(i) + " out of range";
    if (!std::isfinite(v)) return at + "rating is not a finite number";
    if (v < ds.rating_min || v > ds.rating_max)
      return at + "rating " + std::to_string(v) + " outside the rating range";
    seen.add(static_cast<uint64_t>(u), static_cast<uint64_t>(i), split, static_cast<long>(k) + 1);
  }
  return "";
}

/// Every rating in range and no (user, item) pair twice across the splits; of several
/// faults the first in order (training, validation, test) is reported. The repeat check is
/// one sort of 12 bytes a rating (PairRegistry), not a hash set of 50+.
void validate_all_ratings(const Dataset& ds, const std::string& where) {
  data::PairRegistry seen;
  seen.reserve(ds.num_ratings());
  std::string bad;
  for (const auto& [list, split] : {std::pair<const RatingList*, const char*>{&ds.train, "training"},
                                    {&ds.validation, "validation"},
                                    {&ds.test, "test"}}) {
    bad = check_ratings(ds, *list, split, where, seen);
    if (!bad.empty()) break;  // pairs after it were not recorded: any repeat found is earlier
  }
  if (const auto d = seen.first_duplicate())
    throw DataError(where + ": " + d->file + " rating " + std::to_string(d->line - 1) +
                    ": duplicate (user, item) pair (" + ds.users.id_of(static_cast<int64_t>(d->a)) + ", " +
                    ds.items.id_of(static_cast<int64_t>(d->b)) + ")");
  if (!bad.empty()) throw DataError(bad);
}

void validate_graph(const NodeSet& side, const char* name, const std::string& where) {
  const EdgeList& g = side.graph;
  if (side.graph_origin == GraphOrigin::Identity || side.graph_origin == GraphOrigin::None) return;
  if (g.num_nodes != side.count)
    throw DataError(where + ": " + name + " graph has " + std::to_string(g.num_nodes) + " nodes, expected " +
                    std::to_string(side.count));
  std::set<std::pair<int64_t, int64_t>> edges;
  std::vector<std::tuple<int64_t, int64_t, float>> all;
  for (size_t k = 0; k < g.size(); ++k) {
    if (g.src[k] < 0 || g.src[k] >= g.num_nodes || g.dst[k] < 0 || g.dst[k] >= g.num_nodes)
      throw DataError(where + ": " + name + " graph edge " + std::to_string(k) + " has a node out of range");
    if (!std::isfinite(g.weight[k]) || g.weight[k] < 0)
      throw DataError(where + ": " + name + " graph edge (" + side.id_of(g.src[k]) + ", " +
                      side.id_of(g.dst[k]) + ") has negative or non-finite weight");
    all.emplace_back(g.src[k], g.dst[k], g.weight[k]);
  }
  std::sort(all.begin(), all.end());
  for (const auto& [s, d, w] : all) {
    auto it = std::lower_bound(all.begin(), all.end(), std::make_tuple(d, s, -1e30f));
    if (it == all.end() || std::get<0>(*it) != d || std::get<1>(*it) != s || std::get<2>(*it) != w)
      throw DataError(where + ": " + name + " graph is not symmetric: edge (" + side.id_of(s) + ", " +
                      side.id_of(d) + ") has no equal reverse edge");
  }
}

}  // namespace

void validate_dataset(const Dataset& ds, const std::string& where, bool need_test) {
  if (ds.users.count <= 0 || ds.items.count <= 0) throw DataError(where + ": no users or no items");
  if (ds.train.empty()) throw DataError(where + ": no training ratings");
  if (need_test && ds.test.empty())
    throw DataError(where + ": no test ratings (the split left none: give more ratings, a larger " +
                    "data.test_fraction, or data.test_file)");
  validate_all_ratings(ds, where);
  const UnknownRatings& u = ds.test_unknown;
  if (u.user.size() != u.size() || u.item.size() != u.size() || u.line.size() != u.size())
    throw DataError(where + ": the test ratings of unknown ids have columns of different lengths");
  for (const float v : u.value)
    if (!std::isfinite(v)) throw DataError(where + ": a test rating of an unknown id is not finite");
  validate_graph(ds.users, "user", where);
  validate_graph(ds.items, "item", where);
  for (const NodeSet* side : {&ds.users, &ds.items}) {
    const FeatureMatrix& f = side->features;
    if (f.empty()) continue;
    if (f.rows != side->count || f.values.size() != static_cast<size_t>(f.rows * f.cols))
      throw DataError(where + ": feature matrix shape does not match the node count");
    for (float x : f.values)
      if (!std::isfinite(x)) throw DataError(where + ": feature matrix has a non-finite value");
  }
}

Dataset load_dataset(const DataConfig& cfg, bool need_test) {
  const std::string& src = cfg.source;
  if (!cfg.split_time.empty() && cfg.split != "temporal")
    throw ConfigError("data.split_time = " + data::quote(cfg.split_time) +
                      " is the cut-off of data.split = temporal, and data.split is " + cfg.split);
  // data.feedback resolved once: auto reads a ratings file's first line (data/feedback.h).
  DataConfig resolved = cfg;
  resolved.feedback = data::resolved_feedback(cfg);
  Dataset ds;
  if (src == "synthetic") {
    ds = data::make_synthetic(cfg);
  } else {
    if (!fs::exists(src))
      throw DataError(src + ": no such file or directory (expected 'synthetic', a directory or a file)");
    if (fs::is_directory(src)) {
      if (fs::exists(fs::path(src) / "u.data"))
        ds = data::load_movielens_100k(src, cfg);
      else if (fs::exists(fs::path(src) / "ratings.dat"))
        ds = data::load_movielens_1m(src, cfg);
      else
        throw DataError(src +
                        ": directory has neither u.data (MovieLens-100K) nor ratings.dat (MovieLens-1M)");
    } else if (fs::path(src).extension() == ".mat") {
      ds = data::load_mat_v73(src, cfg);
    } else {
      ds = data::load_ratings_file(src, resolved);
    }
  }
  ds.source = src;
  data::apply_feedback(ds, resolved.feedback, src);
  if (data::is_time_split(cfg.split) && ds.time_split.split.empty())  // a source with a given split
    throw DataError(src + ": data.split = " + cfg.split +
                    " needs the ratings' times, which this source does not have (a ratings CSV with a 4th "
                    "column, MovieLens-100K and -1M have them)");
  // The time-aware splits carved their validation ratings by time already.
  if (!data::is_time_split(cfg.split))
    carve_validation(ds, cfg.val_fraction, static_cast<uint64_t>(cfg.split_seed));
  validate_dataset(ds, src, need_test && !data::holds_out_no_test(cfg));
  return ds;
}

}  // namespace symgnn
