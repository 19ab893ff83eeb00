// Interactions in symgnn::fit (implicit_feedback.h).
#include "fit/implicit_feedback.h"

#include "data/feedback.h"
#include "symgnn/model_kinds.h"

namespace symgnn::fitting {

std::string settle_feedback(RunConfig& cfg) {
  // Ratings keep the key as given, so that a rating run's config (and the checkpoints and
  // directories that record it) reads as it did before the key existed.
  const std::string feedback = data::resolved_feedback(cfg.data);
  if (feedback == "ratings") return "";
  cfg.data.feedback = feedback;
  const ModelKind& kind = model_kind(cfg.model);
  const bool fits_values = kind_fits_rating_values(kind, cfg.train.objective);
  std::string line = "data.feedback = " + cfg.data.feedback +
                     (cfg.data.feedback == "counts" ? " (weights log(1 + count))" : "") +
                     ": every held-out interaction is relevant, no rating is predicted";
  if (fits_values) {
    line += "; model = " + cfg.model +
            (kind.fit == FitMethod::trained ? " on train.objective = rating" : std::string()) +
            " fits rating values, so popularity stands in and train.ranker = auto chooses the lists";
    cfg.model = kind_of_role("stand_in").name;
    if (cfg.train.ranker == "none") cfg.train.ranker = "auto";
  }
  return line;
}

bool ranks_interactions_by_ranker(const RunConfig& cfg) {
  return cfg.data.feedback != "ratings" && cfg.data.feedback != "auto" &&
         std::string(model_kind(cfg.model).role) == "stand_in";
}

}  // namespace symgnn::fitting
