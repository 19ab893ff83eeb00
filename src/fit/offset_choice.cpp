#include "fit/offset_choice.h"

#include <chrono>

#include "fit/baseline_guard.h"
#include "symgnn/metrics.h"
#include "symgnn/model_kinds.h"
#include "util/text.h"

namespace symgnn::fitting {
namespace {

/// The residual form of cfg's network.
RunConfig residual_form(const RunConfig& cfg) {
  RunConfig r = cfg;
  r.lowrank.offset = "baseline";
  r.lowrank.biases = false;  // the baseline's shrunk biases are the only ones
  return r;
}

}  // namespace

OffsetChoice choose_offset(RunConfig& cfg, const Dataset& ds, const models::ChosenShrinkage& cv, bool may_try,
                           const std::function<void(const std::string&)>& say,
                           const EpochCallback& on_epoch) {
  OffsetChoice c;
  if (cfg.lowrank.offset != "auto") return c;
  cfg.lowrank.offset = "none";
  if (!may_try || !kind_reads_section(model_kind(cfg.model), "lowrank") || cfg.train.objective != "rating" ||
      cfg.lowrank.decoder == "classes" || ds.validation.size() < kMinCombinationRatings ||
      cfg.train.epochs < kMinChoiceEpochs)
    return c;
  const auto t0 = std::chrono::steady_clock::now();
  const RunConfig trial = trial_config(cfg);
  c.tried = true;
  c.trial_epochs = trial.train.epochs;
  say("train.auto: choosing what the network learns on validation (lowrank.offset = auto): up to 2 "
      "short runs of at most " +
      std::to_string(c.trial_epochs) + " epochs (fit/offset_choice.h)");
  const std::string phase = "choosing what the network learns";
  // The residuals first: where the network cannot beat the baseline on them, the network
  // of ratings, which must learn the baseline's part too, is not tried.
  c.residuals = run_trial(residual_form(trial), ds, cv, on_epoch, phase);
  c.ratings_tried = c.residuals.network_learns();
  // A network that learned nothing trains its short run's best epochs only (fit/prepared_data.h):
  // nothing continues its state.
  if (!c.ratings_tried) c.residuals.state.reset();
  if (c.ratings_tried) c.ratings = run_trial(trial, ds, cv, on_epoch, phase);
  c.residual = !c.ratings_tried || c.residuals.better_than(c.ratings);
  (c.residual ? c.ratings : c.residuals).state.reset();  // the loser's state goes
  if (c.residual) cfg = residual_form(cfg);
  c.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  say(describe(c));
  return c;
}

std::string describe(const OffsetChoice& c) {
  if (!c.tried) return "";
  if (!c.ratings_tried)
    return "train.auto: the network learns the bias baseline's residuals (lowrank.offset = baseline, "
           "lowrank.biases = false), and nothing on them: its short run of " +
           std::to_string(c.residuals.epochs) + " epochs validates " + fixed(c.residuals.model, 4) +
           " alone against the baseline's " + fixed(c.residuals.baseline, 4) +
           " and weighs 0 in the combination, so the network of ratings, which must learn the "
           "baseline's part too, is not tried";
  return std::string("train.auto: the network learns ") +
         (c.residual ? "the bias baseline's residuals (lowrank.offset = baseline, lowrank.biases = false)"
                     : "the ratings (lowrank.offset = none)") +
         ": short runs of at most " + std::to_string(c.trial_epochs) + " epochs validate " +
         fixed(c.residuals.combination, 4) + " on the residuals, " + fixed(c.ratings.combination, 4) +
         " on the ratings (the network alone " + fixed(c.residuals.model, 4) + ", " +
         fixed(c.ratings.model, 4) + ")";
}

nlohmann::json offset_choice_json(const OffsetChoice& c) {
  nlohmann::json out = {
      {"offset", c.residual ? "baseline" : "none"}, {"trial_epochs", c.trial_epochs}, {"seconds", c.seconds}};
  add_trial_json(out, c.residuals, "residuals");
  if (c.ratings_tried) add_trial_json(out, c.ratings, "ratings");
  out["ratings_tried"] = c.ratings_tried;
  out[rating_figure("val") + "_baseline"] = c.residuals.baseline;
  return out;
}

}  // namespace symgnn::fitting
