// Text form of RunConfig: parsing, overrides, printing and the generated docs page,
// all driven by the single field list in each struct's visit().
#include <cmath>
#include <filesystem>
#include <sstream>
#include <type_traits>
#include <vector>

#include "symgnn/config.h"
#include "symgnn/error.h"
#include "util/strings.h"
#include "util/text.h"

namespace symgnn {
namespace {

std::string format_value(const std::string& v) {
  return v;
}
std::string format_value(bool v) {
  return v ? "true" : "false";
}
std::string format_value(int64_t v) {
  return std::to_string(v);
}
std::string format_value(double v) {
  std::ostringstream os;
  os.precision(17);
  os << v;
  return os.str();
}

std::string allowed_text(const Check& c) {
  if (c.choices[0] != '\0') return std::string("one of ") + c.choices;
  std::ostringstream os;
  if (c.min > -1e299 && c.max < 1e299)
    os << "in [" << c.min << ", " << c.max << "]";
  else if (c.min > -1e299)
    os << ">= " << c.min;
  else if (c.max < 1e299)
    os << "<= " << c.max;
  return os.str();
}

[[noreturn]] void bad_value(const std::string& where, const std::string& key, const std::string& value,
                            const std::string& allowed) {
  throw ConfigError(where + key + " = '" + value + "': must be " + allowed);
}

void parse_into(std::string& out, const std::string& text, const Check& c, const std::string& where,
                const std::string& key) {
  if (c.choices[0] != '\0') {
    for (const auto& choice : split(c.choices, '|'))
      if (choice == text) {
        out = text;
        return;
      }
    bad_value(where, key, text, allowed_text(c));
  }
  out = text;
}

void parse_into(bool& out, const std::string& text, const Check&, const std::string& where,
                const std::string& key) {
  if (text == "true" || text == "1" || text == "yes" || text == "on")
    out = true;
  else if (text == "false" || text == "0" || text == "no" || text == "off")
    out = false;
  else
    bad_value(where, key, text, "true or false");
}

void parse_into(int64_t& out, const std::string& text, const Check& c, const std::string& where,
                const std::string& key) {
  int64_t v = 0;
  if (!parse_int(text, v)) bad_value(where, key, text, "an integer " + allowed_text(c));
  if (v < c.min || v > c.max) bad_value(where, key, text, allowed_text(c));
  out = v;
}

void parse_into(double& out, const std::string& text, const Check& c, const std::string& where,
                const std::string& key) {
  double v = 0;
  if (!parse_double(text, v) || !std::isfinite(v))
    bad_value(where, key, text, "a finite number " + allowed_text(c));
  if (v < c.min || v > c.max) bad_value(where, key, text, allowed_text(c));
  out = v;
}

const char* type_name(const std::string&) {
  return "string";
}
const char* type_name(bool) {
  return "bool";
}
const char* type_name(int64_t) {
  return "int";
}
const char* type_name(double) {
  return "float";
}

}  // namespace

void set_config_value(RunConfig& cfg, const std::string& key_in, const std::string& value_in,
                      const std::string& where_in) {
  const std::string key = trim(key_in);
  const std::string value = trim(value_in);
  const std::string where = where_in.empty() ? "" : where_in + ": ";
  if (key == "preset") {
    cfg = preset_config(value.empty() ? std::string("?") : value);  // throws for unknown names
    return;
  }
  const auto dot = key.find('.');
  if (dot == std::string::npos) {
    bool found = false;
    cfg.visit_fields([&](const char* k, auto& member, const char*, const Check& c) {
      if (key != k) return;
      found = true;
      parse_into(member, value, c, where, key);
    });
    if (!found)
      throw ConfigError(where + "unknown key '" + key +
                        "' (keys are section.field, e.g. train.epochs; see symgnn config --defaults)");
    return;
  }
  const std::string section = key.substr(0, dot), field = key.substr(dot + 1);
  bool found_section = false, found = false;
  cfg.visit_sections([&](const char* name, auto& s) {
    if (section != name) return;
    found_section = true;
    s.visit([&](const char* k, auto& member, const char*, const Check& c) {
      if (field != k) return;
      found = true;
      parse_into(member, value, c, where, key);
    });
  });
  if (!found_section)
    throw ConfigError(where + "unknown section '" + section + "' in key '" + key +
                      "' (sections: data, graph, sylvester, lowrank, base, train)");
  if (!found) throw ConfigError(where + "unknown key '" + key + "' (see symgnn config --defaults)");
}

void load_config_text(RunConfig& cfg, const std::string& text, const std::string& where) {
  // A UTF-8 byte-order mark (editors on Windows write one) is not part of the first key.
  std::istringstream in(text.compare(0, 3, "\xEF\xBB\xBF") == 0 ? text.substr(3) : text);
  std::string line, section;
  long lineno = 0;
  bool any_key = false;
  while (std::getline(in, line)) {
    ++lineno;
    const auto hash = line.find('#');
    if (hash != std::string::npos) line = line.substr(0, hash);
    line = trim(line);
    if (line.empty()) continue;
    const std::string here = where + ":" + std::to_string(lineno);
    if (line.front() == '[') {
      if (line.back() != ']') throw ConfigError(here + ": malformed section header '" + line + "'");
      section = trim(line.substr(1, line.size() - 2));
      continue;
    }
    const auto eq = line.find('=');
    if (eq == std::string::npos) throw ConfigError(here + ": expected 'key = value', got '" + line + "'");
    std::string key = trim(line.substr(0, eq));
    if (!section.empty() && key.find('.') == std::string::npos) key = section + "." + key;
    // A preset replaces the whole configuration: after other keys it would silently undo them.
    if (key == "preset" && any_key)
      throw ConfigError(here + ": 'preset' must come before every other key (it resets the configuration)");
    set_config_value(cfg, key, line.substr(eq + 1), here);
    any_key = true;
  }
}

/// A config file's text: a directory or an unreadable file is an error naming it.
static std::string read_config(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw ConfigError(path + ": is a directory, not a config file of 'key = value' lines");
  std::string text;
  if (read_file(path, text) != ReadStatus::ok) throw ConfigError(path + ": cannot open config file");
  return text;
}

std::string config_file_preset(const std::string& path) {
  std::string text = read_config(path);
  if (text.compare(0, 3, "\xEF\xBB\xBF") == 0) text.erase(0, 3);  // a UTF-8 byte-order mark
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    const auto hash = line.find('#');
    if (hash != std::string::npos) line = line.substr(0, hash);
    const auto eq = line.find('=');
    if (eq != std::string::npos && trim(line.substr(0, eq)) == "preset") return trim(line.substr(eq + 1));
  }
  return "";
}

