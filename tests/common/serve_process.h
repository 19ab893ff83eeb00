// `symgnn serve` as a child process, for the tests that drive the real server: started on a
// free port of 127.0.0.1 with its output in a log, its port read from that log, its exit
// code waited for (each wait bounded, so that a test never hangs on it).
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace symgnn::testing {

/// Starts `symgnn serve ARGS` with stdout and stderr to `log`; returns the child's pid.
pid_t start_serve(const std::vector<std::string>& args, const std::string& log);

/// The port the child printed in `log`, waiting at most 60 s; -1 when it did not.
int serve_port(const std::string& log);

/// The child's exit code (128 + signal when killed), waiting at most 60 s; past that it is
/// killed and -1 returned.
int exit_code(pid_t pid);

}  // namespace symgnn::testing
