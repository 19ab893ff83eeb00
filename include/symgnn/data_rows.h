// symgnn: a dataset given in memory, by original ids, instead of files.
//
// DataRows holds what a ratings CSV/TSV source reads from its files (docs/data.md):
// data.source's "user,item,rating" lines, data.test_file's, the edge lists of
// data.user_graph_file / data.item_graph_file and the rows of data.user_features_file /
// data.item_features_file. load_rows() turns them into the Dataset load_dataset() gives for
// files holding the same rows: the same ids in the same order, the same test split (the
// config's data.split, test_fraction and split_seed where no test rows are given), the same
// validation carve and the same checks. Give the result to symgnn::fit through
// FitOptions::data (symgnn/fit.h): the fit then equals the fit of those files, seed for seed,
// and no file is written (the Python package's arrays go this way).
#pragma once

#include <string>
#include <vector>

#include "symgnn/dataset.h"
#include "symgnn/delta.h"

namespace symgnn {

struct DataConfig;

struct DataRows {
  /// The dataset's name (Dataset::name and ::source); errors name the rows as
  /// "<name> ratings:K", "<name> test ratings:K", "<name> user graph:K", ... with K the row
  /// counted from 1, as a file's line.
  std::string name = "arrays";
  /// The ratings, one per position: data.source's lines. Ids are as a file holds them: not
  /// empty, without a tab, a line break or surrounding spaces.
  std::vector<std::string> users, items;
  std::vector<double> ratings;
  /// Each rating's time (unix seconds) for data.split = temporal or leave_last_out; empty:
  /// none (a file without a time column).
  std::vector<double> times;
  /// The test ratings (data.test_file's lines) where has_test; otherwise the config's test
  /// split draws them from `ratings`.
  bool has_test = false;
  std::vector<std::string> test_users, test_items;
  std::vector<double> test_ratings;

  /// A side's graph (GraphOrigin::File), where has_*_graph: its edges as the lines of
  /// data.user_graph_file "a,b[,w]" (each an added edge; side and op are not read). Ids absent
  /// from the ratings become nodes without ratings, as the files' do.
  bool has_user_graph = false, has_item_graph = false;
  std::vector<Delta::Edge> user_edges, item_edges;
  /// A side's features (columns f1, f2, ...), where not empty: one row per node of the side,
  /// as data.user_features_file's "id,f1,..." (side is not read).
  std::vector<Delta::Features> user_features, item_features;
};

/// The Dataset of `rows` under `cfg`'s split keys (data.split, split_time, leave_last_n,
/// val_fraction, test_fraction, split_seed, unknown_test); data.source and the file keys are
/// not read. Graphs are left as found (see graph::resolve_graphs), as load_dataset leaves
/// them. DataError naming the rows on bad input, ConfigError for a split the rows cannot
/// have (a time-aware split without times, or with test rows).
Dataset load_rows(const DataRows& rows, const DataConfig& cfg, bool need_test = true);

}  // namespace symgnn
