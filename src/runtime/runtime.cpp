#include "runtime/runtime.h"

#include <ATen/Parallel.h>
#include <dlfcn.h>
#include <malloc.h>
#include <torch/cuda.h>

#include <algorithm>
#include <limits>
#include <string>
#include <thread>

#include "symgnn/error.h"

namespace symgnn::runtime {

void set_compute_threads(int64_t n) {
  if (n <= 0) n = static_cast<int64_t>(std::max(1u, std::thread::hardware_concurrency()));
  at::set_num_threads(static_cast<int>(n));
  // Debian's LibTorch multiplies through OpenBLAS (openblas-pthread), whose own thread pool
  // at::set_num_threads does not size: with --threads 1 its idle workers still spun in
  // sched_yield, a third of a Douban epoch's CPU time and a slowdown for every other job
  // sharing the cores (docs/experiments.md, "Epoch speed"). Looked up at run time, so a
  // build on another BLAS is unaffected.
  using SetBlasThreads = void (*)(int);
  if (auto set_blas = reinterpret_cast<SetBlasThreads>(dlsym(RTLD_DEFAULT, "openblas_set_num_threads")))
    set_blas(static_cast<int>(n));
}

void check_device(const std::string& device, const std::string& option) {
  if (device == "cpu") return;
  if (device.rfind("cuda", 0) != 0)
    throw ConfigError(option + " " + device + ": must be cpu, cuda or cuda:N");
  int64_t index = 0;
  if (device.size() > 4) {
    const std::string n = device.substr(5);
    if (device[4] != ':' || n.empty() || n.find_first_not_of("0123456789") != std::string::npos)
      throw ConfigError(option + " " + device + ": must be cpu, cuda or cuda:N");
    index = std::stoll(n);
  }
  if (!torch::cuda::is_available())
    throw ConfigError(option + " " + device +
                      ": this LibTorch has no CUDA or sees no GPU (symgnn version says which); use cpu");
  const auto count = static_cast<int64_t>(torch::cuda::device_count());
  if (index >= count)
    throw ConfigError(option + " " + device + ": only " + std::to_string(count) + " GPU(s) visible");
}

void keep_freed_memory() {
  // Full-batch training allocates and frees the same large tensors every epoch. glibc
  // returns such blocks to the kernel and faults them in again, which cost 85 % of an
  // epoch here (Douban, prior encoder: 2.5 s -> 0.33 s per epoch with these settings,
  // docs/experiments.md): keep freed memory in the heap for reuse instead.
  mallopt(M_MMAP_THRESHOLD, 32 << 20);                         // blocks up to 32 MiB come from the heap
  mallopt(M_TRIM_THRESHOLD, std::numeric_limits<int>::max());  // never shrink the heap
  mallopt(M_TOP_PAD, 1 << 30);                                 // grow it in 1 GiB steps of address space
}

void release_freed_memory() {
  malloc_trim(0);
}

void keep_large_blocks_in_heap() {
  // Blocks above 32 MiB (glibc's largest mmap threshold) are mapped and unmapped each
  // time: with the fused dot decoder a 5 M-rating step's backward faulted in 140 MB afresh,
  // 0.36 s instead of 0.22 s (docs/scale.md). Not while loading: a growing vector's
  // realloc then copies instead of remapping, and holds both copies.
  mallopt(M_MMAP_MAX, 0);
}

}  // namespace symgnn::runtime
