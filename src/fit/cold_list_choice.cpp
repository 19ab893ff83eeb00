// train.cold_lists = auto, chosen on validation (cold_list_choice.h).
#include "fit/cold_list_choice.h"

#include <algorithm>

#include "infer/cold_lists.h"
#include "symgnn/ranking.h"
#include "util/text.h"

namespace symgnn::fitting {
namespace {

/// NDCG@10 of `lists` (every user's scores, row-major) against `relevant`, each user's
/// training items excluded.
double ndcg_at_10(const std::vector<float>& lists, const std::vector<std::vector<int64_t>>& relevant,
                  const std::vector<std::vector<char>>& excluded, int64_t n2) {
  eval::RankingAccumulator acc({10}, n2);
  for (size_t r = 0; r < relevant.size(); ++r)
    acc.add(eval::top_k_items(lists.data() + r * static_cast<size_t>(n2), n2, 10, excluded[r]), relevant[r]);
  return acc.report().at_k.front().ndcg;
}

}  // namespace

ColdListChoice choose_cold_lists(RunConfig& cfg, const Dataset& ds) {
  ColdListChoice c;
  if (cfg.train.cold_lists != "auto") return c;
  c.tried = true;
  const int64_t n2 = ds.items.count;
  // The validation users with a relevant validation item and someone linked who rated in
  // training: the users whose lists the choice changes.
  const infer::ColdLists plain(ds, 1.0, false, /*validation=*/false);
  const double relevant_min = eval::default_relevant_min(ds.rating_min, ds.rating_max);
  std::vector<std::vector<int64_t>> relevant_of(static_cast<size_t>(ds.users.count));
  for (size_t e = 0; e < ds.validation.size(); ++e)
    if (ds.validation.value[e] >= relevant_min)
      relevant_of[static_cast<size_t>(ds.validation.user[e])].push_back(ds.validation.item[e]);
  std::vector<int64_t> users;
  for (int64_t u = 0; u < ds.users.count && static_cast<int64_t>(users.size()) < kMaxColdChoiceUsers; ++u)
    if (!relevant_of[static_cast<size_t>(u)].empty() && !plain.rated_neighbours(u).empty())
      users.push_back(u);
  c.users = static_cast<int64_t>(users.size());
  if (c.users < kMinColdChoiceUsers) {
    c.chosen = "popularity";
    cfg.train.cold_lists = c.chosen;
    return c;
  }
  std::vector<std::vector<int64_t>> relevant;
  std::vector<std::vector<char>> excluded;
  std::vector<int64_t> slot(static_cast<size_t>(ds.users.count), -1);
  for (const int64_t u : users) {
    slot[static_cast<size_t>(u)] = static_cast<int64_t>(relevant.size());
    relevant.push_back(relevant_of[static_cast<size_t>(u)]);
    excluded.emplace_back(static_cast<size_t>(n2), char{0});
  }
  for (size_t e = 0; e < ds.train.size(); ++e)
    if (const int64_t s = slot[static_cast<size_t>(ds.train.user[e])]; s >= 0)
      excluded[static_cast<size_t>(s)][static_cast<size_t>(ds.train.item[e])] = 1;
  c.popularity = ndcg_at_10(plain.rows(users, 1.0, true), relevant, excluded, n2);
  double best = c.popularity;
  c.chosen = "popularity";
  for (const double w : kColdWeights) {
    const double ndcg = ndcg_at_10(plain.rows(users, w, false), relevant, excluded, n2);
    c.by_weight.emplace_back(w, ndcg);
    if (ndcg > best) best = ndcg, c.chosen = "neighbours", c.weight = w;
  }
  cfg.train.cold_lists = c.chosen;
  if (c.chosen == "neighbours") cfg.train.cold_popularity_weight = c.weight;
  return c;
}

std::string describe(const ColdListChoice& c) {
  if (!c.tried) return "";
  if (c.users < kMinColdChoiceUsers)
    return "train.auto: users without ratings are listed by popularity: " + std::to_string(c.users) +
           " validation user(s) have someone linked in the user graph who rated, fewer than " +
           std::to_string(kMinColdChoiceUsers) +
           " to judge the linked people's lists on (fit/cold_list_choice.h)";
  double linked_best = -1;
  for (const auto& [w, ndcg] : c.by_weight) linked_best = std::max(linked_best, ndcg);
  return "train.auto: users without ratings are listed by " +
         (c.chosen == "neighbours"
              ? "the people linked to them (popularity weight " + fixed(c.weight, 0) + ")"
              : std::string("popularity")) +
         ": validation NDCG@10 " + fixed(linked_best, 4) + " by the linked people against popularity's " +
         fixed(c.popularity, 4) + ", " + std::to_string(c.users) +
         " validation users listed as if without ratings (fit/cold_list_choice.h)";
}

nlohmann::json cold_list_choice_json(const ColdListChoice& c) {
  nlohmann::json weights = nlohmann::json::object();
  for (const auto& [w, ndcg] : c.by_weight) weights[fixed(w, 0)] = ndcg;
  nlohmann::json out = {
      {"chosen", c.chosen}, {"validation_users", c.users}, {"val_ndcg@10_by_weight", weights}};
  if (c.popularity >= 0) out["val_ndcg@10_popularity"] = c.popularity;
  if (c.chosen == "neighbours") out["popularity_weight"] = c.weight;
  return out;
}

}  // namespace symgnn::fitting
