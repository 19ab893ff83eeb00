// Small formatting and file helpers of the reports (reproduce, tune).
#pragma once

#include <string>

namespace symgnn {

/// The whole file; throws Error naming the path when it cannot be read.
std::string read_text_file(const std::string& path);

/// v with `digits` decimals ("0.7357"); "n/a" when v is not finite.
std::string fixed(double v, int digits);

/// "45s", "3m05s", "1h12m".
std::string duration(double seconds);

}  // namespace symgnn
