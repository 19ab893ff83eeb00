// evaluate --protocol new-users (new_users_protocol.h).
#include "fit/new_users_protocol.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <random>
#include <vector>

#include "fit/ranker.h"
#include "symgnn/error.h"
#include "symgnn/fit.h"
#include "symgnn/trained_model.h"
#include "util/strings.h"

namespace symgnn::fitting {
namespace {

/// One rating of a held-out user.
struct HeldRating {
  int64_t user, item;
  float value;
};

/// The users held out and their ratings split into the part given and the part scored.
struct HeldOut {
  std::vector<int64_t> users;  // ascending
  std::vector<char> held;      // per user index: 1 where held out
  std::vector<HeldRating> fold_in, scored;
  int64_t candidates = 0;  // users with >= 2 ratings
};

HeldOut hold_out_users(const Dataset& ds, const NewUsersProtocol& p) {
  std::vector<std::vector<HeldRating>> by_user(static_cast<size_t>(ds.users.count));
  for (const RatingList* r : {&ds.train, &ds.validation, &ds.test})
    for (size_t e = 0; e < r->size(); ++e)
      by_user[static_cast<size_t>(r->user[e])].push_back({r->user[e], r->item[e], r->value[e]});
  std::vector<int64_t> eligible;
  for (int64_t u = 0; u < ds.users.count; ++u)
    if (by_user[static_cast<size_t>(u)].size() >= 2) eligible.push_back(u);
  HeldOut h;
  h.candidates = static_cast<int64_t>(eligible.size());
  std::mt19937_64 rng(p.seed);
  std::shuffle(eligible.begin(), eligible.end(), rng);
  const auto n = static_cast<size_t>(std::llround(p.hold_out * static_cast<double>(eligible.size())));
  eligible.resize(std::min(eligible.size(), std::max<size_t>(1, n)));
  std::sort(eligible.begin(), eligible.end());
  h.users = eligible;
  h.held.assign(static_cast<size_t>(ds.users.count), 0);
  for (const int64_t u : eligible) {
    h.held[static_cast<size_t>(u)] = 1;
    std::vector<HeldRating>& all = by_user[static_cast<size_t>(u)];
    std::shuffle(all.begin(), all.end(), rng);
    const auto given = std::clamp<size_t>(
        static_cast<size_t>(std::llround(p.fold_in * static_cast<double>(all.size()))), 1, all.size() - 1);
    h.fold_in.insert(h.fold_in.end(), all.begin(), all.begin() + static_cast<std::ptrdiff_t>(given));
    h.scored.insert(h.scored.end(), all.begin() + static_cast<std::ptrdiff_t>(given), all.end());
  }
  return h;
}

/// The data without the held-out users' ratings; the scored part is the test split, so that
/// the fit's own test figures are those users before any rating of theirs is given.
void edit(Dataset& ds, const HeldOut& h) {
  const auto keep_others = [&](RatingList& r) {
    RatingList kept;
    for (size_t e = 0; e < r.size(); ++e)
      if (!h.held[static_cast<size_t>(r.user[e])]) kept.add(r.user[e], r.item[e], r.value[e]);
    r = std::move(kept);
  };
  keep_others(ds.train);
  keep_others(ds.validation);
  ds.test = RatingList();
  for (const HeldRating& r : h.scored) ds.test.add(r.user, r.item, r.value);
}

/// The fold-in ratings as rows of original ids, given to the model in memory.
NewNodes fold_in_rows(const Dataset& ds, const std::vector<HeldRating>& rows) {
  NewNodes nodes;
  nodes.rows.ratings_name = "the fold-in ratings";
  nodes.rows.ratings.reserve(rows.size());
  for (const HeldRating& r : rows)
    nodes.rows.ratings.push_back({ds.users.id_of(r.user), ds.items.id_of(r.item), r.value});
  return nodes;
}

/// A fit without the held-out users: the model as fitted (the slices grow it again), the rows
/// it is given, its figures after and before them, and the user graph the grown model reads.
struct FitScored {
  std::shared_ptr<TrainedModel> fitted;
  NewNodes fold_in;
  Evaluation given, cold;
  std::string no_graph;         // no_user_graph() of the grown model
  std::vector<int64_t> degree;  // per user index, where it has a graph
};

/// Fits `cfg` on `ds` (loaded once for both fits) without the held-out users and scores them
/// before and after their fold-in rows.
FitScored fit_and_score(const RunConfig& cfg, const Dataset& ds, const HeldOut& h, const NewUsersProtocol& p,
                        const LogCallback& log) {
  FitOptions o;
  o.log = log;
  o.data = &ds;
  o.edit_data = [&](Dataset& d) { edit(d, h); };
  FitScored s;
  s.fitted = fit(cfg, o).model;
  if (!s.fitted) throw Error("evaluate --protocol new-users: the fit kept no model");
  s.cold = evaluate(*s.fitted, p.eval);
  s.fold_in = fold_in_rows(s.fitted->dataset(), h.fold_in);
  const TrainedModel given = s.fitted->with_new_nodes(s.fold_in);
  s.given = evaluate(given, p.eval);
  s.no_graph = no_user_graph(given);
  if (s.no_graph.empty()) s.degree = neighbour_counts(given.dataset().users.graph);
  return s;
}

/// Step 5: each held-out user's slice (per user index; -1 for the others) by their degree in
/// the graph the kind's grown model reads, and r.by_degree's labels and counts.
std::vector<int> slice_held_out(NewUsersReport& r, const HeldOut& h, const FitScored& kind) {
  r.by_degree.resize(kDegreeSlices.size());
  for (size_t s = 0; s < kDegreeSlices.size(); ++s) r.by_degree[s].label = kDegreeSlices[s];
  r.by_degree_note = kind.no_graph;
  std::vector<int> slice(h.held.size(), -1);
  for (const int64_t u : h.users) {
    const auto i = static_cast<size_t>(u);
    slice[i] =
        kind.no_graph.empty() && i < kind.degree.size() ? static_cast<int>(degree_slice(kind.degree[i])) : 0;
    ++r.by_degree[static_cast<size_t>(slice[i])].users;
  }
  for (const HeldRating& x : h.scored)
    ++r.by_degree[static_cast<size_t>(slice[static_cast<size_t>(x.user)])].scored_ratings;
  return slice;
}

/// The figures of `scored` on each slice, into `field` of r.by_degree. A slice holding every
/// held-out user (always so without a user graph) is the whole: its figures are copied.
void score_degree_slices(NewUsersReport& r, const std::vector<int>& slice, const FitScored& scored,
                         Evaluation DegreeSlice::*field, const EvaluateOptions& eval) {
  for (size_t s = 0; s < r.by_degree.size(); ++s) {
    DegreeSlice& d = r.by_degree[s];
    if (d.users == r.held_out) {
      d.*field = scored.given;
    } else if (d.users > 0) {
      std::vector<char> in(slice.size());
      for (size_t u = 0; u < slice.size(); ++u) in[u] = slice[u] == static_cast<int>(s);
      d.*field = evaluate_slice(*scored.fitted, scored.fold_in, in, eval);
    }
  }
}

}  // namespace

NewUsersReport evaluate_new_users(const RunConfig& cfg, const NewUsersProtocol& p, const LogCallback& log) {
  if (!(p.hold_out > 0 && p.hold_out < 1))
    throw ConfigError("--hold-out " + std::to_string(p.hold_out) +
                      ": a fraction of the users, above 0 and below 1");
  if (!(p.fold_in > 0 && p.fold_in < 1))
    throw ConfigError("--fold-in " + std::to_string(p.fold_in) +
                      ": a fraction of each held-out user's ratings, above 0 and below 1");
  if (!model_kind(cfg.model).new_nodes)
    throw ConfigError("evaluate --protocol new-users: model = " + cfg.model +
                      " cannot place users it was not fitted on (symgnn models: the new_nodes column)");
  // The held-out users are drawn on the data as the config loads it; both fits copy this load.
  const Dataset ds = load_dataset(cfg.data);
  const HeldOut h = hold_out_users(ds, p);
  NewUsersReport r;
  r.users = h.candidates;
  r.held_out = static_cast<int64_t>(h.users.size());
  r.held_out_users = h.users;
  r.fold_in_ratings = static_cast<int64_t>(h.fold_in.size());
  r.scored_ratings = static_cast<int64_t>(h.scored.size());
  if (log)
    log("new users: " + std::to_string(r.held_out) + " of " + std::to_string(r.users) +
        " users held out (seed " + std::to_string(p.seed) + "); " + std::to_string(r.fold_in_ratings) +
        " of their ratings given after the fit, " + std::to_string(r.scored_ratings) + " scored");
  std::vector<int> slice;
  {  // the kind's fitted model is let go before EASE's fit
    const FitScored kind = fit_and_score(cfg, ds, h, p, log);
    r.model = kind.given;
    r.cold = kind.cold;
    slice = slice_held_out(r, h, kind);
    if (log && r.by_degree_note.empty()) log("new users: scoring the slices by degree in the user graph");
    score_degree_slices(r, slice, kind, &DegreeSlice::model, p.eval);
  }
  if (!p.with_ease) return r;
  if (ds.items.count > kAutoRankerMaxItems) {
    r.ease_note = "EASE not fitted: " + std::to_string(ds.items.count) + " items, above its limit of " +
                  std::to_string(kAutoRankerMaxItems);
    return r;
  }
  RunConfig ease;
  ease.data = cfg.data;
  ease.model = "ease";
  ease.ease = cfg.ease;
  ease.train.seed = cfg.train.seed;
  ease.train.device = cfg.train.device;
  ease.train.threads = cfg.train.threads;
  if (log) log("new users: EASE on the same rows");
  const FitScored scored = fit_and_score(ease, ds, h, p, log);
  r.ease = scored.given;
  r.has_ease = true;
  score_degree_slices(r, slice, scored, &DegreeSlice::ease, p.eval);
  return r;
}

}  // namespace symgnn::fitting
