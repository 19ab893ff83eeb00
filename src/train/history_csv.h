// history.csv, a run's training curve (DIR/run<r>/history.csv): its one writer and its one
// reader. Format 2 (this release) starts with a comment line naming the format, then the
// column names, then one row per epoch:
//
//   # symgnn history.csv, format 2: one row per epoch, columns by name
//   epoch,loss,lr,seconds,peak_memory_bytes,train_rmse,val_rmse,test_rmse,val_mae,...
//
// The figures are the epoch metrics of train/epoch_metrics.h by name, the rankings only
// where the run measured them; "nan" where an epoch did not. Readers find columns by name:
// format 1 (no comment line; epoch,loss,train_rmse,val_rmse,test_rmse,lr,seconds,
// peak_memory_bytes first) reads the same. Torch-free.
#pragma once

#include <string>
#include <vector>

namespace symgnn::train {

struct EpochRecord;  // train/run_state.h

/// The current format's number, written in the comment line.
inline constexpr int kHistoryFormat = 2;

/// Writes the epochs atomically (util/atomic_file.h).
void write_history_csv(const std::string& path, const std::vector<EpochRecord>& history);

/// A history.csv as read back.
struct HistoryTable {
  int format = 1;  // 1: no comment line
  std::vector<std::string> columns;
  std::vector<std::vector<double>> rows;  // one per epoch, a value per column (NaN: "nan")

  /// The named column's index, or -1.
  int column(const std::string& name) const;
};

/// Reads `path`; DataError naming the file and line for a row of another width, a cell that
/// is no number or a format newer than this release's.
HistoryTable read_history_csv(const std::string& path);

}  // namespace symgnn::train
