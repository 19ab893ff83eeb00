#include "train/history_csv.h"

#include <fstream>
#include <sstream>

#include "data/text_reader.h"
#include "symgnn/error.h"
#include "symgnn/metrics.h"
#include "train/epoch_metrics.h"
#include "train/run_state.h"
#include "util/atomic_file.h"

namespace symgnn::train {

namespace {

constexpr const char* kFormatLine = "# symgnn history.csv, format ";

std::vector<std::string> split_commas(const std::string& line) {
  std::vector<std::string> cells;
  std::stringstream ss(line);
  std::string cell;
  while (std::getline(ss, cell, ',')) cells.push_back(cell);
  if (!line.empty() && line.back() == ',') cells.emplace_back();
  return cells;
}

}  // namespace

void write_history_csv(const std::string& path, const std::vector<EpochRecord>& history) {
  // Every prediction figure; a ranking figure only where some epoch measured it.
  std::vector<std::string> figures;
  for (const std::string& name : epoch_metric_names()) {
    const MetricName m = parse_metric_name(name);
    bool measured = !m.row || m.row->needs != MetricNeeds::ranking;
    for (const auto& r : history) measured = measured || r.metrics.count(name) > 0;
    if (measured) figures.push_back(name);
  }
  std::ostringstream os;
  os << kFormatLine << kHistoryFormat << ": one row per epoch, columns by name\n";
  os << "epoch,loss,lr,seconds,peak_memory_bytes";
  for (const auto& name : figures) os << "," << name;
  os << "\n";
  os.precision(8);
  for (const auto& r : history) {
    os << r.epoch << "," << r.loss << "," << r.lr << "," << r.seconds << "," << r.peak_memory_bytes;
    for (const auto& name : figures) os << "," << r.metric(name);
    os << "\n";
  }
  write_text_atomic(path, os.str());
}

int HistoryTable::column(const std::string& name) const {
  for (size_t c = 0; c < columns.size(); ++c)
    if (columns[c] == name) return static_cast<int>(c);
  return -1;
}

HistoryTable read_history_csv(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw DataError(path, 0, "cannot open the training history");
  HistoryTable t;
  std::string line;
  long n = 0;
  bool header = true;
  while (std::getline(in, line)) {
    ++n;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    if (line[0] == '#') {
      const std::string prefix = kFormatLine;
      int64_t format = 0;
      if (line.compare(0, prefix.size(), prefix) == 0) {
        const size_t end = line.find(':', prefix.size());
        if (!data::to_int(line.substr(prefix.size(), end - prefix.size()), format) || format < 1)
          throw DataError(path, n, "unreadable format line " + data::quote(line));
        if (format > kHistoryFormat)
          throw DataError(path, n,
                          "history format " + std::to_string(format) + " is newer than this release's (" +
                              std::to_string(kHistoryFormat) + ")");
        t.format = static_cast<int>(format);
      }
      continue;
    }
    std::vector<std::string> cells = split_commas(line);
    if (header) {
      t.columns = cells;
      header = false;
      continue;
    }
    if (cells.size() != t.columns.size())
      throw DataError(
          path, n,
          std::to_string(cells.size()) + " cells where the header names " + std::to_string(t.columns.size()));
    std::vector<double> row(cells.size());
    for (size_t c = 0; c < cells.size(); ++c)
      if (!data::to_double(cells[c], row[c]))
        throw DataError(path, n, t.columns[c] + " is no number: " + data::quote(cells[c]));
    t.rows.push_back(std::move(row));
  }
  return t;
}

}  // namespace symgnn::train
