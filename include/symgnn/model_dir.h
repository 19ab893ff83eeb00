// symgnn: a model held in memory written as a model directory, and `symgnn refresh`.
//
// save_model_dir() writes what TrainedModel::load reads back into an equal model: model.pt
// (the config and every weight set), dataset.bin (the data, data/dataset_snapshot.h),
// config.txt and the ranker beside the model (ranker/), each file checksummed as fit writes
// them (docs/reliability.md), the whole directory renamed into place at the end. symgnn::fit
// without an out_dir keeps its model in memory only (FitResult::model); this writes it later
// (the Python package's SyMGNN.save and pickling of a model fitted without `out`).
//
// refresh_model_dir() and compact_model_dir() carry a graph journal's edits into the new
// directory's data (symgnn/graph_edit.h). refresh_model_dir() writes a new directory in which ratings given
// after the fit (known users' fresh ratings and new users', the --new-ratings file of recommend) are folded
// in: the model as fitted, plus refresh/<k>/ holding each refresh's files, applied in turn on every load as
// TrainedModel::load applies new nodes. `symgnn recommend --model DIR2` then gives the lists of `symgnn
// recommend --model DIR --new-ratings FILE` (docs/recommend.md, "Refreshing a model directory").
#pragma once

#include <string>
#include <vector>

#include "symgnn/trained_model.h"

namespace symgnn {

/// What save_model_dir writes beside the model, where given.
struct ModelDirFiles {
  std::string metrics_json;         // DIR/metrics.json's text (symgnn/run_metrics.h)
  std::string ranker_metrics_json;  // DIR/ranker/metrics.json's text
  std::string item_names_csv;       // DIR/item_names.csv's text (data/item_names.h)
  /// Ratings folded in after the fit, in order (NewNodeFiles): each is
  /// copied into DIR/refresh/<k>/ and applied on every load (refresh_model_dir).
  std::vector<NewNodeFiles> refreshes;
};

/// Writes `model` as the model directory `dir`, which must not exist or be an empty
/// directory (UsageError otherwise): into a temporary folder beside it, checked by loading
/// it, then renamed to `dir`. `model` must be as fitted (ConfigError for a model grown by new
/// nodes: write those with `files.refreshes`). Returns the files written, relative to `dir`.
std::vector<std::string> save_model_dir(const TrainedModel& model, const std::string& dir,
                                        const ModelDirFiles& files = {});

/// What refresh_model_dir did.
struct RefreshSummary {
  NewRatingsSummary added;  // what `new_nodes` added to the model of `model_dir`
  int64_t refreshes = 0;    // the refreshes `out_dir` holds, this one included
  int64_t users = 0, items = 0;
};

/// Writes `out_dir` (save_model_dir's rules): the model of `model_dir` as fitted, with the
/// refreshes `model_dir` holds and `new_nodes` after them (NewNodeFiles; their errors
/// name the files, as recommend --new-ratings names them). Its metrics.json, item names and
/// ranker's metrics are `model_dir`'s. The model is loaded on `device` to check it.
RefreshSummary refresh_model_dir(const std::string& model_dir, const NewNodeFiles& new_nodes,
                                 const std::string& out_dir, const std::string& device = "cpu");

/// `symgnn graph compact`: writes `out_dir` (save_model_dir's rules) as the model of
/// `model_dir` with its graph journal (infer/graph_journal.h) folded into its data: the model
/// as fitted on the edited graphs, then the refreshes `model_dir` holds, and no journal.
/// Checked before it returns: the new directory loads to the scores of `model_dir` (every
/// user's, to 1e-5), else Error and nothing is left. Returns the journal records folded in.
int64_t compact_model_dir(const std::string& model_dir, const std::string& out_dir,
                          const std::string& device = "cpu");

}  // namespace symgnn
