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
#include "symgnn/trained_model.h"
#include "util/checksum.h"

namespace fs = std::filesystem;

namespace symgnn::infer {

namespace {

nlohmann::json batch_json(const std::vector<Delta::Edge>& batch, int64_t seq) {
  nlohmann::json edits = nlohmann::json::array();
  for (const Delta::Edge& e : batch) {
    nlohmann::json j = {{"side", side_word(e.side)}, {"op", op_word(e.op)}, {"a", e.a}, {"b", e.b}};
    if (e.op == EdgeOp::add) j["weight"] = e.weight;
    if (e.create) j["create"] = true;
    if (!e.features.empty()) j["features"] = e.features;
    edits.push_back(std::move(j));
  }
  return {{"seq", seq}, {"edits", edits}};
}

/// The batch of one record's JSON; DataError at `file`:`line` where a field is missing or
/// of the wrong type.
std::vector<Delta::Edge> batch_of(const nlohmann::json& j, const std::string& file, long line) {
  std::vector<Delta::Edge> out;
  try {
    for (const auto& e : j.at("edits")) {
      Delta::Edge g = graph_edit(e.at("side").get<std::string>(), e.at("op").get<std::string>(),
                                 e.at("a").get<std::string>(), e.at("b").get<std::string>());
      if (e.contains("weight")) g.weight = e.at("weight").get<double>();
      if (e.contains("create")) g.create = e.at("create").get<bool>();
      if (e.contains("features")) g.features = e.at("features").get<std::vector<double>>();
      out.push_back(std::move(g));
    }
  } catch (const nlohmann::json::exception&) {
    throw DataError(file, line, "damaged graph journal record (a field is missing or of the wrong type)");
  } catch (const ConfigError& e) {  // a side or op no edit has
    throw DataError(file, line, std::string("damaged graph journal record (") + e.what() + ")");
  }
  return out;
}

}  // namespace

std::string graph_journal_path(const std::string& dir) {
  const fs::path d = fs::is_regular_file(dir) ? fs::path(dir).parent_path() : fs::path(dir);
  return (d / kGraphJournalFile).string();
}

namespace {

/// Whether the journal at `path` exists; DataError where something other than a regular file
/// (or a link to one) is there: a folder, a FIFO or a dangling link would otherwise read as
/// "no edits", and the model would answer from its unedited graphs.
bool journal_present(const std::string& path) {
  std::error_code ec;
  const fs::file_status link = fs::symlink_status(path, ec);
  if (ec || !fs::exists(link)) return false;
  const fs::file_status target = fs::status(path, ec);
  if (fs::is_regular_file(target)) return true;
  const std::string what = fs::is_symlink(link) && !fs::exists(target) ? "a link to nothing"
                           : fs::is_directory(target)                  ? "a folder"
                           : fs::is_fifo(target)                       ? "a FIFO"
                                                                       : "not a regular file";
  throw DataError(path, 0,
                  "damaged graph journal (" + what +
                      "): the directory's graph edits cannot be read; put the journal back or remove it");
}

/// The batches of the journal text `all` read from `path`, checked record by record.
std::vector<std::vector<Delta::Edge>> parse_journal(const std::string& all, const std::string& path) {
  std::vector<std::vector<Delta::Edge>> out;
  long line = 0;
  for (size_t start = 0; start < all.size();) {
    ++line;
    const size_t end = all.find('\n', start);
    if (end == std::string::npos)
      // Each record is one write() and is acknowledged only after fsync: a line without its
      // newline is an edit no one was told of, safe to drop.
      throw DataError(path, line,
                      "damaged graph journal record (the last line is cut short: a writer stopped mid-write, "
                      "so its edit was never acknowledged); drop it with `truncate -s " +
                          std::to_string(start) + " " + path + "` (docs/graph_edits.md)");
    const std::string text = all.substr(start, end - start);
    start = end + 1;
    if (text.find_first_not_of(" \t\r") == std::string::npos)
      throw DataError(path, line,
                      "damaged graph journal (a blank line: every line is a record; remove it, the records "
                      "around it stay)");
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

/// A descriptor closed (and its lock released) when it goes out of scope.
struct Descriptor {
  int fd = -1;
  ~Descriptor() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

std::vector<std::vector<Delta::Edge>> read_graph_journal(const std::string& dir) {
  const std::string path = graph_journal_path(dir);
  if (!journal_present(path)) return {};
  std::ifstream in(path, std::ios::binary);
  if (!in) throw DataError(path, 0, "cannot read the graph journal");
  const std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return parse_journal(all, path);
}

TrainedModel replay_unseen(const TrainedModel& model, const std::vector<Delta::Edge>& unseen,
                           const std::string& dir) {
  try {
    return apply_graph_edits(model, unseen);
  } catch (const ConfigError& e) {
    throw DataError(
        graph_journal_path(dir), 0,
        std::string("a record appended since the model was loaded cannot be replayed: ") + e.what());
  }
}

int64_t graph_journal_records(const std::string& dir) {
  return static_cast<int64_t>(read_graph_journal(dir).size());
}

std::vector<Delta::Edge> journal_edits(const std::vector<std::vector<Delta::Edge>>& batches) {
  std::vector<Delta::Edge> out;
  for (const auto& b : batches) out.insert(out.end(), b.begin(), b.end());
  return out;
}

DataError journal_replay_error(const std::string& path, const std::vector<std::vector<Delta::Edge>>& batches,
                               const std::string& message) {
  const size_t close = message.find("]: ");
  if (message.rfind("edits[", 0) != 0 || close == std::string::npos || close <= 6 || close >= 26 ||
      message.find_first_not_of("0123456789", 6) != close)
    return DataError(path, 0, message);
  size_t k = std::stoul(message.substr(6, close - 6));
  for (size_t b = 0; b < batches.size(); ++b) {
    if (k < batches[b].size())
      return DataError(path, static_cast<long>(b) + 1,
                       "edits[" + std::to_string(k) + "]" + message.substr(close + 1));
    k -= batches[b].size();
  }
  return DataError(path, 0, message);
}

int64_t append_graph_journal(const std::string& dir, const std::vector<Delta::Edge>& batch, int64_t known,
                             const JournalCheck& check) {
  const std::string path = graph_journal_path(dir);
  // A folder, FIFO or dangling link is refused, not created through. Without a journal the
  // batch is checked before the file is made, so that a refused edit leaves no empty
  // journal behind; it is checked again below only if another writer made one meanwhile.
  const bool checked_without_journal = !journal_present(path) && known == 0;
  if (checked_without_journal && check) check({});
  Descriptor file;
  file.fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (file.fd < 0) throw Error(path + ": cannot open the graph journal: " + std::strerror(errno));
  // Held from the reading to the write (and released by the close): two writers never give
  // two records one number, and each checks its batch against every record before its own.
  if (::flock(file.fd, LOCK_EX) != 0)
    throw Error(path + ": cannot lock the graph journal: " + std::strerror(errno));
  std::string all;
  char buf[1 << 16];
  off_t at = 0;
  ssize_t n = 0;
  while ((n = ::pread(file.fd, buf, sizeof buf, at)) > 0) {
    all.append(buf, static_cast<size_t>(n));
    at += n;
  }
  if (n < 0) throw Error(path + ": cannot read the graph journal: " + std::strerror(errno));
  const std::vector<std::vector<Delta::Edge>> held = parse_journal(all, path);  // damaged: refused
  const auto records = static_cast<int64_t>(held.size());
  if (records < known)
    throw DataError(path, 0,
                    "the graph journal holds " + std::to_string(records) + " record(s), fewer than the " +
                        std::to_string(known) +
                        " the model replayed (it was replaced or cut since): reload the model, then edit");
  if (check && !(checked_without_journal && records == 0)) {
    std::vector<Delta::Edge> unseen;
    for (size_t k = static_cast<size_t>(known); k < held.size(); ++k)
      unseen.insert(unseen.end(), held[k].begin(), held[k].end());
    check(unseen);
  }
  const std::string json = batch_json(batch, records + 1).dump();
  const std::string record = json + "\t" + sha256_hex(json) + "\n";
  // One write of the whole line: a crash leaves a line cut short at worst, which
  // read_graph_journal refuses by name (and which was never acknowledged).
  const ssize_t written = ::write(file.fd, record.data(), record.size());
  if (written != static_cast<ssize_t>(record.size()) || ::fsync(file.fd) != 0)
    throw Error(path + ": cannot write the graph journal: " + std::strerror(errno));
  return records + 1;
}

}  // namespace symgnn::infer
