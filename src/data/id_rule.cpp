#include "data/id_rule.h"

#include "data/text_reader.h"

namespace symgnn::data {

std::string id_problem(std::string_view id) {
  if (id.empty()) return "is empty";
  if (id.size() > kMaxIdBytes)
    return "is " + std::to_string(id.size()) + " bytes long (at most " + std::to_string(kMaxIdBytes) + ")";
  const auto space = [](char c) { return c == ' ' || c == '\f' || c == '\v'; };
  if (space(id.front()) || space(id.back())) return "has surrounding spaces";
  for (const char ch : id) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == ',') return "holds a comma";
    if (c == '"') return "holds a double quote (quoted fields are not read: the quotes stay part of the id)";
    if (c == '\t') return "holds a tab";
    if (c == '\r' || c == '\n') return "holds a line break";
    if (c < 0x20 || c == 0x7f) {
      static const char* hex = "0123456789abcdef";
      return std::string("holds a control character (byte 0x") + hex[c >> 4] + hex[c & 15] + ")";
    }
  }
  return "";
}

std::string id_refusal(const std::string& what, std::string_view id, const std::string& problem) {
  return what + " id " + quote(id) + " " + problem +
         ", which the files symgnn reads and writes cannot hold; rename the id";
}

}  // namespace symgnn::data
