// symgnn command-line entry point: all the work is in cli::run().
#include <malloc.h>
#include <unistd.h>

#include <cstdlib>
#include <limits>

#include "cli/commands.h"

int main(int argc, char** argv) {
  // GNU OpenMP reads OMP_WAIT_POLICY when it is loaded, before main(): spin-waiting
  // threads made element-wise ops 10-50x slower under CPU contention (DESIGN.md), so
  // re-execute once with the passive policy unless the user chose a policy.
  if (std::getenv("OMP_WAIT_POLICY") == nullptr) {
    ::setenv("OMP_WAIT_POLICY", "PASSIVE", 1);
    ::execv("/proc/self/exe", argv);  // returns only on failure: then go on as we are
  }
  // Full-batch training allocates and frees the same large tensors every epoch. glibc
  // returns such blocks to the kernel and faults them in again, which cost 85 % of an
  // epoch here (Douban, prior encoder: 2.5 s -> 0.33 s per epoch with these settings,
  // docs/experiments.md): keep freed memory in the heap for reuse instead.
  mallopt(M_MMAP_THRESHOLD, 32 << 20);                         // blocks up to 32 MiB come from the heap
  mallopt(M_TRIM_THRESHOLD, std::numeric_limits<int>::max());  // never shrink the heap
  mallopt(M_TOP_PAD, 1 << 30);                                 // grow it in 1 GiB steps of address space
  return symgnn::cli::run(argc, argv);
}
