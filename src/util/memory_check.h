// Out-of-memory, said before it happens where it can be, and named where it cannot
// (docs/reliability.md, "Memory"): dense steps estimate their size against the machine's
// memory before allocating, and the big steps of each command run inside
// with_memory_context, so that an allocation failure anywhere in them becomes the one-line
// Error "out of memory while <step>" instead of a bare std::bad_alloc or an allocator trace.
#pragma once

#include <exception>
#include <new>
#include <string>

#include "symgnn/error.h"

namespace symgnn {

/// Bytes of physical memory of this machine (0 when unknown).
double physical_memory_bytes();

/// Error "<what> needs about N GiB (<detail>); this machine has M GiB. <alternative>" when
/// `bytes` exceed the machine's physical memory.
void require_memory(double bytes, const std::string& what, const std::string& detail,
                    const std::string& alternative);

/// Whether an exception's message is an allocator's failure (LibTorch's CPU and CUDA
/// allocators, std::bad_alloc).
bool is_allocation_failure(const char* what);

/// "out of memory while <step> (<detail>); ..." (the detail: the allocator's first line).
std::string out_of_memory_message(const std::string& step, const char* detail);

/// Runs f(); an allocation failure inside it becomes Error(out_of_memory_message(step)).
/// Nested calls: the innermost step names the failure.
template <class F>
decltype(auto) with_memory_context(const std::string& step, F&& f) {
  try {
    return f();
  } catch (const Error&) {
    throw;
  } catch (const std::bad_alloc&) {
    throw Error(out_of_memory_message(step, ""));
  } catch (const std::exception& e) {
    if (is_allocation_failure(e.what())) throw Error(out_of_memory_message(step, e.what()));
    throw;
  }
}

}  // namespace symgnn
