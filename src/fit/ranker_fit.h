/// @file
/// The closed-form ranker train.ranker names (fit/ranker.h), fitted beside the model into
/// DIR/ranker, a model directory of its own.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "infer/ranker_member.h"
#include "symgnn/config.h"
#include "symgnn/dataset.h"
#include "symgnn/fit.h"

namespace symgnn::fitting {

struct RankerFit {
  std::shared_ptr<const TrainedModel> model;  // null when the model ranks by itself
  /// The ranker as the model's lists read it: `model`, with the network trained for ranking
  /// where train.ranker_network kept it (fit/ranker_network_choice.h); null with `model`.
  std::shared_ptr<const infer::RankerMember> member;
  nlohmann::json record;             // metrics.json's "ranker"
  std::vector<std::string> summary;  // its lines for the result
};

/// Several candidates (train.ranker = auto) are each fitted into DIR/ranker.<kind>, and the
/// one with the best validation NDCG@10 becomes DIR/ranker (the others are removed). Then
/// train.ranker_graph = auto is resolved in `cfg` for the ranker kept
/// (fit/ranker_graph_choice.h), then train.ranker_quality and train.ranker_network
/// (fit/ranker_quality_choice.h, fit/ranker_network_choice.h: the network reads the graphs as
/// the user gave them, `given`, not as the rating model's choices left them).
RankerFit fit_ranker(RunConfig& cfg, const GraphConfig& given, const Dataset& ds, const FitOptions& o);

}  // namespace symgnn::fitting