void load_config_file(RunConfig& cfg, const std::string& path) {
  load_config_text(cfg, read_config(path), path);
}

RunConfig start_config(const std::string& preset, const std::string& config_file) {
  const std::string in_file = config_file.empty() ? "" : config_file_preset(config_file);
  if (!preset.empty() && !in_file.empty() && preset != in_file)
    throw ConfigError("--preset " + preset + ": " + config_file + " starts from preset " + in_file +
                      " (drop --preset, or edit the file's preset line)");
  RunConfig cfg = preset_config(!preset.empty() ? preset : !in_file.empty() ? in_file : default_preset());
  if (!config_file.empty()) load_config_file(cfg, config_file);
  return cfg;
}

void apply_override(RunConfig& cfg, const std::string& assignment) {
  const auto eq = assignment.find('=');
  if (eq == std::string::npos)
    throw ConfigError("--set '" + assignment + "': expected key=value, e.g. --set train.epochs=100");
  if (trim(assignment.substr(0, eq)) == "preset")
    throw ConfigError("--set '" + assignment +
                      "': use --preset (a preset resets every key, the config file's too)");
  set_config_value(cfg, assignment.substr(0, eq), assignment.substr(eq + 1), "--set");
}

void set_variant(RunConfig& cfg, const std::string& variant, const std::string& where) {
  const ModelKind& kind = model_kind(cfg.model);
  if (!kind.variants) {
    std::string with;
    for (const ModelKind& k : kModelKinds)
      if (k.variants) with += (with.empty() ? "" : ", ") + std::string(k.name);
    throw ConfigError(where + " " + variant + ": model = " + cfg.model + " has no variants (" + with +
                      " have)");
  }
  set_config_value(cfg, std::string(kind.section) + ".variant", variant, where);
}

