// symgnn: what every table of named rows shares (the model kinds, symgnn/model_kinds.h; the
// objectives and ranking losses, symgnn/objectives.h; the metrics, symgnn/metrics.h): a
// row is a struct with a `name` (and a `doc`), a table a constexpr array of rows.
//
// Torch-free: the config reader and the fuzzers include it.
#pragma once

#include <cstddef>
#include <string>

namespace symgnn {

/// The row of `table` named `name`, or nullptr.
template <class Row, size_t N>
const Row* find_row(const Row (&table)[N], const std::string& name) {
  for (const Row& r : table)
    if (name == r.name) return &r;
  return nullptr;
}

/// "a|b|c": the rows' names in table order (a config field's choices).
template <class Row, size_t N>
std::string row_names(const Row (&table)[N]) {
  std::string s;
  for (const Row& r : table) s += (s.empty() ? "" : "|") + std::string(r.name);
  return s;
}

/// "a (doc of a); b (doc of b)": the rows with their doc lines (a config field's doc).
template <class Row, size_t N>
std::string row_docs(const Row (&table)[N]) {
  std::string s;
  for (const Row& r : table) s += (s.empty() ? "" : "; ") + std::string(r.name) + " (" + r.doc + ")";
  return s;
}

}  // namespace symgnn
