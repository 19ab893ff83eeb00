// Small formatting and file helpers of the reproduce report.
#pragma once

#include <string>

namespace symgnn::reproduce {

/// The whole file; throws Error naming the path when it cannot be read.
std::string read_text_file(const std::string& path);

/// v with `digits` decimals ("0.7357").
std::string fixed(double v, int digits);

/// "45s", "3m05s", "1h12m".
std::string duration(double seconds);

}  // namespace symgnn::reproduce
