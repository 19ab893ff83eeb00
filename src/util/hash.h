// Small integer hashes shared by the seed derivation (train/seeds.cpp) and the tuner's
// sampler (tune/sample.cpp).
#pragma once

#include <cstdint>

namespace symgnn {

/// SplitMix64's finaliser: a bijective 64-bit mix, so neighbouring inputs give unrelated
/// outputs.
inline uint64_t splitmix64(uint64_t z) {
  z += 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

}  // namespace symgnn
