// The one name -> class map (STYLE.md §7): the rows of SYMGNN_MODEL_KINDS
// (symgnn/model_kinds.h) expanded into their builders. A kind `x` defines
// make_x_model() in its own files; nothing here changes when a kind is added.
#include "models/baseline/combined_model.h"
#include "symgnn/error.h"
#include "symgnn/model.h"
#include "symgnn/model_kinds.h"

namespace symgnn::models {

using Builder = std::shared_ptr<RatingModel> (*)(const RunConfig&, const ModelContext&);

#define SYMGNN_KIND_BUILDER_DECL(name, ...) \
  std::shared_ptr<RatingModel> make_##name##_model(const RunConfig& cfg, const ModelContext& ctx);
SYMGNN_MODEL_KINDS(SYMGNN_KIND_BUILDER_DECL)
#undef SYMGNN_KIND_BUILDER_DECL

namespace {

struct Entry {
  const char* name;
  Builder build;
};

constexpr Entry kBuilders[] = {
#define SYMGNN_KIND_BUILDER(name, ...) Entry{#name, &make_##name##_model},
    SYMGNN_MODEL_KINDS(SYMGNN_KIND_BUILDER)
#undef SYMGNN_KIND_BUILDER
};

}  // namespace

std::shared_ptr<RatingModel> make_model(const RunConfig& cfg, const ModelContext& ctx) {
  const ModelKind& kind = model_kind(cfg.model);  // ConfigError naming the choices
  for (const Entry& e : kBuilders)
    if (std::string(e.name) == kind.name) {
      std::shared_ptr<RatingModel> m = e.build(cfg, ctx);
      // train.auto = on: the identity combination with the bias baseline, whose weights
      // symgnn::fit fits on validation after training (models/baseline/combined_model.h).
      if (combines_with_baseline(cfg))
        return std::make_shared<CombinedModel>(cfg.baseline, ctx, std::move(m));
      return m;
    }
  throw ConfigError("model = " + cfg.model + ": no builder");  // unreachable: one per row
}

}  // namespace symgnn::models
