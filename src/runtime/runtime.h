/// @file
/// Process-wide settings that full-batch training needs to run at full speed: the
/// compute thread count (LibTorch and the BLAS under it) and the allocator's policy.
/// One place for them, outside the trainer: the CLI (cli/main.cpp, cli/options.cpp), the
/// trainer, symgnn::fit, the Python binding and the benchmarks (bench/) call these.
#pragma once

#include <cstdint>
#include <string>

namespace symgnn::runtime {

/// Threads for LibTorch's intra-op pool and for OpenBLAS's own pool (where the process
/// uses OpenBLAS); n <= 0 means one per core.
void set_compute_threads(int64_t n);

/// Checks a device string ("cpu", "cuda", "cuda:N") against this build and machine before
/// any work: a CUDA device on a LibTorch without CUDA, or with no GPU visible, or an index
/// beyond the GPUs present, is a ConfigError naming `option` (LibTorch's own error is a
/// multi-screen trace).
void check_device(const std::string& device, const std::string& option);

/// Keep freed memory in the heap for reuse instead of returning it to the kernel.
void keep_freed_memory();

/// Returns the heap's free memory to the kernel once (malloc_trim), between the stages of
/// a run whose temporaries the next stage does not reuse: the loaders' and the model
/// context's, freed in blocks under keep_freed_memory's mmap threshold. Without it they
/// stay resident under the training epochs' own peak (docs/scale.md, "Memory").
void release_freed_memory();

/// From here on every block comes from the heap, the large ones too, so that the training
/// steps reuse them instead of mapping them afresh: called once loading and the model
/// context are done (train_sweep), since it makes a growing buffer's reallocation copy.
void keep_large_blocks_in_heap();

}  // namespace symgnn::runtime
