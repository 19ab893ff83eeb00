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

/// Appends `batch` as the next record (sequence number `seq`, from 1) and syncs it to disk.
/// Throws Error naming the file when it cannot.
void append_graph_journal(const std::string& dir, const std::vector<GraphEdit>& batch, int64_t seq);

}  // namespace symgnn::infer
