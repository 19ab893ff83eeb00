// train.cold_lists = auto, chosen on validation (cold_list_choice.h).
#include "fit/cold_list_choice.h"

#include <algorithm>
#include <iterator>

#include "fit/judged_users.h"
#include "infer/cold_lists.h"
#include "symgnn/ranking.h"
#include "util/text.h"

namespace symgnn::fitting {
namespace {

/// Adds the top 10 of each row of `lists` (the block's users' scores, row-major) to `acc`
/// against their relevant items, each user's `excluded` items left out.
void add_block(eval::RankingAccumulator& acc, const std::vector<float>& lists,
               const std::vector<const std::vector<int64_t>*>& relevant,
               const std::vector<std::vector<char>>& excluded, int64_t n2) {
  for (size_t r = 0; r < relevant.size(); ++r)
    acc.add(eval::top_k_items(lists.data() + r * static_cast<size_t>(n2), n2, kRankingCutoff, excluded[r]),
            *relevant[r]);
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
  // Every candidate (popularity, then the linked people's list at each weight) scores each
  // judged user's whole row: the users judged are bounded by that work.
  const int64_t candidates = 1 + static_cast<int64_t>(std::size(kColdWeights));
  const JudgedUsers judged = judged_users(
      ds, ds.validation, {&ds.train},
      judged_user_cap(kColdChoiceScores, n2 * candidates, kMinColdChoiceUsers, kMaxColdChoiceUsers),
      [&](int64_t u) { return !plain.rated_neighbours(u).empty(); });
  const std::vector<int64_t>& users = judged.users;
  c.users = static_cast<int64_t>(users.size());
  if (c.users < kMinColdChoiceUsers) {
    c.chosen = "popularity";
    cfg.train.cold_lists = c.chosen;
    return c;
  }
  std::vector<eval::RankingAccumulator> acc(static_cast<size_t>(candidates),
                                            eval::RankingAccumulator({kRankingCutoff}, n2));
  // In blocks of users, so that the rows held stay kColdChoiceBlockScores long.
  const auto block =
      static_cast<size_t>(std::max<int64_t>(1, kColdChoiceBlockScores / std::max<int64_t>(n2, 1)));
  for (size_t b0 = 0; b0 < users.size(); b0 += block) {
    const size_t b1 = std::min(users.size(), b0 + block);
    const std::vector<int64_t> part(users.begin() + static_cast<std::ptrdiff_t>(b0),
                                    users.begin() + static_cast<std::ptrdiff_t>(b1));
    std::vector<const std::vector<int64_t>*> relevant;
    std::vector<std::vector<char>> excluded(b1 - b0, std::vector<char>(static_cast<size_t>(n2), 0));
    for (size_t k = b0; k < b1; ++k) {
      relevant.push_back(&judged.relevant[k]);
      for (const int64_t i : judged.trained[k]) excluded[k - b0][static_cast<size_t>(i)] = 1;
    }
    add_block(acc[0], plain.rows(part, 1.0, true), relevant, excluded, n2);
    for (size_t w = 0; w < std::size(kColdWeights); ++w)
      add_block(acc[w + 1], plain.rows(part, kColdWeights[w], false), relevant, excluded, n2);
  }
  // The ranking criterion (symgnn/metrics.h, ranking_metric()) of each candidate's lists.
  const auto criterion = [&](size_t a) {
    return eval::metric_value(acc[a].report().at_k.front(), ranking_metric().name);
  };
  c.popularity = criterion(0);
  double best = c.popularity;
  c.chosen = "popularity";
  for (size_t w = 0; w < std::size(kColdWeights); ++w) {
    const double ndcg = criterion(w + 1);
    c.by_weight.emplace_back(kColdWeights[w], ndcg);
    if (ndcg > best) best = ndcg, c.chosen = "neighbours", c.weight = kColdWeights[w];
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
         ": validation " + ranking_label() + " " + fixed(linked_best, 4) +
         " by the linked people against popularity's " + fixed(c.popularity, 4) + ", " +
         std::to_string(c.users) + " validation users listed as if without ratings (fit/cold_list_choice.h)";
}

nlohmann::json cold_list_choice_json(const ColdListChoice& c) {
  nlohmann::json weights = nlohmann::json::object();
  for (const auto& [w, ndcg] : c.by_weight) weights[fixed(w, 0)] = ndcg;
  nlohmann::json out = {
      {"chosen", c.chosen}, {"validation_users", c.users}, {ranking_figure("val") + "_by_weight", weights}};
  if (c.popularity >= 0) out[ranking_figure("val") + "_popularity"] = c.popularity;
  if (c.chosen == "neighbours") out["popularity_weight"] = c.weight;
  return out;
}

}  // namespace symgnn::fitting
