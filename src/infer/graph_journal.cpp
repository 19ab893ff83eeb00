#include "infer/graph_journal.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "symgnn/error.h"
#include "util/checksum.h"

namespace fs = std::filesystem;

namespace symgnn::infer {

namespace {

nlohmann::json batch_json(const std::vector<GraphEdit>& batch, int64_t seq) {
  nlohmann::json edits = nlohmann::json::array();
  for (const GraphEdit& e : batch) {
    nlohmann::json j = {{"side", e.side}, {"op", e.op}, {"a", e.a}, {"b", e.b}};
    if (e.op == "add") j["weight"] = e.weight;
    if (e.create) j["create"] = true;
    if (!e.features.empty()) j["features"] = e.features;
    edits.push_back(std::move(j));
  }
  return {{"seq", seq}, {"edits", edits}};
}

/// The batch of one record's JSON; DataError at `file`:`line` where a field is missing or
/// of the wrong type.
std::vector<GraphEdit> batch_of(const nlohmann::json& j, const std::string& file, long line) {
  std::vector<GraphEdit> out;
  try {
    for (const auto& e : j.at("edits")) {
      GraphEdit g;
      g.side = e.at("side").get<std::string>();
      g.op = e.at("op").get<std::string>();
      g.a = e.at("a").get<std::string>();
      g.b = e.at("b").get<std::string>();
      if (e.contains("weight")) g.weight = e.at("weight").get<double>();
      if (e.contains("create")) g.create = e.at("create").get<bool>();
      if (e.contains("features")) g.features = e.at("features").get<std::vector<double>>();
      out.push_back(std::move(g));
    }
  } catch (const nlohmann::json::exception&) {
    throw DataError(file, line, "damaged graph journal record (a field is missing or of the wrong type)");
  }
  return out;
}

}  // namespace

std::string graph_journal_path(const std::string& dir) {
  const fs::path d = fs::is_regular_file(dir) ? fs::path(dir).parent_path() : fs::path(dir);
  return (d / kGraphJournalFile).string();
}

std::vector<std::vector<GraphEdit>> read_graph_journal(const std::string& dir) {
  const std::string path = graph_journal_path(dir);
  std::vector<std::vector<GraphEdit>> out;
  if (!fs::is_regular_file(path)) return out;
  std::ifstream in(path, std::ios::binary);
  if (!in) throw DataError(path, 0, "cannot read the graph journal");
  const std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  long line = 0;
  for (size_t start = 0; start < all.size();) {
    ++line;
    const size_t end = all.find('\n', start);
    if (end == std::string::npos)
      throw DataError(path, line, "damaged graph journal record (the last line is cut short)");
    const std::string text = all.substr(start, end - start);
    start = end + 1;
    const size_t tab = text.rfind('\t');
    if (tab == std::string::npos || sha256_hex(std::string_view(text).substr(0, tab)) != text.substr(tab + 1))
      throw DataError(path, line, "damaged graph journal record (its checksum does not match)");
    const nlohmann::json j = nlohmann::json::parse(text.substr(0, tab), nullptr, false);
    if (j.is_discarded() || !j.is_object() || !j.contains("seq") || !j["seq"].is_number_integer() ||
        j["seq"].get<int64_t>() != static_cast<int64_t>(out.size()) + 1)
      throw DataError(path, line,
                      "damaged graph journal record (not record " + std::to_string(out.size() + 1) + ")");
    out.push_back(batch_of(j, path, line));
  }
  return out;
}

std::vector<GraphEdit> journal_edits(const std::vector<std::vector<GraphEdit>>& batches) {
  std::vector<GraphEdit> out;
  for (const auto& b : batches) out.insert(out.end(), b.begin(), b.end());
  return out;
}

int64_t append_graph_journal(const std::string& dir, const std::vector<GraphEdit>& batch) {
  const std::string path = graph_journal_path(dir);
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) throw Error(path + ": cannot open the graph journal: " + std::strerror(errno));
  // Held while the records are counted and the next one written, so that two writers (a
  // server and `symgnn graph edit`, or two threads) never give two records one number.
  if (::flock(fd, LOCK_EX) != 0) {
    const int err = errno;
    ::close(fd);
    throw Error(path + ": cannot lock the graph journal: " + std::strerror(err));
  }
  int64_t records = 0;
  char buf[1 << 16];
  off_t at = 0;
  for (ssize_t n; (n = ::pread(fd, buf, sizeof buf, at)) > 0; at += n)
    records += std::count(buf, buf + n, '\n');
  const std::string json = batch_json(batch, records + 1).dump();
  const std::string record = json + "\t" + sha256_hex(json) + "\n";
  // One write of the whole line: a crash leaves a line cut short at worst, which
  // read_graph_journal refuses by name.
  const ssize_t n = ::write(fd, record.data(), record.size());
  const bool synced = n == static_cast<ssize_t>(record.size()) && ::fsync(fd) == 0;
  const int err = errno;
  ::close(fd);  // and the lock with it
  if (!synced) throw Error(path + ": cannot write the graph journal: " + std::strerror(err));
  return records + 1;
}

}  // namespace symgnn::infer
