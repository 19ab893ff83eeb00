// `symgnn train --nproc N`: the one-machine launcher of a multi-process run (docs/scale.md,
// "Several processes and machines"). It starts N copies of this symgnn with torchrun's
// environment (MASTER_ADDR=127.0.0.1, a free MASTER_PORT, RANK, WORLD_SIZE, LOCAL_RANK),
// the threads split between them, and waits for them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace symgnn::cli {

/// Records this process's command line (main's argv) for the launcher to re-run; run()
/// calls it. In-process callers (the Python package) leave it empty: no launcher there.
void set_process_arguments(int argc, const char* const* argv);

/// Runs this process's command line without --nproc as `nproc` ranks with `threads`
/// compute threads each. Rank 0's output goes to the terminal; the others' only when one
/// fails. SIGINT, SIGTERM and SIGHUP are forwarded to the ranks; when one rank fails the
/// others are stopped. Returns the first failing rank's exit code (128 + n for a death by
/// signal n), else 0. `out_dir` (may be "") names the folder to resume in the message of a
/// killed rank. ConfigError when this process was not started as the symgnn command.
int launch_ranks(int64_t nproc, int64_t threads, const std::string& out_dir);

}  // namespace symgnn::cli