namespace {

/// A graph side a kind that reads graphs does not read (elsa: the item graph only), asked
/// for by name (graph.<side>_graph = file or knn, or data.<side>_graph_file): it would be
/// read or built and then ignored. The kind's `graphs` column says what it reads. A kind
/// that reads no graph at all (the baselines, ItemKNN, EASE) takes the same command line as
/// the others, so that it runs beside them on the same files (docs/experiments.md,
/// "Defaults on users' own data").
void check_graph_sides(const RunConfig& cfg, const ModelKind& kind) {
  if (*kind.graphs == '\0') return;
  for (const bool user : {true, false}) {
    const std::string side = user ? "user" : "item";
    if (kind_reads_graph(kind, side)) continue;
    const std::string& policy = user ? cfg.graph.user_graph : cfg.graph.item_graph;
    const std::string& file = user ? cfg.data.user_graph_file : cfg.data.item_graph_file;
    const std::string asked = !file.empty()                         ? "data." + side + "_graph_file = " + file
                              : policy == "file" || policy == "knn" ? "graph." + side + "_graph = " + policy
                                                                    : "";
    if (!asked.empty())
      throw ConfigError(asked + ": model = " + cfg.model + " reads only the " + std::string(kind.graphs) +
                        " graph; drop it, or choose a kind that reads it (symgnn models)");
  }
}

}  // namespace

void check_config(const RunConfig& cfg) {
  // The file keys of the data section are read by the ratings CSV/TSV loader only: given
  // with another source they would be ignored without a word.
  const std::string& src = cfg.data.source;
  std::error_code ec;
  const bool mat = std::filesystem::path(src).extension() == ".mat";  // as load_dataset dispatches
  const bool csv_source = src != "synthetic" && !mat && !std::filesystem::is_directory(src, ec);
  if (!csv_source) {
    const DataConfig& d = cfg.data;
    for (const auto& [key, value] : {std::pair<const char*, const std::string*>{"test_file", &d.test_file},
                                     {"user_graph_file", &d.user_graph_file},
                                     {"item_graph_file", &d.item_graph_file},
                                     {"user_features_file", &d.user_features_file},
                                     {"item_features_file", &d.item_features_file}})
      if (!value->empty())
        throw ConfigError(std::string("data.") + key + " = " + *value +
                          ": read only with a ratings CSV/TSV source; data.source = " + src + " is " +
                          (src == "synthetic" ? "the synthetic generator"
                           : mat              ? "a .mat file (its graphs come from the file)"
                                 : "a MovieLens directory (its features come from u.user / u.item)"));
  }
  const auto& dev = cfg.train.device;
  if (dev != "cpu" && dev.rfind("cuda", 0) != 0)
    throw ConfigError("train.device = '" + dev + "': must be cpu, cuda or cuda:N");
  const ModelKind& kind = model_kind(cfg.model);
  if (kind.fit == FitMethod::trained && !kind_serves(kind, cfg.train.objective))
    throw ConfigError("train.objective = " + cfg.train.objective + ": model = " + cfg.model + " trains for " +
                      kind.objectives + " only");
  if (kind.fit == FitMethod::closed_form && kind_serves(kind, "ranking") && cfg.train.ranker != "none" &&
      cfg.train.ranker != "auto")
    throw ConfigError("train.ranker = " + cfg.train.ranker + ": model = " + cfg.model +
                      " is a ranking kind and ranks by its own scores; set train.ranker = none");
  check_graph_sides(cfg, kind);
  const LowRankConfig& lr = cfg.lowrank;
  // The lowrank section's keys bind a kind that reads it; the base section's likewise.
  const bool lowrank = kind_reads_section(kind, "lowrank"), base = kind_reads_section(kind, "base");
  if (lowrank && !lr.id_embedding && lr.prior == "paper")
    throw ConfigError(
        "lowrank.id_embedding = false needs lowrank.prior = encoder (the modules then act on U^(p))");
  if (lowrank && !lr.id_embedding && lr.variant == "A")
    throw ConfigError("lowrank.id_embedding = false needs variant full or G (variant A has no prior module)");
  // The offset (models/baseline/offset_model.h) shifts the rating targets: the model then fits
  // residuals, which are neither rating classes nor a sign of relevance.
  if (base && cfg.base.offset == "baseline" && cfg.train.objective != "rating")
    throw ConfigError(
        "base.offset = baseline needs train.objective = rating (the model fits the residuals of the bias "
        "baseline; train.objective = " +
        cfg.train.objective + ")");
  if (lowrank && lr.offset == "baseline") {
    if (cfg.train.objective != "rating")
      throw ConfigError(
          "lowrank.offset = baseline needs train.objective = rating (the model fits the residuals "
          "of the bias baseline; train.objective = " +
          cfg.train.objective + ")");
    if (lr.decoder == "classes")
      throw ConfigError(
          "lowrank.offset = baseline needs lowrank.decoder = dot or auto: the residuals of the bias "
          "baseline are no rating classes");
  }
}

