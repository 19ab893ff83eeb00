// lowrank.prior = auto, the recommended preset's choice of prior module by the data's size
// (docs/scale.md, "The defaults at scale"). The GC-MC-style prior encoder gives the best
// RMSE on every benchmark, but it holds about 32 copies of a prior_width-wide row per node
// (the free embeddings, their gradients, Adam's moments, the moving average, the class
// blocks' activations): 7.9 GB for 120,000 nodes at width 500, measured. Where that would
// exceed kAutoPriorBudgetBytes, the run trains the configuration whose memory the scale
// work measured instead (the paper's prior, hidden at most 32, the dot decoder, one training
// phase: 116 bytes per training rating, 100 M ratings in 16.2 GB), and a note says so.
#pragma once

#include <cstdint>
#include <string>

#include "symgnn/config.h"

namespace symgnn::fitting {

/// The memory the prior encoder may take before auto gives it up: a third of a 24 GB
/// machine, so that the data, the evaluation and the other processes fit beside it.
inline constexpr int64_t kAutoPriorBudgetBytes = int64_t{8} << 30;
/// The encoder's measured peak (symgnn train, the recommended preset, generated sets of
/// 100,000 x 20,000 with 0.9 M and 4.5 M training ratings: 7.92 and 8.77 GB): bytes per
/// node and unit of prior_width, and bytes per training rating.
inline constexpr int64_t kEncoderBytesPerNodeUnit = 128;
inline constexpr int64_t kEncoderBytesPerRating = 236;
/// The hidden width of the fallback: what bench/bench_scale.cpp measures at 100 M ratings.
inline constexpr int64_t kFallbackHidden = 32;
/// The fallback's early-stopping patience (train.patience, at most this): its free id
/// embeddings fit a wide, sparse catalogue within a few epochs and overfit from there (the
/// generated 20,000 x 260,000 set's best validation epoch is the 3rd), so the preset's 100
/// epochs of patience only add time and memory: there 6 min 54 s and 5.16 GB against
/// 2 min 42 s and 3.36 GB with 20, the same model (docs/experiments.md).
inline constexpr int64_t kFallbackPatience = 20;

/// auto's width on sparse data: prior_width becomes kAutoWidthPerRating x the ratings per
/// node of the denser side (max(ratings / users, ratings / items)), within
/// [max(kMinAutoWidth, 4 x the prior's classes), prior_width]. A node aggregates the
/// embeddings of what it rated, so the width pays where nodes rate many: the benchmarks and
/// a 610-user film set (125 ratings a user) keep 500 (there 148 instead of 500 cost 0.03 of
/// validation RMSE), while a catalogue where users and items both have two or three
/// ratings (a 16 k-item set with 57 k ratings) gets about 50 instead of 500: the encoder's
/// per-node state (128 bytes a unit of width) then grows with the ratings, not with the
/// nodes, and the run takes seconds instead of minutes with the same validation RMSE
/// (docs/experiments.md, "Defaults on users' own data").
inline constexpr double kAutoWidthPerRating = 16;
inline constexpr int64_t kMinAutoWidth = 32;

/// The encoder's estimated peak in bytes for cfg's prior_width on this data.
int64_t encoder_peak_estimate(const LowRankConfig& lr, int64_t nodes, int64_t train_ratings);

/// Resolves lowrank.prior = auto in place for a low-rank model on `users` x `items` with
/// `train_ratings`: encoder within the budget, else the paper's prior with the id embedding,
/// hidden min(hidden, 32), the dot decoder, one training phase (protocol = retrain becomes
/// early_stop: its second phase holds a second copy of the model's rating structures) and
/// patience min(patience, kFallbackPatience).
/// `classes`: the rating classes of the per-class prior (at least 4 columns of width each).
/// Returns the note to print ("" when the encoder is kept at its width, or the config does
/// not say auto).
std::string resolve_prior(RunConfig& cfg, int64_t users, int64_t items, int64_t train_ratings,
                          int64_t classes = 5);

}  // namespace symgnn::fitting
