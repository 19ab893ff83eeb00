// Under a limit on the address space (`ulimit -v`), every command either works or says in
// one line that memory ran out (exit 2): never an abort, never a hang (docs/reliability.md,
// "Under an address-space limit"). Below what the libraries need to be mapped the dynamic
// loader itself refuses (exit 127), before any code of symgnn runs.
//
// The limits are swept from below that point up to where training works, so the test
// holds for any build (a CUDA LibTorch maps far more than Debian's).
#include <gtest/gtest.h>

#include <string>

#include "common/test_support.h"
#include "reliability/fault_support.h"

using symgnn::testing::lines_of;
using symgnn::testing::run_command;
using symgnn::testing::scratch_dir;
using symgnn::testing::symgnn_binary;

namespace {

/// Runs `args` of symgnn under `ulimit -v` of `mib` MiB, killed after 60 s (status 124).
int run_limited(int64_t mib, const std::string& args, std::string* out) {
  return run_command("ulimit -v " + std::to_string(mib * 1024) +
                         "; env -u OMP_WAIT_POLICY -u OPENBLAS_NUM_THREADS " + "timeout -s KILL 60 " +
                         symgnn_binary() + " " + args + " 2>&1",
                     out);
}

/// The smallest limit (MiB, in steps of 32) under which `symgnn version` runs: what the
/// libraries need mapped, plus what start-up allocates.
int64_t smallest_working_limit() {
  int64_t lo = 64, hi = 64 * 1024;  // fails at lo, works at hi
  std::string out;
  if (run_limited(hi, "version", &out) != 0) return -1;
  while (hi - lo > 32) {
    const int64_t mid = (lo + hi) / 2;
    (run_limited(mid, "version", &out) == 0 ? hi : lo) = mid;
  }
  return hi;
}

}  // namespace

TEST(AddressSpaceLimit, EveryCommandWorksOrSaysItRanOutOfMemoryInOneLine) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "AddressSanitizer reserves terabytes of address space: ulimit -v cannot apply";
#endif
  const int64_t start = smallest_working_limit();
  ASSERT_GT(start, 0) << "symgnn version fails without a limit";
  const std::string dir = scratch_dir("address_space_limit");
  // Both threads ask OpenBLAS for a worker with its own buffer: the case that hung.
  const std::string train =
      "train --epochs 3 --runs 1 --no-compare --threads 2 --quiet --overwrite --out " + dir;
  bool trained = false;
  for (int64_t mib = start - 64; mib <= start + 1536 && !trained; mib += 96) {
    for (const std::string& args : {std::string("version"), std::string("data info synthetic"), train}) {
      std::string out;
      const int rc = run_limited(mib, args, &out);
      SCOPED_TRACE("ulimit -v " + std::to_string(mib) + " MiB: symgnn " + args + " -> exit " +
                   std::to_string(rc) + ": " + out.substr(0, 600));
      EXPECT_NE(rc, 124) << "hung";
      EXPECT_NE(rc, 128 + 9) << "hung";
      EXPECT_NE(rc, 128 + 6) << "aborted";
      EXPECT_TRUE(rc == 0 || rc == 2 || rc == 127) << "exit " << rc;
      if (rc == 2) {
        EXPECT_EQ(lines_of(out), 1) << "one line";
        EXPECT_NE(out.find("memory"), std::string::npos) << "names the memory";
      }
      if (args == train && rc == 0) trained = true;
    }
  }
  EXPECT_TRUE(trained) << "training never ran, up to " << start + 1536 << " MiB";
}
