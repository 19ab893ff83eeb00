#include "train/memory.h"

#include <fstream>
#include <string>

#ifdef SYMGNN_CUDA_MEMSTATS
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAFunctions.h>
#endif

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

#ifdef SYMGNN_CUDA_MEMSTATS
// Only API common to LibTorch 1.13 and 2.x: the free functions of CUDACachingAllocator,
// and index 0 of the stat arrays (StatType::AGGREGATE, whose namespace moved in 2.x).
bool has_device_memory_stats() {
  return true;
}
void reset_device_peak_memory(int index) {
  const auto d = static_cast<c10::DeviceIndex>(index < 0 ? c10::cuda::current_device() : index);
  c10::cuda::CUDACachingAllocator::resetPeakStats(d);
}
int64_t device_peak_memory_bytes(int index) {
  const auto d = static_cast<c10::DeviceIndex>(index < 0 ? c10::cuda::current_device() : index);
  const auto stats = c10::cuda::CUDACachingAllocator::getDeviceStats(d);
  return static_cast<int64_t>(stats.allocated_bytes[0].peak);
}
#else
bool has_device_memory_stats() {
  return false;
}
void reset_device_peak_memory(int) {}
int64_t device_peak_memory_bytes(int) {
  return 0;
}
#endif

}  // namespace symgnn::train
