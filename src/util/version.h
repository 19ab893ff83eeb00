// Build and runtime facts recorded in metrics files and printed by `symgnn version`.
#pragma once

#include <string>

namespace symgnn {

/// "0.1.0"
std::string symgnn_version();
/// Short git hash of the source tree at configure time ("unknown" outside git).
std::string git_hash();
/// Real path of the shared library that provides the BLAS symbol sgemm_, as loaded in
/// this process (e.g. .../openblas-pthread/libblas.so.3), or "not found".
std::string blas_library();

}  // namespace symgnn
