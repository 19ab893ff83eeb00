// Helpers shared by the test executables: scratch directories, small files, and the
// location of the shared benchmark data (SYMGNN_DATA_DIR or ../shared/data).
#pragma once

#include <string>

namespace symgnn::testing {

/// A fresh empty directory under the system temp dir, removed at process exit.
std::string scratch_dir(const std::string& tag);

/// Writes `contents` to dir/name and returns the full path.
std::string write_file(const std::string& dir, const std::string& name, const std::string& contents);

/// The whole file ("" when it cannot be read).
std::string read_file(const std::string& path);

/// The benchmark data directory, or "" when it is absent.
std::string data_dir();

/// Path of the built `symgnn` executable (for end-to-end tests that check exit codes).
std::string symgnn_binary();

/// Runs a shell command, returns its exit status; stdout+stderr go to *output if given.
int run_command(const std::string& command, std::string* output = nullptr);

/// run_command of the built `symgnn` with `args`, with environment assignments `env`
/// ("NAME=value ...") before it.
int run_symgnn(const std::string& args, std::string* output = nullptr, const std::string& env = "");

}  // namespace symgnn::testing

/// Skips the current test with a clear message when the benchmark data is absent.
#define SYMGNN_REQUIRE_DATA(relative)                                                      \
  do {                                                                                     \
    if (::symgnn::testing::data_dir().empty() ||                                           \
        !::symgnn::testing::path_exists(::symgnn::testing::data_dir() + "/" + (relative))) \
      GTEST_SKIP() << "benchmark data '" << (relative)                                     \
                   << "' not found (set SYMGNN_DATA_DIR or provide ../shared/data)";       \
  } while (0)

namespace symgnn::testing {
bool path_exists(const std::string& path);
}
