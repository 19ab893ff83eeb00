/// @file
/// The rating levels of a data set and the classes of the per-class prior built on them
/// (ModelContext::levels and ::h, models/context.cpp): one place for what make_context
/// builds and what lowrank.prior = auto sizes the encoder by (fit/prior_choice.h).
#pragma once

#include <cstdint>
#include <vector>

#include "symgnn/dataset.h"
#include "symgnn/model.h"

namespace symgnn::models {

/// ds.rating_levels (the loaders fill them), else the distinct training values; ascending.
std::vector<float> rating_levels(const Dataset& ds);

/// The classes of the per-class prior over `levels` levels: one per level, or
/// kBinnedPriorClasses quantile bins for a continuous target (more than kMaxPriorClasses).
inline int64_t prior_class_count(size_t levels) {
  return levels > kMaxPriorClasses ? kBinnedPriorClasses : static_cast<int64_t>(levels);
}

}  // namespace symgnn::models
