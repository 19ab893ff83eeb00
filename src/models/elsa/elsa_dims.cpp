#include "models/elsa/elsa_dims.h"

#include <cmath>

#include "symgnn/error.h"
#include "util/strings.h"

namespace symgnn::models {

std::vector<int64_t> parse_elsa_dims(const std::string& text) {
  std::vector<int64_t> out;
  for (const std::string& s : split(text, ',')) {
    const std::string t = trim(s);
    double v = 0;
    if (!parse_double(t, v) || !(v >= 1) || v != std::floor(v) || v > 1e6)
      throw ConfigError("elsa.dims = '" + text + "': '" + t + "' is not a whole number >= 1");
    out.push_back(static_cast<int64_t>(v));
  }
  if (out.empty()) throw ConfigError("elsa.dims is empty: give at least one width d >= 1");
  return out;
}

}  // namespace symgnn::models
