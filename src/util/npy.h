// NumPy's .npy format (version 1.0), written for `symgnn export` (docs/export.md): what
// numpy.load, and every vector index that reads NumPy arrays, opens without symgnn.
// Writing only: symgnn reads no .npy file.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace symgnn {

/// The bytes of a C-order .npy file of `values` (float32, '<f4') with `shape`; the product of
/// the shape must be values.size().
std::string npy_bytes(const std::vector<float>& values, const std::vector<int64_t>& shape);
/// The same for int64 ('<i8').
std::string npy_bytes(const std::vector<int64_t>& values, const std::vector<int64_t>& shape);

}  // namespace symgnn
