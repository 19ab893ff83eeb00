/// @file
/// The model directory's lifecycle in symgnn::fit: opened (checked, locked, a killed run's
/// temporaries removed, config.txt written), its data pinned, its files written at the end.
/// Rank 0 only: the other ranks of a group read it to resume and write nothing.
#pragma once

#include <optional>

#include "fit/fitted.h"
#include "symgnn/config.h"
#include "symgnn/dataset.h"
#include "symgnn/model_kinds.h"
#include "util/output_lock.h"

namespace symgnn::fitting {

/// Checks o.metrics_out and, given o.out_dir, locks it for the run (its lock returned):
/// refuses a folder holding a run unless o.overwrite (which clears it) or o.resume (of a
/// run whose checkpoints remain), and writes config.txt for a new run. Nothing without
/// an out_dir.
std::optional<OutputLock> open_run_folder(const RunConfig& cfg, const FitOptions& o, const ModelKind& kind);

/// The data the run trains on, pinned in the folder (data/dataset_snapshot.h): written when
/// a run starts, checked on --resume; and config.txt written again where the data decided
/// a key (`auto` values resolved: cfg against cfg_in), so that loading and --resume build
/// the same model.
void pin_run(const Dataset& ds, const RunConfig& cfg, const RunConfig& cfg_in, const FitOptions& o);

/// Where `dir` holds nothing but what open_run_folder wrote (config.txt, its manifest and
/// the lock's file), removes config.txt and the manifest: a run that failed before it started
/// (bad data, a refused setting) leaves the folder as it found it, so that the same command
/// runs again once the input is fixed, without --overwrite.
void forget_unstarted_run(const std::string& dir);

/// The run's files: metrics.json, predictions/{val,test}.csv, the checkpoints pruned
/// (train.keep_checkpoints = false), a line naming them; and o.metrics_out.
void write_run_folder(Fitted& f, const Dataset& ds, const RunConfig& cfg, const FitOptions& o,
                      const ModelKind& kind, bool has_ranker);

}  // namespace symgnn::fitting
