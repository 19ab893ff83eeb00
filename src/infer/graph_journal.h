/// @file
/// The graph edits a served model accepted (symgnn/graph_edit.h), kept in its directory so
/// that none is lost: DIR/graph_journal.jsonl, append-only, one batch of edits per line,
///
///   {"seq":N,"edits":[{"side":"user","op":"add","a":"ann","b":"bob","weight":1},...]}<TAB><sha256 of the
///   JSON>
///
/// each line written whole by one write() and fsync'ed before the edit is answered.
/// TrainedModel::load replays the journal (every batch in order) after the model's own
/// files, so a restart, a reload or any command reading the directory sees the edited
/// graphs; `symgnn graph compact` folds it into a new directory's data.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "symgnn/error.h"
#include "symgnn/graph_edit.h"

namespace symgnn {
class TrainedModel;
}

namespace symgnn::infer {

inline constexpr const char* kGraphJournalFile = "graph_journal.jsonl";

/// The batches of the journal of model directory `dir` (or of the directory of `dir`, a
/// model.pt), in order; none where it has no
/// journal. A line that is not a record (torn, edited, its checksum or sequence number
/// wrong) is a DataError naming the file and line: a damaged journal is refused whole.
std::vector<std::vector<Delta::Edge>> read_graph_journal(const std::string& dir);

/// The journal's path for the model at `dir` (its directory, or its model.pt).
std::string graph_journal_path(const std::string& dir);

/// The edits of every batch, in order.
std::vector<Delta::Edge> journal_edits(const std::vector<std::vector<Delta::Edge>>& batches);

/// The error of a journal (at `path`) that does not replay: apply_graph_edits' message
/// "edits[K]: ..." counts over the records run together; the DataError names the record's
/// line and the edit's place in it ("graph_journal.jsonl:3: edits[0]: ...").
DataError journal_replay_error(const std::string& path, const std::vector<std::vector<Delta::Edge>>& batches,
                               const std::string& message);

/// Checks a batch against the journal as it is when it would be appended: `unseen` holds the
/// edits of the records the caller's model has not replayed (those past the first `known`),
/// in order; it throws to refuse the batch.
using JournalCheck = std::function<void(const std::vector<Delta::Edge>& unseen)>;

/// Appends `batch` as the next record and syncs it to disk; returns its number. Under an
/// exclusive lock of the file, held from the reading to the write, so that two writers (a
/// server and `symgnn graph edit`) neither number two records alike nor append an edit that
/// the other's records make impossible:
///
///   - the journal is read whole first; a damaged one (a record cut short by a writer
///     stopped mid-write, a wrong checksum or number, a path that is not a regular file) is
///     refused naming the file and line, and nothing is appended;
///   - `check(unseen)` then sees the records appended since the caller's model read
///     `known` of them; it throws to refuse, and nothing is appended. A journal holding
///     fewer than `known` records (replaced since) is refused.
///
/// Throws DataError (the journal damaged) or Error (it cannot be opened or written) naming
/// the file; `check`'s own exception as it is.
int64_t append_graph_journal(const std::string& dir, const std::vector<Delta::Edge>& batch, int64_t known = 0,
                             const JournalCheck& check = nullptr);

/// The number of records of the journal of `dir` that a load of the directory replayed, for
/// a model loaded by `load` (it reads the directory): the journal is counted before and
/// after, and the load repeated while a writer appended in between, so that the count is
/// the load's own (the journal only grows). Returns the loaded value and its count.
template <typename Loaded, typename Load>
std::pair<Loaded, int64_t> load_with_journal_count(const std::string& dir, const Load& load);

/// `model` with `unseen` applied: the records another writer appended to the journal of
/// `dir` since the model was loaded. DataError naming the journal where they cannot be (a
/// journal edited by hand, or not this model's).
TrainedModel replay_unseen(const TrainedModel& model, const std::vector<Delta::Edge>& unseen,
                           const std::string& dir);

/// The number of records the journal of `dir` holds now (0 without one); DataError where it
/// is damaged.
int64_t graph_journal_records(const std::string& dir);

template <typename Loaded, typename Load>
std::pair<Loaded, int64_t> load_with_journal_count(const std::string& dir, const Load& load) {
  for (int attempt = 0;; ++attempt) {
    const int64_t before = graph_journal_records(dir);
    Loaded loaded = load();
    const int64_t after = graph_journal_records(dir);
    // Equal counts: nothing was appended while the load read the journal.
    if (before == after) return {std::move(loaded), after};
    if (attempt == 8)
      throw Error(graph_journal_path(dir) +
                  ": the graph journal grew during each of 9 loads in a row; try again");
  }
}

}  // namespace symgnn::infer
