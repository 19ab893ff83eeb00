// symgnn: user-facing errors. Library code throws; only cli/main.cpp prints.
//
// Exit codes (cli/main.cpp): 2 for bad input (DataError, ConfigError, UsageError),
// 1 for internal failures (anything else).
#pragma once

#include <stdexcept>
#include <string>

namespace symgnn {

/// Base of every error the user can fix: the message is one line, names the file (and
/// line, key or option) and says what was expected.
class Error : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// Bad input data: "u1.base:1203: rating 6 outside 1..5".
class DataError : public Error {
public:
  using Error::Error;
  /// Formats "<file>:<line>: <what>" (line 0 is omitted).
  DataError(const std::string& file, long line, const std::string& what)
      : Error(line > 0 ? file + ":" + std::to_string(line) + ": " + what : file + ": " + what) {}
};

/// Bad configuration value or unknown key: "lowrank.hidden = -3: must be >= 1".
class ConfigError : public Error {
public:
  using Error::Error;
};

/// Bad command-line usage (unknown subcommand, missing argument).
class UsageError : public Error {
public:
  using Error::Error;
};

/// Checkpoint or model directory that cannot be used (corrupt, mismatched).
class CheckpointError : public Error {
public:
  using Error::Error;
};

}  // namespace symgnn
