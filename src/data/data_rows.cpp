// load_rows() (symgnn/data_rows.h): a ratings source given in memory, read as
// load_ratings_file (ratings_csv.cpp) and load_dataset (dataset.cpp) read files holding the
// same rows, step for step: training ids in order of first appearance, then each side's graph
// and features (ids without ratings become nodes), then the test ratings; the test split,
// the validation carve and the checks of load_dataset. The ratings go through the files'
// RatingIndexer as they are; edges and feature rows through the rules of their files' readers
// (data/parsers.h EdgeListBuilder, FeatureRowsBuilder), so that each rule lives in one place.
#include "symgnn/data_rows.h"

#include <algorithm>
#include <cmath>

#include "data/feedback.h"
#include "data/id_rule.h"
#include "data/parsers.h"
#include "data/random_split.h"
#include "data/text_reader.h"
#include "data/time_split.h"
#include "symgnn/config.h"
#include "symgnn/error.h"

namespace symgnn {
namespace {

/// The one id rule (data/id_rule.h) for the ids of rows given in memory.
void rows_check_id(const std::string& id, const std::string& name, size_t row, const char* what) {
  if (const std::string problem = data::id_problem(id); !problem.empty())
    throw DataError(name, static_cast<long>(row) + 1, data::id_refusal(what, id, problem));
}

/// Feeds ratings rows to `indexer` as read_ratings hands a file's lines to it: the value a
/// finite number (as a double and as a float), the ids non-empty; `times` gathered where
/// given, for the ratings indexed.
void rows_index(const std::vector<std::string>& users, const std::vector<std::string>& items,
                const std::vector<double>& values, const std::vector<double>* given_times,
                const std::string& name, data::RatingIndexer& indexer, const RatingList& out,
                std::vector<double>* times) {
  if (users.size() != values.size() || items.size() != values.size())
    throw DataError(name + ": users, items and ratings differ in length (" + std::to_string(users.size()) +
                    ", " + std::to_string(items.size()) + ", " + std::to_string(values.size()) + ")");
  if (given_times && !given_times->empty() && given_times->size() != values.size())
    throw DataError(name + ": " + std::to_string(given_times->size()) + " times for " +
                    std::to_string(values.size()) + " ratings");
  const bool timed = given_times && !given_times->empty();
  for (size_t k = 0; k < values.size(); ++k) {
    rows_check_id(users[k], name, k, "user");
    rows_check_id(items[k], name, k, "item");
    const double v = values[k];
    if (!std::isfinite(v) || !std::isfinite(static_cast<float>(v)))
      throw DataError(name, static_cast<long>(k) + 1,
                      "rating " + data::number_text(v) + " is not a finite number");
    data::RawRating r{users[k], items[k], v, static_cast<long>(k) + 1};
    if (timed) {
      r.time = (*given_times)[k];
      if (!std::isfinite(r.time))
        throw DataError(name, static_cast<long>(k) + 1,
                        "time " + data::number_text(r.time) + " is not a finite number");
    }
    const size_t before = out.size();
    indexer.add(r);
    if (timed && times && out.size() > before) times->push_back(r.time);
  }
  indexer.finish();
}

/// The one id rule for the ids of edge or feature rows, every row before any is read.
template <typename Rows, typename Ids>
void rows_check_ids(const Rows& rows, const std::string& name, Ids ids_of) {
  for (size_t k = 0; k < rows.size(); ++k)
    for (const std::string* id : ids_of(rows[k])) rows_check_id(*id, name, k, "node");
}

/// A side's graph and features from its rows, as load_ratings_file's load_side reads files.
void rows_side(NodeSet& side, data::IdIndex& ids, bool has_graph, const std::vector<Delta::Edge>& edges,
               const std::vector<Delta::Features>& features, const std::string& set, const char* what,
               bool drop_loops) {
  if (has_graph) {
    const std::string name = set + " " + what + " graph";
    if (edges.empty()) throw DataError(name + ": no edges");
    rows_check_ids(edges, name, [](const Delta::Edge& e) {
      return std::vector<const std::string*>{&e.a, &e.b};
    });
    data::EdgeRowsLeftOut left_out;
    side.graph = data::edge_list_of_rows(edges, name, ids, what, /*add_new=*/true,
                                         drop_loops ? &left_out : nullptr, &side.directed);
    side.graph_origin = GraphOrigin::File;
    side.graph_note = left_out.text();
  }
  if (!features.empty()) {
    const std::string name = set + " " + what + " features";
    rows_check_ids(features, name,
                   [](const Delta::Features& f) { return std::vector<const std::string*>{&f.id}; });
    side.features = data::feature_matrix_of_rows(features, name, ids, what, /*add_new=*/true);
    side.features_origin = name + ": " + std::to_string(side.features.cols) + " columns";
  }
  if (has_graph)
    side.graph.num_nodes = side.directed.num_nodes = ids.size();  // the features may have added ids
}

}  // namespace

Dataset load_rows(const DataRows& rows, const DataConfig& cfg, bool need_test) {
  const std::string& set = rows.name;
  if (!cfg.split_time.empty() && cfg.split != "temporal")
    throw ConfigError("data.split_time = " + data::quote(cfg.split_time) +
                      " is the cut-off of data.split = temporal, and data.split is " + cfg.split);
  if (rows.has_test && data::is_time_split(cfg.split))
    throw ConfigError("data.split = " + cfg.split + " makes the test ratings of " + set +
                      "'s own, by time, and test rows give them: use one of the two");
  if (rows.ratings.empty() && rows.users.empty() && rows.items.empty())
    throw DataError(set + " ratings: no ratings");
  Dataset ds;
  data::IdIndex users, items;
  data::PairRegistry seen;
  RatingList all;
  std::vector<double> times;
  // Rows in memory say what they hold (data.feedback; auto: ratings): interactions merge
  // their repeated pairs as a file's do (data/feedback.h).
  const std::string feedback = cfg.feedback == "auto" ? "ratings" : cfg.feedback;
  data::RatingIndexer train_indexer(set + " ratings", users, items, true, seen, all);
  train_indexer.merge_repeats(feedback);
  rows_index(rows.users, rows.items, rows.ratings, &rows.times, set + " ratings", train_indexer, all, &times);

  const bool drop_loops = cfg.graph_self_loops == "drop";
  rows_side(ds.users, users, rows.has_user_graph, rows.user_edges, rows.user_features, set, "user",
            drop_loops);
  rows_side(ds.items, items, rows.has_item_graph, rows.item_edges, rows.item_features, set, "item",
            drop_loops);

  if (rows.has_test) {
    const std::string name = set + " test ratings";
    const bool keep_unknown = cfg.unknown_test != "error";
    data::RatingIndexer test_indexer(name, users, items, false, seen, ds.test,
                                     keep_unknown ? &ds.test_unknown : nullptr);
    test_indexer.merge_repeats(feedback);
    rows_index(rows.test_users, rows.test_items, rows.test_ratings, nullptr, name, test_indexer, ds.test,
               nullptr);
    if (ds.test.empty() && !ds.test_unknown.empty())
      throw DataError(name, ds.test_unknown.line.front(),
                      "none of its " + std::to_string(ds.test_unknown.size()) +
                          " test ratings names a user and an item of the training data (first: user " +
                          data::quote(ds.test_unknown.user.front()) + ", item " +
                          data::quote(ds.test_unknown.item.front()) + "); are both in the same ids?");
    ds.train = std::move(all);
  } else {
    if (data::is_time_split(cfg.split) && times.empty())
      throw DataError(set + ": data.split = " + cfg.split +
                      " needs the ratings' times, and these rows have none (DataRows::times)");
    data::split_ratings(all, times, cfg, set, ds);
  }
  ds.name = set;
  ds.source = set;
  ds.users.count = users.size();
  ds.items.count = items.size();
  ds.users.ids = users.ids();
  ds.items.ids = items.ids();
  ds.rating_levels = data::distinct_levels({&ds.train, &ds.test});
  for (const float v : ds.test_unknown.value)
    if (!std::binary_search(ds.rating_levels.begin(), ds.rating_levels.end(), v))
      ds.rating_levels.insert(std::upper_bound(ds.rating_levels.begin(), ds.rating_levels.end(), v), v);
  ds.rating_min = ds.rating_levels.front();
  ds.rating_max = ds.rating_levels.back();
  data::apply_feedback(ds, feedback, set);
  // load_dataset's tail: the time-aware splits carved their validation ratings by time already.
  if (!data::is_time_split(cfg.split))
    carve_validation(ds, cfg.val_fraction, static_cast<uint64_t>(cfg.split_seed));
  validate_dataset(ds, set, need_test && !data::holds_out_no_test(cfg));
  return ds;
}

}  // namespace symgnn
