#include "tune/sample.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "util/hash.h"
#include "util/strings.h"

namespace symgnn::tune {
namespace {

uint64_t mix(uint64_t x) {
  return splitmix64(x);
}

/// FNV-1a: a key's draw depends on its name, not on its position in the file, so adding a
/// line to a space leaves the other keys' values of each trial unchanged.
uint64_t hash(const std::string& s) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : s) h = (h ^ c) * 0x100000001b3ULL;
  return h;
}

/// Six significant digits: readable in trials.csv and the --set arguments; the value a
/// trial uses is exactly this text. Rounding must not leave [lo, hi].
std::string format_real(double v, double lo, double hi) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  double back = 0;
  if (!parse_double(buf, back) || back < lo || back > hi)
    std::snprintf(buf, sizeof buf, "%.17g", std::clamp(v, lo, hi));
  return buf;
}

}  // namespace

double unit_draw(uint64_t seed, int64_t trial, const std::string& key) {
  const uint64_t x = mix(mix(mix(seed) ^ static_cast<uint64_t>(trial)) ^ hash(key));
  return static_cast<double>(x >> 11) * 0x1.0p-53;  // 53 random bits: [0, 1)
}

Values sample_trial(const Space& space, uint64_t seed, int64_t trial) {
  Values out;
  for (const Param& p : space.params) {
    const double u = unit_draw(seed, trial, p.key);
    std::string v;
    switch (p.kind) {
      case Kind::choice: {
        const size_t n = p.choices.size();
        v = p.choices[std::min(n - 1, static_cast<size_t>(u * static_cast<double>(n)))];
        break;
      }
      case Kind::uniform: v = format_real(p.lo + u * (p.hi - p.lo), p.lo, p.hi); break;
      case Kind::loguniform:
        v = format_real(std::exp(std::log(p.lo) + u * (std::log(p.hi) - std::log(p.lo))), p.lo, p.hi);
        break;
      case Kind::integer: {
        const double span = p.hi - p.lo + 1;  // both ends inclusive
        v = std::to_string(static_cast<int64_t>(p.lo) +
                           std::min(static_cast<int64_t>(span) - 1, static_cast<int64_t>(u * span)));
        break;
      }
    }
    out.emplace_back(p.key, v);
  }
  return out;
}

}  // namespace symgnn::tune
