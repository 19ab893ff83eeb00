#include "data/item_names.h"

#include <filesystem>
#include <vector>

#include "data/dataset_snapshot.h"
#include "data/text_reader.h"
#include "symgnn/error.h"
#include "util/checksum.h"

namespace fs = std::filesystem;

namespace symgnn::data {

std::string latin1_to_utf8(const std::string& bytes) {
  std::string out;
  out.reserve(bytes.size());
  for (const char c : bytes) {
    const auto b = static_cast<unsigned char>(c);
    if (b < 0x80) {
      out.push_back(c);
    } else {
      out.push_back(static_cast<char>(0xC0 | (b >> 6)));
      out.push_back(static_cast<char>(0x80 | (b & 0x3F)));
    }
  }
  return out;
}

namespace {

/// "id<sep>name<sep>..." lines of a MovieLens file: the second field of each, as UTF-8.
ItemNames movielens_titles(const std::string& path, Delimiter d) {
  ItemNames names;
  LineReader in(path, /*comments=*/false);
  TextLine line;
  std::vector<std::string_view> fields;
  while (in.next(line)) {
    split_fields(line.text, d, fields);
    if (fields.size() < 2 || fields[0].empty())
      throw DataError(path + ":" + std::to_string(line.number) + ": expected 'id" +
                      (d == Delimiter::Pipe ? "|" : "::") + "title...', got " + quote(line.text));
    names[std::string(fields[0])] = latin1_to_utf8(std::string(fields[1]));
  }
  return names;
}

}  // namespace

ItemNames read_item_names(const std::string& path) {
  ItemNames names;
  LineReader in(path, /*comments=*/true);
  TextLine line;
  bool first = true;
  while (in.next(line)) {
    const std::string_view text = line.text;
    const size_t cut = text.find_first_of("\t,;");
    const std::string where = path + ":" + std::to_string(line.number) + ": ";
    if (cut == std::string_view::npos)
      throw DataError(where + "expected 'id,name', got " + quote(text) + " (no delimiter)");
    std::vector<std::string_view> id_field;
    split_fields(text.substr(0, cut), Delimiter::Comma, id_field);
    const std::string id(id_field.empty() ? std::string_view() : id_field.front());
    std::string name(text.substr(cut + 1));
    while (!name.empty() && name.front() == ' ') name.erase(name.begin());
    if (name.size() >= 2 && name.front() == '"' && name.back() == '"') name = name.substr(1, name.size() - 2);
    const bool header = first && (id == "id" || id == "item" || id == "item_id");
    first = false;
    if (header) continue;
    if (id.empty()) throw DataError(where + "empty id in " + quote(text));
    if (name.empty()) throw DataError(where + "item " + quote(id) + " has no name");
    if (!names.emplace(id, name).second) throw DataError(where + "item " + quote(id) + " is named twice");
  }
  return names;
}

ItemNames source_item_names(const std::string& source) {
  std::error_code ec;
  if (!fs::is_directory(source, ec)) return {};
  const fs::path dir(source);
  if (fs::is_regular_file(dir / "u.item", ec))
    return movielens_titles((dir / "u.item").string(), Delimiter::Pipe);
  if (fs::is_regular_file(dir / "movies.dat", ec))
    return movielens_titles((dir / "movies.dat").string(), Delimiter::DoubleColon);
  return {};
}

ItemNames model_item_names(const std::string& model_dir, const std::string& names_file,
                           const std::string& source) {
  if (!names_file.empty()) return read_item_names(names_file);
  const std::string kept = (fs::path(model_dir) / kItemNamesFile).string();
  if (!model_dir.empty() && fs::is_regular_file(kept)) {
    read_verified_file(kept);  // a damaged file is refused, naming it
    return read_item_names(kept);
  }
  return source_item_names(source);
}

}  // namespace symgnn::data
