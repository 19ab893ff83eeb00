// Peak memory of the process, per epoch (Table 4 of the paper reports the maximum memory
// of one epoch). CPU: the kernel's resident-set high-water mark (VmHWM), which
// reset_peak_memory() rewinds to the current RSS through /proc/self/clear_refs.
#pragma once

#include <cstdint>

namespace symgnn::train {

/// Starts a new measurement window (best effort: where clear_refs is not writable the
/// window extends back to process start, and the figures only ever grow).
void reset_peak_memory();

/// Peak resident memory in bytes since the last reset (0 if unavailable).
int64_t peak_memory_bytes();

/// Current resident memory in bytes (0 if unavailable).
int64_t current_memory_bytes();

/// True when this build can read the CUDA caching allocator's statistics (a CUDA
/// LibTorch: CMake defines SYMGNN_CUDA_MEMSTATS when it finds libc10_cuda).
bool has_device_memory_stats();

/// CUDA: rewinds the caching allocator's peak of device `index` (-1: the current device)
/// to its current allocation. No-op without has_device_memory_stats().
void reset_device_peak_memory(int index);

/// CUDA: the caching allocator's peak allocated bytes on device `index` since the last
/// reset, the figure torch.cuda.max_memory_allocated() reports; 0 without
/// has_device_memory_stats().
int64_t device_peak_memory_bytes(int index);

}  // namespace symgnn::train
