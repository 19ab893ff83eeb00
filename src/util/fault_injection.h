// Faults on demand, for the fault-injection suite (tests/reliability/, docs/reliability.md).
// Read once from the environment variable SYMGNN_FAULT_INJECT, a comma-separated list of:
//   write:<ERRNO>:<text>[:<n>]  the n-th (default: every) atomic write of a path containing
//                               <text> fails with ERRNO: ENOSPC, EDQUOT, EFBIG and EIO part-way
//                               through the data (EIO: at fsync), EACCES, EPERM and EROFS
//                               when the file is created;
//   kill:<n>                    the process sends itself SIGKILL at the n-th fault point
//                               (before and after each rename of the atomic writer, after
//                               each training epoch);
//   signal:<INT|TERM|HUP>:<n>   the same with that signal, which the CLI's handler catches.
// Unset, every call is a no-op costing one branch.
#pragma once

#include <string>

namespace symgnn::fault {

/// Where a write fails, and with which errno (0: it does not).
enum class WriteStage { create, write, sync };
struct WriteFault {
  int error = 0;
  WriteStage stage = WriteStage::create;
};

/// The failure to inject into this write of `path` (called once per write).
WriteFault write_fault(const std::string& path);

/// Counts one fault point; the process dies here if kill:<n> names this one.
void point();

/// Replaces the plan read from the environment with `spec` (same syntax; "" for none) and
/// restarts the counts: for tests that inject faults in-process.
void configure(const std::string& spec);

}  // namespace symgnn::fault
