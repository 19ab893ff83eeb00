#include "infer/explain_occlusion.h"

#include <torch/types.h>
#include <torch/utils.h>

#include "infer/edge_rows.h"
#include "symgnn/model.h"

namespace symgnn::infer {

namespace {

/// The data without `input`.
Dataset without(const Dataset& ds, const OccludedInput& input) {
  Dataset out = ds;
  switch (input.kind) {
    case OccludedInput::Kind::rating:
      remove_pairs(out.train.user, out.train.item, out.train.value, input.a, input.b, false);
      break;
    case OccludedInput::Kind::user_edge:  // graphs are symmetric (validate_dataset)
      remove_pairs(out.users.graph.src, out.users.graph.dst, out.users.graph.weight, input.a, input.b, true);
      break;
    case OccludedInput::Kind::item_edge:
      remove_pairs(out.items.graph.src, out.items.graph.dst, out.items.graph.weight, input.a, input.b, true);
      break;
  }
  return out;
}

}  // namespace

std::vector<double> occluded_scores(const ModelParts& parts, int64_t user, int64_t item,
                                    const std::string& target, const std::vector<OccludedInput>& inputs) {
  torch::NoGradGuard no_grad;
  const at::Device dev(parts.cfg.train.device);
  const at::Tensor u = torch::full({1}, user, torch::kLong).to(dev),
                   j = torch::full({1}, item, torch::kLong).to(dev);
  auto score_on = [&](const Dataset& ds) {
    const ModelParts p = rebuilt_parts(parts, ds);
    double sum = 0;
    for (const auto& m : p.members) {
      const at::Tensor s =
          target == "rating" ? m->forward(u, j) : m->score_items(u, p.ctx.n2).select(1, item);
      sum += s.to(torch::kCPU, torch::kDouble).item<double>();
    }
    return sum / static_cast<double>(p.members.size());
  };
  std::vector<double> out{score_on(parts.ds)};
  for (const OccludedInput& input : inputs) out.push_back(score_on(without(parts.ds, input)));
  return out;
}

}  // namespace symgnn::infer
