#include "train/seeds.h"

namespace symgnn::train {
namespace {
// SplitMix64 finaliser: neighbouring inputs give unrelated outputs.
uint64_t mix(uint64_t z) {
  z += 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
}  // namespace

RunSeeds derive_seeds(int64_t base_seed, int64_t run) {
  const uint64_t s = static_cast<uint64_t>(base_seed + run);
  // torch seeds must fit in 63 bits on some paths; keep them positive.
  return RunSeeds{mix(s * 2 + 1) >> 1, mix(s * 2 + 2) >> 1};
}

}  // namespace symgnn::train
