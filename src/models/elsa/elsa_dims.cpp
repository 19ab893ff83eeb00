#include "models/elsa/elsa_dims.h"

#include <cmath>

#include "symgnn/error.h"
#include "util/strings.h"

namespace symgnn::models {

namespace {

std::vector<int64_t> parse_widths(const std::string& text, const std::string& key, double lowest) {
  const std::string least = lowest >= 1 ? ">= 1" : ">= 0";
  std::vector<int64_t> out;
  for (const std::string& s : split(text, ',')) {
    const std::string t = trim(s);
    double v = 0;
    if (!parse_double(t, v) || !(v >= lowest) || v != std::floor(v) || v > 1e6)
      throw ConfigError(key + " = '" + text + "': '" + t + "' is not a whole number " + least);
    out.push_back(static_cast<int64_t>(v));
  }
  if (out.empty()) throw ConfigError(key + " is empty: give at least one width " + least);
  return out;
}

}  // namespace

std::vector<int64_t> parse_elsa_dims(const std::string& text) {
  return parse_widths(text, "elsa.dims", 1);
}

std::vector<int64_t> parse_elsa_deep_hidden(const std::string& text) {
  return parse_widths(text, "elsa.deep_hidden", 0);
}

}  // namespace symgnn::models
