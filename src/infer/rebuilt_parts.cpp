// rebuilt_parts and grow_into (infer/model_parts.h): a model's members built again over changed
// data from the weights they hold, grown where the data gained nodes.
#include <torch/nn/module.h>
#include <torch/types.h>
#include <torch/utils.h>

#include "data/parsers.h"
#include "infer/model_parts.h"
#include "infer/new_ratings.h"
#include "models/baseline/offset_model.h"
#include "models/weights_from_state.h"
#include "symgnn/graph.h"
#include "train/checkpoint.h"

namespace symgnn::infer {

namespace {

/// `target` (a parameter or buffer of a model built for more nodes, new_ratings.h) made to
/// hold `saved` in its leading corner and zeros elsewhere, in place. Only node-indexed
/// dimensions grow, so a tensor of unchanged shape is taken as saved. A dimension the new
/// model registered empty (a length that follows from the fit: the sparse kinds' lists, the
/// item-based ranker's width) takes the saved length.
void fill_grown(at::Tensor& target, const at::Tensor& saved) {
  if (target.sizes() == saved.sizes()) {
    target.copy_(saved);
    return;
  }
  TORCH_CHECK(saved.dim() == target.dim(), "grown: rank differs");
  std::vector<int64_t> shape(target.sizes().begin(), target.sizes().end());
  bool reshaped = false;
  for (int64_t d = 0; d < saved.dim(); ++d)
    if (shape[static_cast<size_t>(d)] == 0 && saved.size(d) > 0)
      shape[static_cast<size_t>(d)] = saved.size(d), reshaped = true;
  if (reshaped)
    target.set_(torch::zeros(shape, target.options()));
  else
    target.zero_();
  at::Tensor corner = target;
  for (int64_t d = 0; d < saved.dim(); ++d) {
    TORCH_CHECK(saved.size(d) <= shape[static_cast<size_t>(d)], "grown: a dimension shrank");
    corner = corner.narrow(d, 0, saved.size(d));
  }
  corner.copy_(saved);
}

}  // namespace

/// The trained `state` written into model `m`, built for more nodes: fill_grown of each
/// tensor (no copy of the model's state to build it from).
void grow_into(torch::nn::Module& m, const train::ModuleState& state) {
  torch::NoGradGuard no_grad;
  for (auto& p : m.named_parameters()) fill_grown(p.value(), state.at(p.key()));
  for (auto& b : m.named_buffers()) fill_grown(b.value(), state.at("buffer:" + b.key()));
}

namespace {

/// out.members: those of `parts` built again over out.ctx from their weights, grown where
/// out.ctx has more nodes (grow_into, then RatingModel::nodes_added of nodes without ratings).
void rebuild_members(const ModelParts& parts, ModelParts& out) {
  const at::Device dev(parts.cfg.train.device);
  const int64_t n1 = parts.ctx.n1, n2 = parts.ctx.n2;
  const bool grown = out.ctx.n1 > n1 || out.ctx.n2 > n2;
  // The nodes a graph edit created have no ratings: what the members compute for added nodes
  // (RatingModel::nodes_added) is asked of no rating, those added before being in the state.
  models::ModelContext none_added = out.ctx;
  none_added.added_from = static_cast<int64_t>(out.ds.train.size());
  const models::WeightsFromState from_state;  // no random tables: the state follows
  for (const auto& m : parts.members) {
    // Not copied: the new member copies what it reads (set_module_state, grow_into).
    const train::ModuleState state = train::module_state(*m, /*copy=*/false);
    auto rebuilt = models::make_model(out.cfg, out.ctx);
    rebuilt->to(dev);
    if (grown) {
      grow_into(*rebuilt, state);
      rebuilt->nodes_added(none_added, n1, n2);
    } else {
      train::set_module_state(*rebuilt, state);
    }
    rebuilt->eval();
    out.members.push_back(std::move(rebuilt));
  }
}

}  // namespace

ModelParts rebuilt_parts(const ModelParts& parts, Dataset ds) {
  torch::NoGradGuard no_grad;
  const at::Device dev(parts.cfg.train.device);
  ModelParts out;
  out.cfg = parts.cfg;
  out.ds = std::move(ds);
  models::ModelContext ctx = models::make_context(out.ds);
  // As the members were trained: their rating mean and scale, not those of the changed data.
  ctx.global_mean = parts.ctx.global_mean;
  ctx.rating_std = parts.ctx.rating_std;
  ctx.added_from = parts.ctx.added_from;
  // The bias offset's shrinkage pair is the members' own, chosen on the ratings they were
  // trained on: the nodes the changed data adds get their biases under it (as the
  // combination's baseline keeps its pair among its weights), and a fold-in, which cannot
  // cross-validate per user, gives a new user the same bias (OffsetModel::fold_user). Chosen
  // here only where the parts carry none.
  ctx.bias_shrinkage = parts.ctx.bias_shrinkage;
  models::give_offset_shrinkage(ctx, out.cfg);
  out.ctx = ctx.to(dev);
  rebuild_members(parts, out);
  // The ranker gains the same nodes, so that the indices agree.
  const bool grown = out.ctx.n1 > parts.ctx.n1 || out.ctx.n2 > parts.ctx.n2;
  out.ranker = grown ? with_created_nodes(parts.ranker, out.ds) : parts.ranker;
  return out;
}

ModelParts regraphed_parts(const ModelParts& parts, Dataset ds) {
  TORCH_CHECK(ds.users.count == parts.ctx.n1 && ds.items.count == parts.ctx.n2,
              "regraphed_parts: the nodes changed");
  torch::NoGradGuard no_grad;
  const at::Device dev(parts.cfg.train.device);
  ModelParts out;
  out.cfg = parts.cfg;
  out.ds = std::move(ds);
  // The context as it was (ratings, features, scale) with the graphs normalised again: the
  // only inputs a graph edit changes.
  out.ctx = parts.ctx;
  out.ctx.at1 = graph::normalized_adjacency(out.ds.users).to(dev);
  out.ctx.at2 = graph::normalized_adjacency(out.ds.items).to(dev);
  out.ctx.links1 = graph::directed_links(out.ds.users);
  out.ctx.links2 = graph::directed_links(out.ds.items);
  rebuild_members(parts, out);
  // Each member carries its representations over and recomputes the rows the edit reaches
  // (RatingModel::take_graph_edit); one that cannot computes all on its first score.
  for (size_t k = 0; k < out.members.size(); ++k) out.members[k]->take_graph_edit(*parts.members[k]);
  out.ranker = parts.ranker;
  return out;
}

}  // namespace symgnn::infer