std::string to_text(RunConfig& cfg) {
  std::ostringstream os;
  os << "preset = " << cfg.preset << "\n";
  cfg.visit_fields([&](const char* k, auto& member, const char*, const Check&) {
    os << k << " = " << format_value(member) << "\n";
  });
  cfg.visit_sections([&](const char* name, auto& s) {
    s.visit([&](const char* k, auto& member, const char*, const Check&) {
      os << name << "." << k << " = " << format_value(member) << "\n";
    });
  });
  return os.str();
}

std::string config_markdown() {
  RunConfig cfg;
  RunConfig rec = preset_config("recommended");
  std::vector<std::string> rec_values;  // in visit order
  rec.visit_fields([&](const char*, auto& member, const char*, const Check&) {
    rec_values.push_back(format_value(member));
  });
  rec.visit_sections([&](const char*, auto& s) {
    s.visit([&](const char*, auto& member, const char*, const Check&) {
      rec_values.push_back(format_value(member));
    });
  });
  size_t field = 0;
  std::ostringstream os;
  os << "# Configuration reference\n\n"
     << "Generated from `include/symgnn/config.h` by `symgnn config --markdown`; do not edit.\n"
     << "Set keys in a config file (`key = value`, or `[section]` headers) passed with `--config`,\n"
     << "or on the command line with `--set section.key=value` (the command line wins).\n\n"
     << "Two presets give every key its starting value: `paper`, the faithful reading of the\n"
     << "paper (the `paper` column), and `recommended`, the paper's model with the extensions\n"
     << "measured to help on every benchmark (docs/models.md, \"Presets\"). With no config a run\n"
     << "starts from `" << default_preset() << "`; `--preset paper`, or `preset = paper` as the first\n"
     << "line of a config file, starts from the paper's reading. The `recommended` column shows\n"
     << "only the keys where it differs.\n\n"
     << "| key | type | paper | recommended | allowed | meaning |\n|---|---|---|---|---|---|\n"
     << "| `preset` | string | `paper` | `recommended` | one of paper\\|recommended | starting point of "
        "every key; must be the first key of a config file |\n";
  auto row = [&](const std::string& key, auto& member, const char* doc, const Check& c) {
    std::string escaped;
    for (char ch : allowed_text(c)) escaped += (ch == '|') ? std::string("\\|") : std::string(1, ch);
    const std::string paper = format_value(member), recommended = rec_values.at(field++);
    os << "| `" << key << "` | " << type_name(member) << " | `" << paper << "` | "
       << (recommended == paper ? "" : "`" + recommended + "`") << " | " << escaped << " | " << doc << " |\n";
  };
  cfg.visit_fields(
      [&](const char* k, auto& member, const char* doc, const Check& c) { row(k, member, doc, c); });
  cfg.visit_sections([&](const char* name, auto& s) {
    s.visit([&](const char* k, auto& member, const char* doc, const Check& c) {
      row(std::string(name) + "." + k, member, doc, c);
    });
  });
  return os.str();
}

}  // namespace symgnn
