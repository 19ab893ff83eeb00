/// @file
/// JSON text for files and output. A string that is not valid UTF-8 (a path in a legacy
/// encoding, an id from such a file) is written with U+FFFD in place of its bad bytes:
/// nlohmann::json's default is an exception, which came after the training was done and
/// lost its metrics (issue 13).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace symgnn {

inline std::string json_text(const nlohmann::json& j, int indent = -1) {
  return j.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace symgnn
