// train.auto = on, for a trained rating model: each side's graph chosen on validation by
// short runs. The proxy of fit/graph_worth.h sees only what a graph says about the ratings
// directly; the network uses a graph in other ways (Flixster's user graph is worth -0.0005
// by the proxy, yet without it the network validates 0.03 worse). So the choice trains:
//
//   - one short run with every graph as resolved, and one per side whose graph key is
//     `auto` and whose graph is not the identity, with that side's graph the identity;
//   - a short run is the run's own config for kTrialEpochDivisor-th of its epochs (at
//     least kMinTrialEpochs), its patience a fifth of those (at least kMinTrialPatience,
//     at most the run's), one seed, early stopping, no files;
//   - each is judged as the run is: the combination with the bias baseline fitted to the
//     validation ratings (fit/baseline_guard.h), its validation RMSE, ties (within
//     kTrialTie) broken by the model's own validation RMSE;
//   - a side's graph becomes the identity for the models only where its trial beats the run
//     with it (a user graph from a file stays in the data for the lists and the people:
//     NodeSet::links_only); the choice is written into the config (graph.<side>_graph =
//     identity, or file / knn for a graph kept), so the folder's config.txt and --resume
//     build the same graphs and do not try again (a run killed during the trials tries
//     again, to the same choice);
//   - runs of fewer than kMinChoiceEpochs epochs (smoke runs) try nothing.
//
// Measured on six sets (docs/experiments.md, "Each side's graph, chosen by short runs"):
// the trials of 100 epochs rank the graphs as the full runs do wherever the full runs differ.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "models/baseline/bias_fit.h"
#include "symgnn/config.h"
#include "symgnn/dataset.h"
#include "symgnn/progress.h"

namespace symgnn::train {
struct WarmStart;  // train/run_state.h
}

namespace symgnn::fitting {

inline constexpr int64_t kTrialEpochDivisor = 10;
inline constexpr int64_t kMinTrialEpochs = 20;
inline constexpr int64_t kMinChoiceEpochs = 2 * kMinTrialEpochs;
inline constexpr int64_t kMinTrialPatience = 10;
inline constexpr double kTrialTie = 1e-4;

/// One short run's validation figures.
struct Trial {
  double combination = 0;  // the combination with the baseline
  double model = 0;        // the model alone
  int64_t epochs = 0;      // epochs it trained (early stopping may end it sooner)
  double baseline = std::numeric_limits<double>::quiet_NaN();  // the bias baseline alone
  double network_weight = 1;  // the network's weight in the combination (1: none fitted)
  int64_t best_epoch = 0;     // the epoch whose weights it kept
  /// train.continue_short_run: its state at its last epoch, for the run to continue where
  /// its config turns out to be the run's (fit/prepared_data.cpp); null once settled.
  std::shared_ptr<train::WarmStart> state = nullptr;
  bool better_than(const Trial& other) const;
  /// Whether the network earned anything on validation: alone it beats the bias baseline (by
  /// kTrialTie), or the combination keeps it (Douban's network of ratings validates 0.7377
  /// alone, worse than the baseline, and gains 0.0046 in the combination). Where it did
  /// neither, a longer run or another form of it is not worth its time (fit/offset_choice.h).
  bool network_learns() const;
};

struct GraphTrial {
  std::string side;    // "user" or "item"
  std::string origin;  // the graph tried against the identity ("file", "knn")
  Trial with, without;
  bool kept = true;
};

struct GraphChoice {
  int64_t trial_epochs = 0;
  double seconds = 0;
  std::vector<GraphTrial> sides;  // empty: nothing to choose
  bool not_tried = false;         // the network learned nothing in `with_all`: graphs kept
};

/// The short run's config (the run's own for kTrialEpochDivisor-th of its epochs, one seed,
/// early stopping, no ranker) and one short run judged as the run is: the other choices by
/// short runs (fit/offset_choice.h) share them.
RunConfig trial_config(const RunConfig& cfg);
/// `cv`: the bias baseline's cross-validated shrinkage on ds.train (fit/prepared_data.h),
/// which the trial's bias offset and its guard read.
Trial run_trial(const RunConfig& trial_cfg, const Dataset& ds, const models::ChosenShrinkage& cv,
                const EpochCallback& on_epoch, const std::string& phase = "choosing the graphs");

/// A short run's figures into `out` as "<val figure>_<name>", "<val figure>_model_<name>" and
/// "epochs_<name>" (metrics.json's auto.graph_choice and auto.offset_choice).
void add_trial_json(nlohmann::json& out, const Trial& t, const std::string& name);

/// Chooses as above, editing cfg.graph and ds's graphs. `say` gets a line per side;
/// `on_epoch` (where given) each trial's epochs, their phase "choosing the graphs"
/// (symgnn/progress.h). Nothing is tried (an empty choice) without validation ratings,
/// without a side to choose, or for a run of fewer than kMinChoiceEpochs epochs.
/// `with_all`, where given, is the short run with every graph as resolved already made (by
/// fit/offset_choice.h, on cfg as it is now): it is not run again; where its network learned
/// nothing (Trial::network_learns), the graphs are kept as resolved and nothing is tried.
/// `cv` as run_trial's (the graphs change, the ratings do not).
GraphChoice choose_graphs(RunConfig& cfg, Dataset& ds, const models::ChosenShrinkage& cv,
                          const std::function<void(const std::string&)>& say,
                          const EpochCallback& on_epoch = nullptr, const Trial* with_all = nullptr);

/// "train.auto: the user graph (file) kept: short runs of 100 epochs validate 0.8554 with
/// it, 0.8563 without (the model alone 0.9131, 0.9453)"
std::string describe(const GraphTrial& t, int64_t trial_epochs);
nlohmann::json graph_choice_json(const GraphChoice& c);

}  // namespace symgnn::fitting
