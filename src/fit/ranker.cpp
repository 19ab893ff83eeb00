#include "fit/ranker.h"

#include "symgnn/model_kinds.h"

namespace symgnn::fitting {

RankerChoice choose_ranker(const RunConfig& cfg, int64_t users, int64_t items) {
  const std::string& r = cfg.train.ranker;
  if (r == "none") return {};
  if (r != "auto") return {{r}, ""};
  const ModelKind& kind = model_kind(cfg.model);
  const bool by_rating =
      kind.fit == FitMethod::trained ? cfg.train.objective == "rating" : !kind_serves(kind, "ranking");
  if (!by_rating) return {};
  RankerChoice c;
  const bool ease_fits = items <= kAutoRankerMaxItems && users * items <= kAutoRankerMaxPairs;
  if (ease_fits) c.candidates.push_back("ease");
  c.candidates.push_back("itemknn");
  c.candidates.push_back("popularity");
  if (!ease_fits)
    c.note = "train.ranker = auto: no EASE ranker on " + std::to_string(users) + " users x " +
             std::to_string(items) + " items (its limits: " + std::to_string(kAutoRankerMaxItems) +
             " items, " + std::to_string(kAutoRankerMaxPairs) + " user x item pairs)";
  return c;
}

}  // namespace symgnn::fitting
