// Dataset statistics as JSON: printed by `symgnn data info` and stored in every
// metrics file, so a reported number always says what data it came from.
#pragma once

#include <nlohmann/json.hpp>

#include "symgnn/dataset.h"

namespace symgnn::train {

/// Undirected edge count of a symmetric coordinate list (self-loops count once).
int64_t undirected_edges(const EdgeList& g);

/// users, items, ratings, levels, split sizes, graphs (origin, edges), features, density.
nlohmann::json dataset_stats(const Dataset& ds);

/// A time-aware split's report (Dataset::time_split) with the shares of its counts: the
/// "time_split" of dataset_stats (metrics.json's "dataset") and of `evaluate --json`.
nlohmann::json time_split_json(const TimeSplitReport& r);

/// The same as aligned human-readable lines.
std::string dataset_stats_text(const Dataset& ds);

}  // namespace symgnn::train
