// The RMSE of predictions against a list of ratings: what the fit tests compare a run's
// reported figure with. One definition for every file of tests/fit (a unity build compiles
// several of them as one).
#pragma once

#include <cmath>
#include <vector>

#include "symgnn/dataset.h"

namespace symgnn::testing {

inline double rmse_of(const std::vector<float>& p, const RatingList& r) {
  double se = 0;
  for (size_t k = 0; k < p.size(); ++k) se += (p[k] - r.value[k]) * (p[k] - r.value[k]);
  return std::sqrt(se / static_cast<double>(p.size()));
}

}  // namespace symgnn::testing
