// The search space of `symgnn tune`: which config keys vary and over what values, read
// from a file of lines such as
//
//   train.lr       = loguniform 0.001 0.03
//   lowrank.hidden = choice 32|64|75
//   lowrank.layers = int 1 3
//   lowrank.dropout = uniform 0 0.7
//
// Every key and every value a line allows is checked against the config's own rules
// (set_config_value) when the file is read, so a search never starts trials that `symgnn
// train` would reject.
#pragma once

#include <string>
#include <vector>

namespace symgnn::tune {

enum class Kind { choice, uniform, loguniform, integer };

struct Param {
  std::string key;  // a full config key, e.g. "lowrank.hidden"
  Kind kind = Kind::choice;
  std::vector<std::string> choices;  // Kind::choice
  double lo = 0, hi = 0;             // the other kinds, inclusive
  long line = 0;                     // where it was declared
};

struct Space {
  std::string file;
  std::vector<Param> params;  // in file order
};

/// Parses the text of a space file; `where` names it in errors. Throws DataError
/// "<where>:<line>: <what>" on a malformed line, ConfigError-worded ones (as DataError, so
/// that the line is named) on keys or values the config rejects.
Space parse_space(const std::string& text, const std::string& where);

/// Reads and parses a space file. Throws DataError naming the path when it is unreadable.
Space load_space_file(const std::string& path);

/// "choice 32|64|75", "loguniform 0.001 0.03": the line's right-hand side.
std::string describe(const Param& p);

}  // namespace symgnn::tune
