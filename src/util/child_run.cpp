#include "util/child_run.h"

#include <filesystem>

#include "symgnn/error.h"
#include "util/checksum.h"

namespace fs = std::filesystem;

namespace symgnn {

bool holds_finished_run(const std::string& dir, const std::string& spec) {
  if (!fs::exists(dir + "/metrics.json") || !fs::exists(dir + "/spec.txt")) return false;
  try {
    read_verified_file(dir + "/metrics.json");
    return read_verified_file(dir + "/spec.txt") == spec;
  } catch (const Error&) {
    return false;
  }
}

std::vector<std::string> child_train_argv(const std::string& exe, const std::vector<std::string>& args,
                                          const std::string& dir, int threads) {
  std::vector<std::string> argv = {exe, "train"};
  argv.insert(argv.end(), args.begin(), args.end());
  argv.insert(argv.end(), {"--threads", std::to_string(threads), "--progress", "lines", "--metrics-out",
                           dir + "/metrics.json", "--out", dir});
  return argv;
}

}  // namespace symgnn
