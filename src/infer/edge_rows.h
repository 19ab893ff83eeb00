/// @file
/// Taking a pair out of parallel index lists in place: one of a user's ratings (occlusion,
/// explain_occlusion.cpp) or a graph edge in both directions (graph_edit.cpp, occlusion).
#pragma once

#include <cstdint>
#include <vector>

namespace symgnn::infer {

/// Removes every entry (a, b) of the lists (src, dst, value), and (b, a) where `both`, keeping
/// the others in order; returns whether any was removed.
template <typename Value>
bool remove_pairs(std::vector<int64_t>& src, std::vector<int64_t>& dst, std::vector<Value>& value, int64_t a,
                  int64_t b, bool both) {
  size_t kept = 0;
  for (size_t e = 0; e < value.size(); ++e) {
    if ((src[e] == a && dst[e] == b) || (both && src[e] == b && dst[e] == a)) continue;
    src[kept] = src[e], dst[kept] = dst[e], value[kept] = value[e];
    ++kept;
  }
  const bool removed = kept < value.size();
  src.resize(kept), dst.resize(kept), value.resize(kept);
  return removed;
}

}  // namespace symgnn::infer
