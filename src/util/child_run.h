// A `symgnn train` child process kept in a folder of its own: reproduce's cells and tune's
// trials. A finished one is reused when its spec.txt (the arguments and config contents
// that made it) is unchanged and its files verify, so an interrupted sweep resumes.
#pragma once

#include <string>
#include <vector>

namespace symgnn {

/// Whether `dir` holds a finished child run made from `spec`: metrics.json and spec.txt
/// verify against the folder's checksums and spec.txt equals `spec` (a damaged run is run
/// again).
bool holds_finished_run(const std::string& dir, const std::string& spec);

/// `exe train args... --threads t --progress lines --metrics-out dir/metrics.json --out dir`.
std::vector<std::string> child_train_argv(const std::string& exe, const std::vector<std::string>& args,
                                          const std::string& dir, int threads);

}  // namespace symgnn
