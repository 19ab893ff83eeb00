// Small string helpers shared by the parsers (no locale, no exceptions).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace symgnn {

/// Strips ASCII whitespace (and a trailing '\r') from both ends.
std::string trim(const std::string& s);

/// Splits on `sep`, keeping empty fields.
std::vector<std::string> split(const std::string& s, char sep);

/// Whole-string integer parse; false on any trailing garbage, empty text or overflow.
bool parse_int(const std::string& s, int64_t& out);

/// Whole-string floating-point parse; false on garbage or empty text. NaN and inf parse
/// (callers decide whether they are admissible).
bool parse_double(const std::string& s, double& out);

}  // namespace symgnn
