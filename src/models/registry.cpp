// The one name -> class map of the learned models (STYLE.md §2: variants are fields).
#include "models/base_model.h"
#include "models/lowrank_model.h"
#include "symgnn/error.h"
#include "symgnn/model.h"

namespace symgnn::models {

std::shared_ptr<RatingModel> make_model(const RunConfig& cfg, const ModelContext& ctx) {
  if (cfg.model == "lowrank") return std::make_shared<LowRankModel>(cfg.lowrank, ctx);
  if (cfg.model == "base") return std::make_shared<BaseModel>(cfg.base, ctx);
  if (cfg.model == "sylvester")
    throw ConfigError(
        "model = sylvester: not a learned model; use `symgnn train --model sylvester`, which runs "
        "the Sylvester solvers on their own path");
  throw ConfigError("model = " + cfg.model + ": unknown model (lowrank|base|sylvester)");
}

}  // namespace symgnn::models
