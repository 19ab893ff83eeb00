// Trial values of a random search. Trial i's values are a pure function of (seed, i, the
// space): no generator state is carried from one trial to the next, so a resumed search
// proposes exactly the trials an uninterrupted one would have, in any order and with any
// number of jobs.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "tune/space.h"

namespace symgnn::tune {

/// (key, value text) in the order of the space file; the text is what `--set key=value`
/// passes to `symgnn train`.
using Values = std::vector<std::pair<std::string, std::string>>;

/// The values of trial `trial` (1-based, as in the trial folders).
Values sample_trial(const Space& space, uint64_t seed, int64_t trial);

/// A uniform number in [0, 1) from (seed, trial, key); exposed for the tests.
double unit_draw(uint64_t seed, int64_t trial, const std::string& key);

}  // namespace symgnn::tune
