#include "fit/graph_choice.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <chrono>
#include <cmath>

#include "fit/baseline_guard.h"
#include "symgnn/graph.h"
#include "symgnn/metrics.h"
#include "train/trainer.h"
#include "util/text.h"

namespace symgnn::fitting {
namespace {

std::string& policy_of(RunConfig& cfg, const std::string& side) {
  return side == "user" ? cfg.graph.user_graph : cfg.graph.item_graph;
}

}  // namespace

/// The short run's config: the run's own, shorter, one seed, early stopping, no files.
RunConfig trial_config(const RunConfig& cfg) {
  RunConfig t = cfg;
  t.train.epochs =
      std::min(cfg.train.epochs, std::max(kMinTrialEpochs, cfg.train.epochs / kTrialEpochDivisor));
  // A short run's patience is a fifth of its epochs (at least kMinTrialPatience): with the
  // run's own (100 in the recommended preset) a network that cannot improve on its first
  // epochs trained all its epochs to say so (real/ciaodvd: 100 epochs of 0.37 s, best at
  // epoch 1, per short run).
  t.train.patience = std::min(cfg.train.patience, std::max(kMinTrialPatience, t.train.epochs / 5));
  t.train.protocol = "early_stop";
  t.train.runs = 1;
  t.train.ranker = "none";
  return t;
}

Trial run_trial(const RunConfig& trial_cfg, const Dataset& ds, const models::ChosenShrinkage& cv,
                const EpochCallback& on_epoch, const std::string& phase) {
  train::TrainerOptions opts;  // no log: the trials' lines are choose_graphs'
  opts.bias_shrinkage = cv;
  opts.keep_final_state = trial_cfg.train.continue_short_run;
  // Their epochs still reach the caller, marked as the trials': a caller that stops a fit
  // on an event (Python's Ctrl-C) stops it here too.
  if (on_epoch)
    opts.on_epoch = [&on_epoch, &phase](const ProgressEvent& e) {
      ProgressEvent trial = e;
      trial.phase = phase;
      on_epoch(trial);
    };
  const train::SweepResult s = train::train_sweep(trial_cfg, ds, opts);
  Trial t;
  t.epochs = s.runs.empty() ? 0 : s.runs.front().epochs_run;
  t.best_epoch = s.runs.empty() ? 0 : s.runs.front().best_epoch;
  if (!s.runs.empty()) t.state = s.runs.front().final_state;
  const at::Tensor v = s.val_predictions.to(at::kDouble).contiguous();
  const std::vector<double> val(v.data_ptr<double>(), v.data_ptr<double>() + v.numel());
  const BaselineGuard g = fit_baseline_guard(val, ds, trial_cfg.baseline, cv.get(), /*final_on_all=*/false);
  t.model = g.val_model;
  t.baseline = g.val_baseline_error;
  if (g.applied) t.network_weight = g.a;
  t.combination = g.applied ? g.val_combined : g.val_model;
  return t;
}

bool Trial::network_learns() const {
  // A NaN baseline (none fitted): nothing says it cannot learn.
  return network_weight > 0 || !(model >= baseline - kTrialTie);
}

bool Trial::better_than(const Trial& other) const {
  if (std::abs(combination - other.combination) >= kTrialTie) return combination < other.combination;
  return model < other.model;
}

GraphChoice choose_graphs(RunConfig& cfg, Dataset& ds, const models::ChosenShrinkage& cv,
                          const std::function<void(const std::string&)>& say, const EpochCallback& on_epoch,
                          const Trial* made) {
  GraphChoice choice;
  if (ds.validation.size() < kMinCombinationRatings || cfg.train.epochs < kMinChoiceEpochs) return choice;
  std::vector<std::string> sides;
  for (const std::string side : {"user", "item"}) {
    const NodeSet& set = side == "user" ? ds.users : ds.items;
    if (policy_of(cfg, side) == "auto" && set.graph_origin != GraphOrigin::Identity && set.graph.size() > 0)
      sides.push_back(side);
  }
  if (sides.empty()) return choice;
  if (made && !made->network_learns()) {
    // A network that learns nothing with the graphs is not tried without them: the graphs
    // stay as resolved, said in the config so that --resume does not try either.
    for (const std::string& side : sides)
      policy_of(cfg, side) =
          (side == "user" ? ds.users : ds.items).graph_origin == GraphOrigin::File ? "file" : "knn";
    choice.not_tried = true;
    say("train.auto: the graphs are kept as they are, not tried: the network learned nothing in its short "
        "run (fit/graph_choice.h)");
    return choice;
  }
  const auto t0 = std::chrono::steady_clock::now();
  const RunConfig trial_cfg = trial_config(cfg);
  choice.trial_epochs = trial_cfg.train.epochs;
  say("train.auto: choosing each side's graph on validation: " +
      std::to_string(sides.size() + (made ? 0 : 1)) + " short runs of at most " +
      std::to_string(choice.trial_epochs) + " epochs (fit/graph_choice.h)");
  const Trial with_all = made ? *made : run_trial(trial_cfg, ds, cv, on_epoch);
  for (const std::string& side : sides) {
    Dataset without = ds;
    NodeSet& set = side == "user" ? without.users : without.items;
    GraphTrial t;
    t.side = side;
    t.origin = to_string(set.graph_origin);
    graph::use_identity(set);
    t.with = with_all;
    t.without = run_trial(trial_cfg, without, cv, on_epoch);
    t.kept = !t.without.better_than(t.with);
    if (t.kept) t.without.state.reset();  // not the run's config (fit/prepared_data.cpp)
    say(describe(t, choice.trial_epochs));
    choice.sides.push_back(t);
  }
  // Applied after every trial, so that each side is tried against the graphs as resolved.
  // Every side tried gets an explicit policy, so that --resume (config.txt) neither tries
  // again nor resolves the graphs otherwise.
  for (const GraphTrial& t : choice.sides) {
    policy_of(cfg, t.side) = t.kept ? (t.origin == "file" ? "file" : "knn") : "identity";
    if (!t.kept) graph::use_identity_for_models(t.side == "user" ? ds.users : ds.items, t.side == "user");
  }
  choice.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return choice;
}

std::string describe(const GraphTrial& t, int64_t trial_epochs) {
  return "train.auto: the " + t.side + " graph (" + t.origin + ") " +
         (t.kept ? "kept" : "replaced by the identity") + ": short runs of at most " +
         std::to_string(trial_epochs) + " epochs validate " + fixed(t.with.combination, 4) + " with it, " +
         fixed(t.without.combination, 4) + " without (the model alone " + fixed(t.with.model, 4) + ", " +
         fixed(t.without.model, 4) + ")";
}

void add_trial_json(nlohmann::json& out, const Trial& t, const std::string& name) {
  const std::string val = rating_figure("val");
  out[val + "_" + name] = t.combination;
  out[val + "_model_" + name] = t.model;
  out["epochs_" + name] = t.epochs;
}

nlohmann::json graph_choice_json(const GraphChoice& c) {
  nlohmann::json sides = nlohmann::json::object();
  for (const GraphTrial& t : c.sides) {
    nlohmann::json side = {{"graph", t.origin}, {"kept", t.kept}};
    add_trial_json(side, t.with, "with");
    add_trial_json(side, t.without, "without");
    sides[t.side] = side;
  }
  return {
      {"trial_epochs", c.trial_epochs}, {"seconds", c.seconds}, {"sides", sides}, {"tried", !c.not_tried}};
}

}  // namespace symgnn::fitting
