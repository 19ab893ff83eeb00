#include "train/seeds.h"

#include "util/hash.h"

namespace symgnn::train {
namespace {
uint64_t mix(uint64_t z) {
  return splitmix64(z);
}
}  // namespace

RunSeeds derive_seeds(int64_t base_seed, int64_t run) {
  const uint64_t s = static_cast<uint64_t>(base_seed + run);
  // torch seeds must fit in 63 bits on some paths; keep them positive.
  // The batch order's seed mixes twice, so it is no other run's init or dropout seed.
  return RunSeeds{mix(s * 2 + 1) >> 1, mix(s * 2 + 2) >> 1, mix(mix(s) ^ 0x6261746368ULL)};
}

}  // namespace symgnn::train
