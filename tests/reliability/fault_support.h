// What the fault-injection tests look for after a fault: the atomic writer's temporaries,
// and how many lines an error took.
#pragma once

#include <algorithm>
#include <filesystem>
#include <regex>
#include <string>
#include <vector>

namespace symgnn::testing {

/// Every "*.tmp.<pid>" file (src/util/atomic_file.h) under `dir`.
inline std::vector<std::string> temporaries(const std::string& dir) {
  static const std::regex temporary(R"(.*\.tmp\.[0-9]+)");
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir))
    if (std::regex_match(e.path().filename().string(), temporary)) out.push_back(e.path().string());
  return out;
}

/// The number of line breaks in `s` (an error is one line: 1).
inline int lines_of(const std::string& s) {
  return static_cast<int>(std::count(s.begin(), s.end(), '\n'));
}

}  // namespace symgnn::testing
