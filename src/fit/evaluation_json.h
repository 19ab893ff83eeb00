// An evaluation (symgnn/recommend.h) as the JSON that metrics.json and `evaluate --json` hold.
#pragma once

#include <nlohmann/json.hpp>
#include <vector>

#include "models/baseline/baseline_figures.h"
#include "symgnn/recommend.h"

namespace symgnn::fitting {

/// An evaluation as JSON (`evaluate --json`, and the "evaluation" of metrics.json).
nlohmann::json evaluation_json(const Evaluation& ev);

/// The test ratings of unseen ids (Evaluation::unseen) as JSON: metrics.json's "test_unseen"
/// and the "unseen" of `evaluate --json`.
nlohmann::json unseen_json(const UnseenTestReport& u);

/// The bias baseline's test figures: metrics.json's "baseline" and that of `evaluate --json`.
nlohmann::json baseline_json(const models::BaselineFigures& b);

/// The first cut-off's ranking metrics averaged over runs (mean and std) with the
/// popularity baseline's beside them: metrics.json's "ranking_at_10".
nlohmann::json ranking_summary(const std::vector<Evaluation>& runs, const Evaluation& popularity);

}  // namespace symgnn::fitting
