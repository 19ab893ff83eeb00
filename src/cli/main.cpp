// symgnn command-line entry point: all the work is in cli::run().
#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <exception>
#include <new>

#include "cli/commands.h"
#include "runtime/runtime.h"
#include "util/atomic_file.h"

namespace {

/// Ctrl-C, `kill` and a closed terminal end the process as they would anyway, but first
/// remove the temporary file of a write in progress (util/atomic_file.h): nothing is left
/// behind, and the previous file is untouched.
extern "C" void remove_temporaries_and_die(int sig) {
  symgnn::remove_temporaries_in_flight();
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

void install_signal_handlers() {
  struct sigaction action {};
  action.sa_handler = remove_temporaries_and_die;
  sigemptyset(&action.sa_mask);
  for (const int sig : {SIGINT, SIGTERM, SIGHUP}) ::sigaction(sig, &action, nullptr);
}

/// An exception nothing caught. A std::bad_alloc here comes from a shared library's
/// initialiser (LibTorch registers its operators before main(), and under `ulimit -v` of
/// about 560 MB that ran out): one line and exit 2 instead of an abort. Anything else is
/// a bug, reported as the runtime does.
[[noreturn]] void on_terminate() {
  if (const std::exception_ptr e = std::current_exception()) {
    try {
      std::rethrow_exception(e);
    } catch (const std::bad_alloc&) {
      static const char line[] =
          "symgnn: error: out of memory while starting (its libraries' initialisers); raise the "
          "address-space limit (ulimit -v) or free memory\n";
      (void)!::write(2, line, sizeof line - 1);
      ::_exit(2);
    } catch (...) {
    }
  }
  __gnu_cxx::__verbose_terminate_handler();
  std::abort();  // not reached
}

/// Runs before any shared library's initialiser (an executable's .preinit_array): GNU
/// OpenMP reads OMP_WAIT_POLICY when it is initialised, and spin-waiting threads made
/// element-wise ops 10-50x slower under CPU contention (docs/models.md, "Performance
/// facts"); OpenBLAS starts as many workers as cores, each mapping a 128 MiB buffer, and
/// LibTorch's own initialisers then ran out of address space under `ulimit -v` 700 MB
/// (std::bad_alloc before main, exit 134). So the process re-executes itself once, before
/// those initialisers, with the passive policy and one BLAS thread unless the user chose
/// them; runtime::set_compute_threads makes the BLAS threads a command asks for (as many as
/// the address space left holds: a worker that cannot map its buffer spins forever).
/// OpenBLAS's workers also spin in sched_yield for 2^28 cycles (about 0.1 s) after each
/// product before they sleep: under --threads 2 that spin took the core LibTorch's second
/// OpenMP thread computes on (10 of 36 CPU seconds as system time on real/ml-latest-small).
/// OPENBLAS_THREAD_TIMEOUT=24 (2^24 cycles, a few ms) lets them sleep between a large
/// model's products and still catch a small model's next one (at 4 they slept at once, and
/// a 300 x 300 run took 30 % longer waking them); unless the user chose.
void set_environment_before_libraries(int, char** argv, char** envp) {
  std::set_terminate(on_terminate);
  // libc sets `environ` in its own initialiser, which has not run yet.
  if (environ == nullptr) environ = envp;
  const bool omp_set = std::getenv("OMP_WAIT_POLICY") != nullptr;
  const bool blas_set = std::getenv("OPENBLAS_NUM_THREADS") != nullptr;
  const bool timeout_set = std::getenv("OPENBLAS_THREAD_TIMEOUT") != nullptr;
  if (omp_set && blas_set && timeout_set) return;
  if (!omp_set) ::setenv("OMP_WAIT_POLICY", "PASSIVE", 1);
  if (!blas_set) ::setenv("OPENBLAS_NUM_THREADS", "1", 1);
  if (!timeout_set) ::setenv("OPENBLAS_THREAD_TIMEOUT", "24", 1);
  ::execv("/proc/self/exe", argv);  // returns only on failure: then go on as we are
}

__attribute__((section(".preinit_array"),
               used)) void (*run_before_libraries)(int, char**, char**) = set_environment_before_libraries;

}  // namespace

int main(int argc, char** argv) {
  install_signal_handlers();
  symgnn::runtime::keep_freed_memory();
  return symgnn::cli::run(argc, argv);
}
