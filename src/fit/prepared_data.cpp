// symgnn::fit's data, loaded and settled (prepared_data.h).
#include "fit/prepared_data.h"

#include <algorithm>

#include "data/dataset_snapshot.h"
#include "fit/baseline_guard.h"
#include "fit/fitted.h"
#include "fit/prior_choice.h"
#include "fit/ranker.h"
#include "models/baseline/baseline_figures.h"
#include "models/baseline/combined_model.h"
#include "models/baseline/offset_model.h"
#include "models/rating_levels.h"
#include "runtime/runtime.h"
#include "symgnn/graph.h"
#include "symgnn/model.h"
#include "train/dataset_stats.h"
#include "train/distributed.h"
#include "train/run_state.h"
#include "train/trainer.h"
#include "util/memory_check.h"
#include "util/text.h"

namespace symgnn::fitting {
namespace {

/// Implicit data (every training rating the same value: clicks, plays) has no rating to
/// fit: a model left on objective rating would reach an RMSE of 0 and rank at random. A kind
/// that trains for ranking switches to it, and says so; another kind gets a warning.
void train_for_ranking_on_implicit_data(RunConfig& cfg, const Dataset& ds, const ModelKind& kind,
                                        const std::function<void(const std::string&)>& say_line) {
  if (ds.train.empty() || cfg.train.objective != "rating") return;
  const auto [lo, hi] = std::minmax_element(ds.train.value.begin(), ds.train.value.end());
  if (*lo != *hi) return;
  const std::string what = ds.name + ": every training rating is " + fixed(*lo, 2) + " (implicit data)";
  if (kind.fit == FitMethod::trained && kind_serves(kind, "ranking")) {
    cfg.train.objective = "ranking";
    say_line("note: " + what + ": training for ranking instead (train.objective = ranking)");
  } else if (kind.fit == FitMethod::trained || std::string(kind.objectives) == "rating") {
    say_line(
        "warning: " + what + ": model = " + cfg.model +
        " fits ratings, which are all equal here: its ranking is arbitrary; use model = ease, itemknn or "
        "lowrank with train.objective = ranking");
  }
}

/// Whether the run has a consumer of the bias baseline's cross-validated shrinkage on
/// ds.train (cfg as given; a consumer the later choices turn off only costs the seconds of
/// one cross-validation): on rank 0 train.auto's graph worth, short runs and guard (with
/// enough validation ratings to weigh), and the baseline's figures beside a rating model
/// where they are of ds.train (no validation choice, no retrain on all ratings); on every
/// rank a model that learns over the bias offset (with ratings enough to fold).
bool needs_bias_shrinkage(const RunConfig& cfg, const ModelKind& kind, const Dataset& ds, bool rank0) {
  if (models::learns_over_bias_offset(cfg) && ds.train.size() >= static_cast<size_t>(cfg.baseline.folds))
    return true;
  if (!rank0) return false;
  if (models::combines_with_baseline(cfg) && ds.validation.size() >= kMinCombinationRatings) return true;
  const bool retrained = kind.fit == FitMethod::trained && train::retrains(cfg, ds);
  const bool validation_choice = cfg.baseline.select == "validation" && !ds.validation.empty();
  return models::shows_bias_baseline(cfg) && !ds.test.empty() && !retrained && !validation_choice;
}

/// The short run the run's config ended as (PreparedData::warm_start): the offset's winner
/// with every graph, or the run without the one side's graph that was dropped; none where
/// two sides were dropped (no short run had that config) or the run is cut to fewer epochs
/// than its short run trained. Every other state is released, so that none outlives here.
std::shared_ptr<train::WarmStart> settle_warm_start(PreparedData& p, const Trial* made,
                                                    const RunConfig& cfg) {
  std::shared_ptr<train::WarmStart> chosen;
  const std::vector<GraphTrial>& sides = p.graph_choice.sides;
  std::vector<const GraphTrial*> dropped;
  for (const GraphTrial& t : sides)
    if (!t.kept) dropped.push_back(&t);
  if (!sides.empty())
    chosen = dropped.empty()       ? sides.front().with.state
             : dropped.size() == 1 ? dropped.front()->without.state
                                   : nullptr;
  else if (made)
    chosen = made->state;
  for (Trial* t : {&p.offset_choice.residuals, &p.offset_choice.ratings}) t->state.reset();
  for (GraphTrial& t : p.graph_choice.sides) t.with.state.reset(), t.without.state.reset();
  if (!cfg.train.continue_short_run || p.epochs_from_short_run > 0 ||
      (chosen && chosen->epoch > cfg.train.epochs))
    return nullptr;
  return chosen;
}

}  // namespace

PreparedData prepare_data(RunConfig& cfg, const FitOptions& o, const ModelKind& kind, bool rank0,
                          int64_t world_size, train::ProcessGroup* group) {
  PreparedData p;
  Dataset& ds = p.ds;
  // Two statements, not `o.data ? *o.data : load(...)`: that conditional is a const prvalue,
  // so the loaded set would be copied into ds (176 MB of vectors on the 5 M set) instead of moved.
  if (o.data)
    ds = *o.data;
  else
    ds = with_memory_context("loading " + cfg.data.source, [&] { return load_dataset(cfg.data); });
  if (o.edit_data) o.edit_data(ds);
  const std::vector<std::string> graph_notes =
      with_memory_context("building the graphs", [&] { return graph::resolve_graphs(ds, cfg.graph); });
  if (rank0)
    for (const std::string& note : graph_notes) say(o, note);
  runtime::release_freed_memory();  // the loaders' temporaries
  if (rank0) say(o, train::dataset_stats_text(ds));
  if (needs_bias_shrinkage(cfg, kind, ds, rank0)) {
    models::CvProgress progress;
    if (rank0) progress.say = [&](const std::string& line) { say(o, line); };
    p.bias_shrinkage = std::make_shared<const models::ShrinkageChoice>(
        models::choose_shrinkage_cv(ds, cfg.baseline, &progress));
  }
  // train.auto: what each graph is worth on validation, by a proxy (fit/graph_worth.h).
  if (rank0 && models::combines_with_baseline(cfg))
    p.graph_worths = weigh_graphs(ds, cfg.baseline, p.bias_shrinkage.get());
  for (const GraphWorth& w : p.graph_worths) say(o, describe(w));
  if (group) group->agree("data", data::fingerprint(ds));
  train_for_ranking_on_implicit_data(cfg, ds, kind, [&](const std::string& line) {
    if (rank0) say(o, line);
  });
  // train.cold_lists = auto (fit/cold_list_choice.h) where a list can come from it: a ranker
  // beside the model, or a kind that scores users from their rated items.
  if (rank0 && (kind_scores_from_rated_items(kind) ||
                !choose_ranker(cfg, ds.users.count, ds.items.count).candidates.empty())) {
    p.cold_lists = choose_cold_lists(cfg, ds);
    if (p.cold_lists.tried) say(o, describe(p.cold_lists));
  }
  // lowrank.prior = auto becomes encoder or paper here, on the data's size; the folder's
  // config.txt records what was trained, so that loading and --resume build the same model.
  const std::string prior_note =
      resolve_prior(cfg, ds.users.count, ds.items.count, static_cast<int64_t>(ds.train.size()),
                    models::prior_class_count(models::rating_levels(ds).size()));
  if (rank0 && !prior_note.empty()) say(o, prior_note);
  // train.auto: each side's graph chosen by short runs (fit/graph_choice.h), before the data
  // are pinned: the folder keeps the graphs trained on. One process only (the choice would
  // have to be agreed); on --resume, config.txt holds the choice made.
  const bool short_runs =
      rank0 && world_size == 1 && kind.fit == FitMethod::trained && models::combines_with_baseline(cfg);
  // lowrank.offset = auto (fit/offset_choice.h) first: the graphs are then tried on the
  // network chosen, whose short run with every graph is the winner's here.
  p.offset_choice = with_memory_context("choosing what the network learns by short runs", [&] {
    return choose_offset(
        cfg, ds, p.bias_shrinkage, short_runs, [&](const std::string& line) { say(o, line); }, o.on_epoch);
  });
  const Trial* made = nullptr;
  if (p.offset_choice.tried)
    made = p.offset_choice.residual ? &p.offset_choice.residuals : &p.offset_choice.ratings;
  if (short_runs)
    p.graph_choice =
        with_memory_context("choosing the graphs by short runs of the " + cfg.model + " model", [&] {
          return choose_graphs(
              cfg, ds, p.bias_shrinkage, [&](const std::string& line) { say(o, line); }, o.on_epoch, made);
        });
  // A network that learned nothing in its short run is trained for that run's epochs only:
  // the same config and seed reach the same weights, which is all a longer run was shown to
  // be worth (real/ciaodvd: 192 epochs, 38 s, for a network given weight 0).
  if (made && !made->network_learns() && cfg.train.epochs > made->best_epoch) {
    p.epochs_from_short_run = std::max<int64_t>(1, made->best_epoch);
    say(o,
        "train.auto: the network trains " + std::to_string(p.epochs_from_short_run) +
            " epoch(s), its short run's best, instead of train.epochs = " + std::to_string(cfg.train.epochs) +
            ": it learned nothing there that a longer run is shown to add");
    cfg.train.epochs = p.epochs_from_short_run;
  }
  p.warm_start = settle_warm_start(p, made, cfg);
  return p;
}

}  // namespace symgnn::fitting
