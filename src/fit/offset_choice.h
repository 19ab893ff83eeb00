// lowrank.offset = auto (the recommended preset): whether the network learns the ratings
// (its own biases and decoder: rating classes where ratings are a few levels) or the bias
// baseline's residuals (lowrank.offset = baseline with lowrank.biases = false: the shrunk
// baseline fixed, the network's output starting at zero, the dot decoder), chosen on
// validation by two short runs of fit/graph_choice.h, each judged as the run is (the
// combination of train.auto, then the network alone):
//
//   - on a 28 k-rating film set with a trust network the residual network validated 0.7485
//     against 0.7931 for the network of ratings (the baseline 0.7567), test 0.7820 against
//     the baseline's 0.7914 (issue 62); on Douban it validated 0.7351 against 0.7349 and
//     tested 0.7312 against 0.7329 (alone); where ratings are a few per node it stops where
//     the baseline is;
//   - the network of ratings stays where it validates better (ML-100K's rating classes).
//
// The residuals' run comes first; where its network earned nothing on validation
// (Trial::network_learns: alone no better than the baseline, weight 0 in the combination),
// the network of ratings, which must learn what the baseline holds before it can add to it,
// is not tried (`real/ciaodvd`: the residuals' network 0.8937 against the baseline's 0.8936;
// the ratings' run took 92 epochs, 23 s, to reach 1.185), and fit/prepared_data.h stops
// there: the graphs are not tried and the run trains the short run's epochs only. Of the
// five development sets only `real/ciaodvd` stops so; on the others the residuals' network
// learns and both runs are made (Douban's network of ratings wins there).
//
// Only for a lowrank run under train.auto on objective rating with one process, validation
// ratings and at least kMinChoiceEpochs epochs; elsewhere auto is none. The choice is
// written into the config (none, or baseline with lowrank.biases = false), so the folder's
// config.txt and --resume build the model trained.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "fit/graph_choice.h"
#include "symgnn/config.h"
#include "symgnn/dataset.h"
#include "symgnn/progress.h"

namespace symgnn::fitting {

struct OffsetChoice {
  bool tried = false;
  Trial ratings, residuals;    // the network of ratings, of the baseline's residuals
  bool ratings_tried = false;  // false: the residuals' run learned nothing (see below)
  bool residual = false;       // the choice
  int64_t trial_epochs = 0;
  double seconds = 0;
};

/// Resolves cfg.lowrank.offset = auto as above (any other value is left as it is). `cv` as
/// run_trial's (fit/graph_choice.h).
OffsetChoice choose_offset(RunConfig& cfg, const Dataset& ds, const models::ChosenShrinkage& cv, bool may_try,
                           const std::function<void(const std::string&)>& say, const EpochCallback& on_epoch);

/// "train.auto: the network learns the bias baseline's residuals (lowrank.offset = baseline):
/// short runs of at most 100 epochs validate 0.7485 so, 0.7567 on the ratings (alone ...)"
std::string describe(const OffsetChoice& c);
nlohmann::json offset_choice_json(const OffsetChoice& c);

}  // namespace symgnn::fitting
