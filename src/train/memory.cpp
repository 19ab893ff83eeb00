#include "train/memory.h"

#include <fstream>
#include <string>

namespace symgnn::train {
namespace {
int64_t status_kib(const char* key) {
  std::ifstream in("/proc/self/status");
  std::string line;
  const std::string prefix = std::string(key) + ":";
  while (std::getline(in, line))
    if (line.rfind(prefix, 0) == 0) return std::stoll(line.substr(prefix.size()));
  return 0;
}
}  // namespace

void reset_peak_memory() {
  // "5" resets the peak RSS counter to the current RSS (Linux >= 4.0).
  std::ofstream out("/proc/self/clear_refs");
  if (out) out << "5";
}

int64_t peak_memory_bytes() {
  return status_kib("VmHWM") * 1024;
}
int64_t current_memory_bytes() {
  return status_kib("VmRSS") * 1024;
}

}  // namespace symgnn::train
