#include "runtime/runtime.h"

#include <ATen/Parallel.h>
#include <dlfcn.h>
#include <malloc.h>
#include <sys/resource.h>
#include <torch/cuda.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <limits>
#include <string>
#include <thread>

#include "symgnn/error.h"

namespace symgnn::runtime {

namespace {

/// Bytes of address space the process may still map under `ulimit -v` (RLIMIT_AS), or
/// the largest int64 where there is no limit.
int64_t address_space_left() {
  struct rlimit limit {};
  if (getrlimit(RLIMIT_AS, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY)
    return std::numeric_limits<int64_t>::max();
  long pages = 0;
  if (FILE* f = std::fopen("/proc/self/statm", "r")) {
    if (std::fscanf(f, "%ld", &pages) != 1) pages = 0;
    std::fclose(f);
  }
  const int64_t used = static_cast<int64_t>(pages) * static_cast<int64_t>(sysconf(_SC_PAGESIZE));
  return std::max<int64_t>(0, static_cast<int64_t>(limit.rlim_cur) - used);
}

/// Address space one OpenBLAS worker maps when it starts: its buffer (128 MiB in Debian's
/// build) and its stack, with room to spare. A worker that cannot map it retries forever,
/// and the process then hangs at exit joining it.
constexpr int64_t kBlasThreadBytes = int64_t{256} << 20;
/// What the first thread's buffer needs at the least (128 MiB and some).
constexpr int64_t kBlasBufferBytes = int64_t{144} << 20;

/// Address space one compute thread of LibTorch maps: its stack (8 MiB) and the glibc
/// arena its allocations get (64 MiB reserved), with room to spare. LibTorch's thread pool
/// (libpthreadpool) waits forever for a thread it failed to make.
constexpr int64_t kComputeThreadBytes = int64_t{96} << 20;

}  // namespace

void set_compute_threads(int64_t n) {
  // OpenBLAS maps its 128 MiB buffer at the first product, and retries forever where the
  // address space cannot hold it (a training under `ulimit -v` 700 MB hung there).
  const int64_t left = address_space_left();
  if (left < kBlasBufferBytes)
    throw Error("out of memory: " + std::to_string(left >> 20) +
                " MiB of address space is left under the process's limit (ulimit -v), and the BLAS needs "
                "about " +
                std::to_string(kBlasBufferBytes >> 20) + " MiB for its buffer; raise the limit");
  if (n <= 0) n = static_cast<int64_t>(std::max(1u, std::thread::hardware_concurrency()));
  // Under `ulimit -v`, no more threads than the address space left can hold: a thread the
  // pools cannot make hangs them (never without a limit: then n is as asked).
  const int64_t room = left / kComputeThreadBytes;
  n = std::max<int64_t>(1, std::min<int64_t>(n, room));
  // LibTorch's setter first makes its QNNPACK pool (unused here) one thread per core: where
  // those cannot be made, OpenMP's pool, the one LibTorch computes on, is sized alone.
  using SetOmpThreads = void (*)(int);
  auto set_omp = reinterpret_cast<SetOmpThreads>(dlsym(RTLD_DEFAULT, "omp_set_num_threads"));
  if (room >= static_cast<int64_t>(std::max(1u, std::thread::hardware_concurrency())) || !set_omp)
    at::set_num_threads(static_cast<int>(n));
  else
    set_omp(static_cast<int>(n));
  // Debian's LibTorch multiplies through OpenBLAS (openblas-pthread), whose own thread pool
  // at::set_num_threads does not size: with --threads 1 its idle workers still spun in
  // sched_yield, a third of a Douban epoch's CPU time and a slowdown for every other job
  // sharing the cores (docs/experiments.md, "Epoch speed"). Looked up at run time, so a
  // build on another BLAS is unaffected.
  // cli/main.cpp starts it with one thread (OPENBLAS_NUM_THREADS=1): the others are made
  // here, as many as the address space left holds (`ulimit -v`).
  using SetBlasThreads = void (*)(int);
  if (auto set_blas = reinterpret_cast<SetBlasThreads>(dlsym(RTLD_DEFAULT, "openblas_set_num_threads"))) {
    // Measured again: the compute threads just made took their share.
    const int64_t room_now = address_space_left() / kBlasThreadBytes;
    set_blas(static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(n, room_now))));
  }
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
  // Grow it in 1 GiB steps of address space, or an eighth of what is left under
  // `ulimit -v`: a step the limit refuses fails the allocation that asked for it (every
  // command, `symgnn version` too, died of std::bad_alloc under 650 MB).
  const int64_t step = std::min<int64_t>(int64_t{1} << 30, address_space_left() / 8);
  mallopt(M_TOP_PAD, static_cast<int>(std::max<int64_t>(step, 128 << 10)));
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
