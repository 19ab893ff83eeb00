// What the reliability tests look for after a fault: the atomic writer's temporaries.
#pragma once

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

}  // namespace symgnn::testing
