// Filters of lists (symgnn/item_filter.h): their three file formats and their resolution
// against a model.
#include "symgnn/item_filter.h"

#include <algorithm>
#include <cctype>
#include <set>
#include <string_view>

#include "data/parsers.h"
#include "data/text_reader.h"
#include "symgnn/error.h"
#include "symgnn/trained_model.h"

namespace symgnn {

namespace {

/// The fields of each line of `path`, by the delimiter of its first line (of each line with
/// `per_line`: a file mixing one-field and two-field lines).
template <typename Each>
void each_row(const std::string& path, Each each, bool per_line = false) {
  data::LineReader in(path, /*comments=*/true);
  data::TextLine line;
  std::vector<std::string_view> f;
  bool first = true;
  data::Delimiter d = data::Delimiter::Comma;
  while (in.next(line)) {
    if (first || per_line) d = data::detect_delimiter(line.text);
    data::split_fields(line.text, d, f);
    each(line.number, f, first);
    first = false;
  }
}

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

}  // namespace

ItemAttributes read_item_attributes(const std::string& path) {
  ItemAttributes a;
  a.source = path;
  std::vector<std::string> header;  // the table form's columns (after the id)
  bool table = false;
  std::set<std::string> keys;
  each_row(path, [&](long number, const std::vector<std::string_view>& f, bool first) {
    if (first) {
      // The key=value form has '=' in its second field; else the first line is a header.
      table = f.size() < 2 || f[1].find('=') == std::string_view::npos;
      if (table) {
        for (size_t c = 1; c < f.size(); ++c) {
          if (f[c].empty())
            throw DataError(path, number, "header column " + std::to_string(c + 1) + " has no name");
          header.emplace_back(f[c]);
          if (keys.insert(header.back()).second) a.keys.push_back(header.back());
        }
        return;
      }
    }
    if (f.empty() || f[0].empty()) throw DataError(path, number, "empty item id");
    const std::string id(f[0]);
    if (a.of.count(id)) throw DataError(path, number, "item " + data::quote(id) + " is given twice");
    // A table's row holds every column (an empty field is an empty value): a row cut short is
    // a broken line, not an item without those attributes.
    if (table && f.size() < header.size() + 1)
      throw DataError(path, number,
                      std::to_string(f.size()) + " column(s), the header has " +
                          std::to_string(header.size() + 1) +
                          " (leave a field empty for an item without that attribute)");
    std::map<std::string, std::string>& row = a.of[id];
    for (size_t c = 1; c < f.size(); ++c) {
      std::string key, value;
      if (table) {
        if (c > header.size())
          throw DataError(
              path, number,
              std::to_string(f.size()) + " columns, the header has " + std::to_string(header.size() + 1));
        key = header[c - 1];
        value = std::string(f[c]);
      } else {
        const size_t eq = f[c].find('=');
        if (eq == std::string_view::npos || eq == 0)
          throw DataError(path, number, "field " + data::quote(f[c]) + " is not key=value");
        key = std::string(f[c].substr(0, eq));
        value = std::string(f[c].substr(eq + 1));
        if (keys.insert(key).second) a.keys.push_back(key);
      }
      row[key] = value;
    }
  });
  return a;
}

void read_exclusions(const std::string& path, ItemFilterSpec& spec) {
  each_row(
      path,
      [&](long number, const std::vector<std::string_view>& f, bool first) {
        if (first && ((f.size() == 1 && lower(f[0]) == "item") ||
                      (f.size() == 2 && lower(f[0]) == "user" && lower(f[1]) == "item")))
          return;  // a header
        if (f.size() == 1 && !f[0].empty()) {
          spec.exclude.emplace_back(f[0]);
        } else if (f.size() == 2 && !f[0].empty() && !f[1].empty()) {
          spec.exclude_for.emplace_back(std::string(f[0]), std::string(f[1]));
        } else {
          throw DataError(
              path, number,
              "expected \"item\" or \"user,item\", got " + std::to_string(f.size()) + " field(s)");
        }
      },
      /*per_line=*/true);
  spec.exclude_name = path;
}

void read_candidates(const std::string& path, ItemFilterSpec& spec) {
  spec.has_items = true;
  each_row(path, [&](long number, const std::vector<std::string_view>& f, bool first) {
    if (first && f.size() == 1 && lower(f[0]) == "item") return;  // a header
    if (f.size() != 1 || f[0].empty())
      throw DataError(path, number, "expected one item id, got " + std::to_string(f.size()) + " field(s)");
    spec.items.emplace_back(f[0]);
  });
  spec.items_name = path;
}

void add_where(const std::string& clause, ItemFilterSpec& spec) {
  const size_t eq = clause.find('=');
  if (eq == std::string::npos || eq == 0)
    throw ConfigError("--where " + data::quote(clause) +
                      ": expected key=value (e.g. --where category=books)");
  spec.where.emplace_back(clause.substr(0, eq), clause.substr(eq + 1));
}

ItemFilter make_item_filter(const TrainedModel& model, const ItemFilterSpec& spec,
                            const ItemAttributes* attributes) {
  ItemFilter out;
  if (spec.empty()) return out;
  const data::IdIndex items = data::id_index(model.dataset().items);
  const data::IdIndex users = data::id_index(model.dataset().users);
  const auto item_of = [&](const std::string& id, const std::string& where) {
    const int64_t i = items.find(id);
    if (i < 0) throw DataError(where + ": " + data::quote(id) + " is no item of the model");
    return i;
  };
  const auto n2 = static_cast<size_t>(model.items());
  std::vector<std::string> parts;
  if (spec.has_items || !spec.exclude.empty() || !spec.where.empty()) out.allowed.assign(n2, 1);
  if (spec.has_items) {
    std::fill(out.allowed.begin(), out.allowed.end(), 0);
    for (const std::string& id : spec.items)
      out.allowed[static_cast<size_t>(item_of(id, spec.items_name))] = 1;
    parts.push_back(spec.items_name);
  }
  for (const std::string& id : spec.exclude)
    out.allowed[static_cast<size_t>(item_of(id, spec.exclude_name))] = 0;
  for (const auto& [user, item] : spec.exclude_for) {
    const int64_t u = users.find(user);
    if (u < 0) throw DataError(spec.exclude_name + ": " + data::quote(user) + " is no user of the model");
    out.excluded_for[u].push_back(item_of(item, spec.exclude_name));
  }
  for (auto& [u, list] : out.excluded_for) {
    std::sort(list.begin(), list.end());
    list.erase(std::unique(list.begin(), list.end()), list.end());
  }
  if (!spec.exclude.empty() || !spec.exclude_for.empty()) parts.push_back(spec.exclude_name);
  if (!spec.where.empty()) {
    if (!attributes || attributes->empty())
      throw ConfigError(spec.where_name + " needs item attributes (" + spec.attributes_name + ")");
    for (const auto& [key, value] : spec.where) {
      if (std::find(attributes->keys.begin(), attributes->keys.end(), key) == attributes->keys.end()) {
        std::string known;
        for (const std::string& k : attributes->keys) known += (known.empty() ? "" : ", ") + k;
        throw ConfigError(spec.where_name + " " + data::quote(key + "=" + value) + ": no attribute " +
                          data::quote(key) + " in " + attributes->source + " (it has: " + known + ")");
      }
    }
    // An item the attributes do not list, or list without the key, holds no rule.
    for (size_t i = 0; i < n2; ++i) {
      if (!out.allowed[i]) continue;
      const auto it = attributes->of.find(model.dataset().items.id_of(static_cast<int64_t>(i)));
      bool holds = it != attributes->of.end();
      for (const auto& [key, value] : spec.where) {
        if (!holds) break;
        const auto kv = it->second.find(key);
        holds = kv != it->second.end() && kv->second == value;
      }
      out.allowed[i] = holds ? 1 : 0;
    }
    std::string rules;
    for (const auto& [key, value] : spec.where) rules += (rules.empty() ? "" : " and ") + key + "=" + value;
    parts.push_back(spec.where_name + " " + rules);
  }
  for (size_t p = 0; p < parts.size(); ++p)
    out.what += (p == 0 ? "" : p + 1 == parts.size() ? " and " : ", ") + parts[p];
  return out;
}

}  // namespace symgnn
