// One seed, derived seeds (LightGBM's Config::Set habit): the run seed determines the
// parameter initialisation, the dropout stream and the mini-batch order; the data split has its own seed
// (data.split_seed) so that every run of a sweep sees the same split.
#pragma once

#include <cstdint>

namespace symgnn::train {

struct RunSeeds {
  uint64_t init;     // torch::manual_seed before building the model
  uint64_t dropout;  // reseeded before the first epoch
  uint64_t batches;  // the order of the training pairs in mini-batch epochs (train/minibatch.h)
};

/// Seeds of run `run` (0-based) of a sweep starting at `base_seed`.
RunSeeds derive_seeds(int64_t base_seed, int64_t run);

}  // namespace symgnn::train
