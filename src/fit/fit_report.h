/// @file
/// The report of symgnn::fit beside the fitted model's own figures: the test ratings of ids
/// the model never saw rated, the bias baseline beside every rating figure, what train.auto
/// chose, and the ranker.
#pragma once

#include "fit/fitted.h"
#include "fit/prepared_data.h"
#include "fit/ranker_fit.h"
#include "symgnn/config.h"

namespace symgnn::fitting {

/// Adds the report's lines to f.result.summary and its figures to f.result.metrics.
void add_report(Fitted& f, const RunConfig& cfg, const FitOptions& o, const PreparedData& data,
                const RankerFit& ranker);

}  // namespace symgnn::fitting
