// symgnn command-line entry point: all the work is in cli::run().
#include <signal.h>
#include <unistd.h>

#include <cstdlib>

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

}  // namespace

int main(int argc, char** argv) {
  // GNU OpenMP reads OMP_WAIT_POLICY when it is loaded, before main(): spin-waiting
  // threads made element-wise ops 10-50x slower under CPU contention (docs/models.md,
  // "Performance facts"), so re-execute once with the passive policy unless the user
  // chose a policy.
  if (std::getenv("OMP_WAIT_POLICY") == nullptr) {
    ::setenv("OMP_WAIT_POLICY", "PASSIVE", 1);
    ::execv("/proc/self/exe", argv);  // returns only on failure: then go on as we are
  }
  install_signal_handlers();
  symgnn::runtime::keep_freed_memory();
  return symgnn::cli::run(argc, argv);
}
