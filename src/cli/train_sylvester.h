// `symgnn train --model sylvester`: the "Sylv." completion baseline end to end
// (models/sylvester/completion.h has the predictor and the selection protocol).
#pragma once

#include <ATen/core/Tensor.h>

#include <string>

#include "symgnn/config.h"
#include "symgnn/graph.h"

namespace symgnn::cli {

/// Loads cfg.data, resolves the graphs, chooses a (cfg.sylvester.alphas) and the shrinkage
/// on validation and prints val/test RMSE (unless quiet). When out_dir is non-empty it
/// writes out_dir/metrics.json and out_dir/predictions/{val,test}.csv (the caller writes
/// config.txt); when metrics_out is non-empty, the metrics JSON there too; all atomically.
/// Returns 0; throws symgnn::Error on bad input.
int train_sylvester(const RunConfig& cfg, const std::string& out_dir, const std::string& metrics_out,
                    bool quiet);

/// cfg.train.device as a device; ConfigError for an unknown name or an absent CUDA device.
at::Device sylvester_device(const RunConfig& cfg);

/// At1 and At2 of a dataset whose graphs are resolved, on `device`.
std::pair<graph::SparseMatrix, graph::SparseMatrix> normalized_graphs(const Dataset& ds,
                                                                      const at::Device& device);

}  // namespace symgnn::cli
