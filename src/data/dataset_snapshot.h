// The data a model directory pins (docs/reliability.md, "Self-contained model
// directories"): `symgnn train --out DIR` writes DIR/dataset.bin, the Dataset it trained on
// (ids, the three splits, the resolved graphs, the side features), sealed with a checksum
// (util/checksum.h). Loading a model reads it instead of the training files, so a directory
// copied to another machine predicts, recommends, evaluates and serves without them, and
// files edited after training change nothing. `--resume` compares the files it reads again
// with it, part by part, and names the file whose part differs.
#pragma once

#include <string>

#include "symgnn/dataset.h"

namespace symgnn {

struct DataConfig;

namespace data {

/// The snapshot's name inside a model directory.
inline constexpr const char* kSnapshotFile = "dataset.bin";

/// The item names a model directory keeps beside its snapshot (the titles its data source
/// carries, data/item_names.h), in read_item_names' format: `symgnn serve` shows them with
/// the directory copied away from that source.
inline constexpr const char* kItemNamesFile = "item_names.csv";

/// Writes `ds` to `path` atomically, sealed.
void write_snapshot(const Dataset& ds, const std::string& path);

/// Reads what write_snapshot wrote: CheckpointError naming `path` when the file is damaged
/// (its checksum), DataError when its contents break a Dataset invariant.
Dataset read_snapshot(const std::string& path);

/// The Dataset in a snapshot's payload (the bytes behind the seal), `name` naming it in
/// errors: DataError for anything that is not one (fuzz/fuzz_dataset_snapshot.cpp).
Dataset parse_snapshot(const std::string& payload, const std::string& name);

/// The first part of `now` that differs from `pinned` (the ratings and ids, each side's graph
/// or features), as "<config key> <file>: <what> differ from the file the run trained on";
/// "" when they are equal. `cfg` names the files each part was read from.
std::string first_difference(const Dataset& pinned, const Dataset& now, const DataConfig& cfg);

/// SHA-256 of the snapshot's bytes: equal for equal data (the ranks of a multi-process run
/// compare theirs, train/distributed.h).
std::string fingerprint(const Dataset& ds);

/// `ds` with its validation ratings appended to its training ratings (the data of a model
/// retrained on all training ratings, train.protocol = retrain).
Dataset with_validation_in_train(const Dataset& ds);

}  // namespace data
}  // namespace symgnn
