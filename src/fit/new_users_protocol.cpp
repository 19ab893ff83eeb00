// evaluate --protocol new-users (new_users_protocol.h).
#include "fit/new_users_protocol.h"

#include <algorithm>
#include <cmath>
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
  nodes.rows_name = "the fold-in ratings";
  nodes.rating_rows.reserve(rows.size());
  for (const HeldRating& r : rows)
    nodes.rating_rows.push_back({ds.users.id_of(r.user), ds.items.id_of(r.item), r.value});
  return nodes;
}

/// Fits `cfg` without the held-out users and scores them before and after their fold-in rows.
std::pair<Evaluation, Evaluation> fit_and_score(const RunConfig& cfg, const HeldOut& h,
                                                const NewUsersProtocol& p, const LogCallback& log) {
  FitOptions o;
  o.log = log;
  o.edit_data = [&](Dataset& ds) { edit(ds, h); };
  const FitResult fitted = fit(cfg, o);
  if (!fitted.model) throw Error("evaluate --protocol new-users: the fit kept no model");
  const Evaluation cold = evaluate(*fitted.model, p.eval);
  const TrainedModel given = fitted.model->with_new_nodes(fold_in_rows(fitted.model->dataset(), h.fold_in));
  return {evaluate(given, p.eval), cold};
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
  // The held-out users are drawn on the data as the config loads it.
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
  std::tie(r.model, r.cold) = fit_and_score(cfg, h, p, log);
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
  r.ease = fit_and_score(ease, h, p, log).first;
  r.has_ease = true;
  return r;
}

}  // namespace symgnn::fitting
