// Trains a model of `cfg` on a ratings CSV written into a scratch folder, for the tests
// of the inference API (tests/infer/).
#pragma once

#include <string>

#include "common/test_support.h"
#include "symgnn/graph.h"
#include "train/trainer.h"

namespace symgnn::testing {

/// Writes `csv` to dir/ratings.csv, trains cfg (cfg.data.source set to it) and returns the
/// model directory dir/run.
inline std::string train_on_csv(const std::string& dir, const std::string& csv, RunConfig cfg) {
  write_file(dir, "ratings.csv", csv);
  cfg.data.source = dir + "/ratings.csv";
  Dataset ds = load_dataset(cfg.data);
  graph::resolve_graphs(ds, cfg.graph);
  train::TrainerOptions opts;
  opts.out_dir = dir + "/run";
  train::train_sweep(cfg, ds, opts);
  return opts.out_dir;
}

}  // namespace symgnn::testing
