/// @file
/// Taking a pair out of parallel index lists in place: one of a user's ratings (occlusion,
/// explain_occlusion.cpp) or a graph edge in both directions (graph_edit.cpp, occlusion); and
/// setting a graph edge in both directions (graph_edit.cpp, new_ratings.cpp), or one
/// direction of a directed graph's links.
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

/// Sets the weight of the entries (a, b) and (b, a) of the lists, adding both where neither is
/// there; returns whether they were.
template <typename Value>
bool set_pair(std::vector<int64_t>& src, std::vector<int64_t>& dst, std::vector<Value>& value, int64_t a,
              int64_t b, Value w) {
  bool found = false;
  for (size_t e = 0; e < value.size(); ++e)
    if ((src[e] == a && dst[e] == b) || (src[e] == b && dst[e] == a)) value[e] = w, found = true;
  if (!found) {
    src.push_back(a), dst.push_back(b), value.push_back(w);
    src.push_back(b), dst.push_back(a), value.push_back(w);
  }
  return found;
}

/// Sets the weight of the entry (a, b) alone (a directed link, NodeSet::directed), adding it
/// where absent; returns whether it was there.
template <typename Value>
bool set_link(std::vector<int64_t>& src, std::vector<int64_t>& dst, std::vector<Value>& value, int64_t a,
              int64_t b, Value w) {
  for (size_t e = 0; e < value.size(); ++e)
    if (src[e] == a && dst[e] == b) {
      value[e] = w;
      return true;
    }
  src.push_back(a), dst.push_back(b), value.push_back(w);
  return false;
}

}  // namespace symgnn::infer
