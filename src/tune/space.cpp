#include "tune/space.h"

#include <cmath>
#include <fstream>
#include <set>
#include <sstream>

#include "symgnn/config.h"
#include "symgnn/error.h"
#include "util/strings.h"
#include "util/text.h"

namespace symgnn::tune {
namespace {

/// Keys whose values would change what is measured rather than the model: every data.*
/// key moves or resizes the validation split (trials would no longer be comparable), and
/// the runtime keys change speed, not RMSE.
std::string forbidden_reason(const std::string& key) {
  if (key.rfind("data.", 0) == 0) return "data keys change the validation split, so trials would not compare";
  if (key == "train.threads" || key == "train.device")
    return "a runtime setting (use tune --threads or --set)";
  return "";
}

const char* type_of(const std::string&) {
  return "string";
}
const char* type_of(bool) {
  return "bool";
}
const char* type_of(int64_t) {
  return "int";
}
const char* type_of(double) {
  return "float";
}

/// The value type of a config key from its declaration in visit(); "" when unknown (then
/// set_config_value names the problem).
std::string key_type(const std::string& key) {
  if (key == "model") return "string";
  RunConfig cfg;
  std::string type;
  cfg.visit_sections([&](const char* section, auto& s) {
    s.visit([&](const char* field, auto& member, const char*, const Check&) {
      if (key == std::string(section) + "." + field) type = type_of(member);
    });
  });
  return type;
}

std::vector<std::string> words(const std::string& s) {
  std::istringstream in(s);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

double number(const std::string& text, const std::string& what, const std::string& here) {
  double v = 0;
  if (!parse_double(text, v) || !std::isfinite(v))
    throw DataError(here + ": " + what + " '" + text + "' is not a finite number");
  return v;
}

/// The config must accept `value` for `key`; its message says what is allowed.
void check_value(const std::string& key, const std::string& value, const std::string& here) {
  RunConfig cfg;
  try {
    set_config_value(cfg, key, value);
  } catch (const ConfigError& e) {
    throw DataError(here + ": " + e.what());
  }
}

Param parse_line(const std::string& line, const std::string& here) {
  const auto eq = line.find('=');
  if (eq == std::string::npos)
    throw DataError(here +
                    ": expected 'key = choice a|b|c', 'key = uniform LO HI', 'key = loguniform LO HI' "
                    "or 'key = int LO HI', got '" +
                    line + "'");
  Param p;
  p.key = trim(line.substr(0, eq));
  if (p.key.empty()) throw DataError(here + ": missing key before '='");
  if (const std::string why = forbidden_reason(p.key); !why.empty())
    throw DataError(here + ": " + p.key + " cannot be searched: " + why);
  const std::vector<std::string> w = words(line.substr(eq + 1));
  if (w.empty())
    throw DataError(here + ": " + p.key + ": missing distribution (choice, uniform, loguniform, int)");
  const std::string& kind = w[0];
  if (kind == "choice") {
    // '|' separates the values; spaces around it are allowed, a value may not hold any.
    const std::string rest = line.substr(eq + 1);
    const std::string joined = trim(rest.substr(rest.find("choice") + 6));
    if (joined.empty()) throw DataError(here + ": " + p.key + ": choice needs values 'a|b|c'");
    std::set<std::string> seen;
    for (const auto& part : split(joined, '|')) {
      const std::string v = trim(part);
      if (v.empty()) throw DataError(here + ": " + p.key + ": empty value in choice '" + joined + "'");
      if (!seen.insert(v).second) throw DataError(here + ": " + p.key + ": value '" + v + "' listed twice");
      if (v.find_first_of(" \t") != std::string::npos)
        throw DataError(here + ": " + p.key + ": '" + v + "': separate choice values with '|'");
      check_value(p.key, v, here);
      p.choices.push_back(v);
    }
    p.kind = Kind::choice;
    return p;
  }
  if (kind != "uniform" && kind != "loguniform" && kind != "int")
    throw DataError(here + ": " + p.key + ": unknown distribution '" + kind +
                    "' (choice, uniform, loguniform or int)");
  if (w.size() != 3) throw DataError(here + ": " + p.key + ": " + kind + " needs two bounds: LO HI");
  const std::string type = key_type(p.key);
  if (type.empty()) check_value(p.key, w[1], here);  // names the unknown key
  if (type == "string" || type == "bool")
    throw DataError(here + ": " + p.key + " takes words, not numbers: use 'choice a|b'");
  if (type == "int" && kind != "int")
    throw DataError(here + ": " + p.key + " is an integer key: use 'int LO HI' or 'choice'");
  if (kind == "int") {
    int64_t lo = 0, hi = 0;
    if (!parse_int(w[1], lo) || !parse_int(w[2], hi))
      throw DataError(here + ": " + p.key + ": int bounds must be integers, got '" + w[1] + " " + w[2] + "'");
    if (lo > hi) throw DataError(here + ": " + p.key + ": LO " + w[1] + " is above HI " + w[2]);
    p.kind = Kind::integer;
    p.lo = static_cast<double>(lo);
    p.hi = static_cast<double>(hi);
  } else {
    p.kind = kind == "uniform" ? Kind::uniform : Kind::loguniform;
    p.lo = number(w[1], "LO", here + ": " + p.key);
    p.hi = number(w[2], "HI", here + ": " + p.key);
    if (p.lo >= p.hi) throw DataError(here + ": " + p.key + ": LO " + w[1] + " must be below HI " + w[2]);
    if (p.kind == Kind::loguniform && p.lo <= 0)
      throw DataError(here + ": " + p.key + ": loguniform needs LO > 0, got " + w[1]);
  }
  // Both ends: every value in between passes too, as the config's checks are ranges.
  check_value(p.key, w[1], here);
  check_value(p.key, w[2], here);
  return p;
}

}  // namespace

Space parse_space(const std::string& text, const std::string& where) {
  Space s;
  s.file = where;
  std::istringstream in(text);
  std::set<std::string> keys;
  long lineno = 0;
  for (std::string line; std::getline(in, line);) {
    ++lineno;
    if (const auto hash = line.find('#'); hash != std::string::npos) line.erase(hash);
    line = trim(line);
    if (line.empty()) continue;
    const std::string here = where + ":" + std::to_string(lineno);
    Param p = parse_line(line, here);
    p.line = lineno;
    if (!keys.insert(p.key).second) throw DataError(here + ": " + p.key + " is already searched above");
    s.params.push_back(std::move(p));
  }
  if (s.params.empty()) throw DataError(where + ": no 'key = ...' line: nothing to search");
  return s;
}

Space load_space_file(const std::string& path) {
  return parse_space(read_text_file(path), path);  // the project's one file reader (util/text.h)
}

std::string describe(const Param& p) {
  std::ostringstream os;
  switch (p.kind) {
    case Kind::choice: {
      os << "choice ";
      for (size_t i = 0; i < p.choices.size(); ++i) os << (i ? "|" : "") << p.choices[i];
      break;
    }
    case Kind::uniform: os << "uniform " << p.lo << " " << p.hi; break;
    case Kind::loguniform: os << "loguniform " << p.lo << " " << p.hi; break;
    case Kind::integer:
      os << "int " << static_cast<int64_t>(p.lo) << " " << static_cast<int64_t>(p.hi);
      break;
  }
  return os.str();
}

}  // namespace symgnn::tune
