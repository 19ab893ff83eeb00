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

#include <string>
#include <vector>

#include "symgnn/graph_edit.h"

namespace symgnn::infer {

inline constexpr const char* kGraphJournalFile = "graph_journal.jsonl";

/// The batches of the journal of model directory `dir` (or of the directory of `dir`, a
/// model.pt), in order; none where it has no
/// journal. A line that is not a record (torn, edited, its checksum or sequence number
/// wrong) is a DataError naming the file and line: a damaged journal is refused whole.
std::vector<std::vector<GraphEdit>> read_graph_journal(const std::string& dir);

/// The journal's path for the model at `dir` (its directory, or its model.pt).
std::string graph_journal_path(const std::string& dir);

/// The edits of every batch, in order.
std::vector<GraphEdit> journal_edits(const std::vector<std::vector<GraphEdit>>& batches);

/// Appends `batch` as the next record, numbered after the records the file holds (counted
/// under an exclusive lock of the file, so that a server and `symgnn graph edit` never number
/// two records alike), and syncs it to disk. Returns its number. Throws Error naming the file
/// when it cannot.
int64_t append_graph_journal(const std::string& dir, const std::vector<GraphEdit>& batch);

}  // namespace symgnn::infer
