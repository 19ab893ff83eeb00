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

}  // namespace symgnn::train
