#include "fit/ranker.h"

#include <algorithm>

#include "fit/implicit_feedback.h"
#include "models/elsa/elsa_dims.h"
#include "symgnn/model_kinds.h"

namespace symgnn::fitting {

namespace {

/// The first width of elsa.dims ("128,512" -> 128): what an epoch of the ranker costs.
/// ConfigError for a value the kind would refuse.
double first_width(const std::string& dims) {
  return static_cast<double>(models::parse_elsa_dims(dims).front());
}

/// The number of comma-separated entries of a list key ("50,100,200" -> 3).
double entries(const std::string& list) {
  double n = 1;
  for (const char c : list) n += c == ',';
  return n;
}

/// The ranker column of `kind` (symgnn/model_kinds.h): its fit's cost class; "" for a name
/// that is no kind.
std::string ranker_cost(const std::string& kind) {
  const ModelKind* k = find_model_kind(kind);
  return k ? k->ranker : "";
}

}  // namespace

double ranker_budget_seconds(const RunConfig& cfg, int64_t ratings) {
  if (cfg.train.ranker_budget > 0) return cfg.train.ranker_budget;
  return 240.0 + 100.0 * static_cast<double>(ratings) / 1e6;
}

double estimated_seconds(const std::string& kind, const RunConfig& cfg, int64_t users, int64_t items,
                         int threads) {
  const double t = std::max(1, threads), n = static_cast<double>(items);
  const std::string cost = ranker_cost(kind);
  if (cost == "inverse") {
    const double m = static_cast<double>(users), c = entries(cfg.ease.lambdas);
    // Fewer users than items (models/closed_form/ease_model.h): each candidate an m x m
    // inverse and three m x m x n products, the final fit also X^T K X and X B (m n^2 each).
    if (m < n)
      return (c * (m * m * m + 3 * m * m * n) + m * m * m + 2 * m * m * n + 2 * m * n * n) * 3e-11 / t;
    return (c + 1) * n * n * n * 3e-11 / t;
  }
  if (cost == "width") return static_cast<double>(users) * n * first_width(cfg.elsa.dims) * 1e-9 / t;
  return 0;
}

RankerChoice choose_ranker(const RunConfig& cfg, int64_t users, int64_t items) {
  const std::string& r = cfg.train.ranker;
  if (r == "none") return {};
  if (r != "auto") return {{r}, ""};
  const ModelKind& kind = model_kind(cfg.model);
  // Under interactions popularity stands in for a rating kind (fit/implicit_feedback.h), and
  // the rankers compete for its lists.
  const bool by_rating =
      kind_fits_rating_values(kind, cfg.train.objective) || ranks_interactions_by_ranker(cfg);
  if (!by_rating) return {};
  RankerChoice c;
  const bool inverse_fits = items <= kAutoRankerMaxItems && users * items <= kAutoRankerMaxPairs;
  // The item-based ranker only where EASE does not fit: beside EASE its validation figure,
  // the best of its widths and epochs on the same ratings, is the more optimistic one
  // (ML-100K u1: validation 0.1923 against EASE's 0.1858, test 0.4373 against 0.4476;
  // docs/experiments.md, "The item-based ranker").
  const double width_work = static_cast<double>(users) * static_cast<double>(items) *
                            static_cast<double>(first_width(cfg.elsa.dims));
  // The kinds of the table's ranker column by cost class, the costlier first, the floor last.
  const auto admitted = [&](const std::string& cost) {
    if (cost == "inverse") return inverse_fits;
    if (cost == "width") return !inverse_fits && width_work <= kAutoElsaMaxWork;
    return cost == "sparse" || cost == "floor";
  };
  for (const char* cost : {"inverse", "width", "sparse", "floor"})
    if (admitted(cost))
      for (const ModelKind& k : kModelKinds)
        if (cost == std::string(k.ranker)) c.candidates.push_back(k.name);
  if (!inverse_fits)
    c.note =
        "train.ranker = auto: no EASE ranker on " + std::to_string(users) + " users x " +
        std::to_string(items) + " items (its limits: " + std::to_string(kAutoRankerMaxItems) + " items, " +
        std::to_string(kAutoRankerMaxPairs) + " user x item pairs)" +
        (width_work <= kAutoElsaMaxWork
             ? std::string()
             : ", nor an elsa ranker (users x items x d above 2^40 multiply-adds a validation measurement)");
  return c;
}

}  // namespace symgnn::fitting
