// symgnn command-line entry point: all the work is in cli::run().
#include <unistd.h>

#include <cstdlib>

#include "cli/commands.h"
#include "train/runtime.h"

int main(int argc, char** argv) {
  // GNU OpenMP reads OMP_WAIT_POLICY when it is loaded, before main(): spin-waiting
  // threads made element-wise ops 10-50x slower under CPU contention (docs/models.md,
  // "Performance facts"), so re-execute once with the passive policy unless the user
  // chose a policy.
  if (std::getenv("OMP_WAIT_POLICY") == nullptr) {
    ::setenv("OMP_WAIT_POLICY", "PASSIVE", 1);
    ::execv("/proc/self/exe", argv);  // returns only on failure: then go on as we are
  }
  symgnn::train::keep_freed_memory();
  return symgnn::cli::run(argc, argv);
}
