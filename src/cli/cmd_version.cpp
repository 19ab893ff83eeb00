// `symgnn version`: what this binary is and which BLAS and threads it runs on.
#include <ATen/Parallel.h>
#include <torch/cuda.h>
#include <torch/version.h>

#include <cstdlib>
#include <iostream>
#include <sstream>

#include "cli/commands.h"
#include "util/version.h"

namespace symgnn::cli {

std::string version_text() {
  std::ostringstream os;
  const char* wait = std::getenv("OMP_WAIT_POLICY");
  const char* blas_timeout = std::getenv("OPENBLAS_THREAD_TIMEOUT");  // src/cli/main.cpp sets both
  os << "symgnn " << symgnn_version() << " (git " << git_hash() << ")\n"
     << "LibTorch " << TORCH_VERSION_MAJOR << "." << TORCH_VERSION_MINOR << "." << TORCH_VERSION_PATCH << "\n"
     << "BLAS: " << blas_library() << "\n"
     << "intra-op threads: " << at::get_num_threads() << "\n"
     << "OMP_WAIT_POLICY: " << (wait ? wait : "(unset)") << "\n"
     << "OPENBLAS_THREAD_TIMEOUT: " << (blas_timeout ? blas_timeout : "(unset)") << "\n"
     << "CUDA available: " << (torch::cuda::is_available() ? "yes" : "no");
  if (torch::cuda::is_available()) os << " (" << torch::cuda::device_count() << " device(s))";
  os << "\n";
  return os.str();
}

void add_version_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("version", "print version, LibTorch, the BLAS in use, threads and CUDA");
  auto threads = std::make_shared<int64_t>(0);
  cmd->add_option("--threads", *threads, "intra-op threads to report (default: one per core)");
  cmd->callback([threads] {
    RunConfig cfg;
    cfg.train.threads = *threads;
    apply_runtime(cfg);
    std::cout << version_text();
  });
}

}  // namespace symgnn::cli
