/// @file
/// symgnn::fit's data: loaded, its graphs built, described, and what train.auto and the
/// data's size decide about the config settled on it (implicit data trains for ranking,
/// lowrank.prior = auto, what the network learns and each side's graph by short runs).
#pragma once

#include <memory>
#include <vector>

#include "fit/cold_list_choice.h"
#include "fit/graph_choice.h"
#include "fit/graph_worth.h"
#include "fit/offset_choice.h"
#include "models/baseline/bias_fit.h"
#include "symgnn/config.h"
#include "symgnn/dataset.h"
#include "symgnn/fit.h"
#include "symgnn/model_kinds.h"

namespace symgnn::train {
class ProcessGroup;
}

namespace symgnn::fitting {

struct PreparedData {
  Dataset ds;
  /// The bias baseline's shrinkage by cross-validation on ds.train (models/baseline/bias_fit.h),
  /// chosen once where the run has a consumer for it (needs_bias_shrinkage in
  /// prepared_data.cpp) and handed to each: train.auto's graph worth, short runs and guard,
  /// the bias offset (through the trainer), the baseline's figures beside the model. Null:
  /// none.
  models::ChosenShrinkage bias_shrinkage;
  std::vector<GraphWorth> graph_worths;  // train.auto: each graph's worth by a proxy (rank 0)
  GraphChoice graph_choice;              // train.auto: each side's graph by short runs (rank 0, one process)
  OffsetChoice offset_choice;            // lowrank.offset = auto: what the network learns, by short runs
  int64_t epochs_from_short_run = 0;     // > 0: train.epochs cut to the short run's best (see prepare_data)
  ColdListChoice cold_lists;             // train.cold_lists = auto: users without ratings' lists
  /// train.continue_short_run: the state of the short run whose config the run ended with
  /// (its epochs and patience aside), which the selection phase continues; null where none
  /// is (no short run, two sides' graphs dropped, a run cut to its short run's best epoch).
  std::shared_ptr<train::WarmStart> warm_start;
};

/// Loads cfg's data and settles cfg on it (the keys it decides are rewritten in cfg). Lines
/// for people go to o.log on rank 0; a group's ranks agree on the data read.
PreparedData prepare_data(RunConfig& cfg, const FitOptions& o, const ModelKind& kind, bool rank0,
                          int64_t world_size, train::ProcessGroup* group);

}  // namespace symgnn::fitting
