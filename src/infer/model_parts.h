/// @file
/// What a TrainedModel holds (symgnn/trained_model.h): the run's config and data, the model
/// context, and one model per saved weight set. TrainedModel::load builds them from a model
/// directory; symgnn::fit (src/fit/) from the models it has just trained or fitted, so that
/// it evaluates them without reading them back.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "infer/ranker_member.h"
#include "symgnn/config.h"
#include "symgnn/dataset.h"
#include "symgnn/model.h"
#include "symgnn/trained_model.h"
#include "train/model_folder.h"
#include "train/run_state.h"

namespace symgnn::infer {

struct ModelParts {
  RunConfig cfg;  // cfg.train.device is where the models are
  Dataset ds;     // graphs resolved; the data the models learned from
  models::ModelContext ctx;
  /// One model per saved weight set (train.average_last): predictions are their mean.
  std::vector<std::shared_ptr<models::RatingModel>> members;
  /// The closed-form ranker fitted beside the model (train.ranker, fit/ranker.h), a member whose
  /// role is to order the lists (infer/ranker_member.h); null when the model ranks by its own
  /// scores: score_all_items() are the ranker's.
  std::shared_ptr<const RankerMember> ranker;
  /// The network trained for ranking whose scores join the ranker's lists (train.ranker_network
  /// = on, infer/ranker_network_term.h), a model directory of its own; null: none.
  std::shared_ptr<const TrainedModel> ranker_network;
};

/// The members' node representations of `side` (RatingModel::node_representations) side by
/// side, on the CPU as float: what similar() compares and export writes; undefined where a
/// member has none.
at::Tensor member_representations(const ModelParts& parts, int side);

/// Where a model directory keeps its ranker: a model directory of its own.
inline std::string ranker_dir(const std::string& model_dir) {
  return model_dir + "/" + train::kRankerFolder;
}

/// Where a model directory keeps the network trained for ranking (train.ranker_network).
inline std::string ranker_network_dir(const std::string& model_dir) {
  return model_dir + "/" + train::kRankerNetworkFolder;
}

/// ModelParts of `cfg` over `ds` (graphs resolved) with a context on `cfg.train.device`,
/// one model of kind cfg.model per weight set of `states` (at least one). `bias_shrinkage`:
/// the bias baseline's cross-validated shrinkage on ds.train where the caller made one (the
/// context carries it, ModelContext::bias_shrinkage); null: chosen on ds.train where a
/// member learns over the bias offset.
ModelParts model_parts(const RunConfig& cfg, Dataset ds, const std::vector<train::ModuleState>& states,
                       std::shared_ptr<const models::ShrinkageChoice> bias_shrinkage = nullptr);

/// `parts` on other data `ds` (the same nodes, or more appended: ratings or graph edges taken
/// out or added, nodes a graph edit created): the context of `ds` with the rating mean,
/// scale and bias shrinkage pair the members were trained with, and the members rebuilt from their weights
/// (rebuilt_parts.cpp), grown where `ds` has more nodes (grow_into, then
/// RatingModel::nodes_added of nodes without ratings); the ranker is kept, or grown by the
/// same nodes. What explain's occlusion scores and a graph edit serves: every node's
/// representation recomputed.
ModelParts rebuilt_parts(const ModelParts& parts, Dataset ds);

/// `parts` on the same nodes and ratings with other graphs `ds` (a graph edit): the context
/// as it was with At1 and At2 normalised again, the members rebuilt from their weights, each
/// carrying its representations over and recomputing only the rows the edit reaches
/// (RatingModel::take_graph_edit); the ranker kept.
ModelParts regraphed_parts(const ModelParts& parts, Dataset ds);

/// The trained `state` written into model `m`, built for more nodes: each tensor holds its
/// saved values in its leading corner and zeros in the rows of the added nodes.
void grow_into(torch::nn::Module& m, const train::ModuleState& state);

}  // namespace symgnn::infer
