#include <torch/types.h>
#include <torch/utils.h>

#include "infer/model_parts.h"
#include "train/checkpoint.h"

namespace symgnn::infer {

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
  out.ctx = ctx.to(dev);
  for (const auto& m : parts.members) {
    // Not copied: the new member copies what it reads (set_module_state).
    const train::ModuleState state = train::module_state(*m, /*copy=*/false);
    auto rebuilt = models::make_model(out.cfg, out.ctx);
    rebuilt->to(dev);
    train::set_module_state(*rebuilt, state);
    rebuilt->eval();
    out.members.push_back(std::move(rebuilt));
  }
  out.ranker = parts.ranker;
  return out;
}

}  // namespace symgnn::infer
