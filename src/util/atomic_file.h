// Writes that never leave a half-written file behind: write to "<path>.tmp.<pid>",
// flush, then rename over the target (atomic on POSIX file systems).
#pragma once

#include <functional>
#include <ostream>
#include <string>

namespace symgnn {

/// Calls write(stream) on a temporary file next to `path`, then renames it to `path`.
/// On any failure the temporary is removed and an Error naming `path` is thrown.
void write_file_atomic(const std::string& path, const std::function<void(std::ostream&)>& write);

/// Convenience: atomically writes `contents` to `path`.
void write_text_atomic(const std::string& path, const std::string& contents);

}  // namespace symgnn
