#include "symgnn/recommend.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "eval/errors.h"
#include "eval/measure.h"
#include "infer/model_parts.h"
#include "infer/unseen_test.h"
#include "models/popularity/popularity_model.h"
#include "symgnn/error.h"
#include "util/text.h"

namespace symgnn {

namespace {

/// Users per scoring block: block_pairs pairs, at least one user.
int64_t block_users(const TrainedModel& model, int64_t block_pairs) {
  return std::max<int64_t>(1, block_pairs / std::max<int64_t>(1, model.items()));
}

/// Scores of every item for a block of users, row-major (TrainedModel::score_all_items).
using BlockScorer = std::function<std::vector<float>(const std::vector<int64_t>&)>;

/// Calls rank(k, user, scores) for each user of `users` in blocks scored by `score`; rank
/// runs in parallel within a block and fills out[k] for the block's k-th user.
template <typename Out, typename Rank>
void for_each_block(const TrainedModel& model, const BlockScorer& score, const std::vector<int64_t>& users,
                    int64_t block_pairs, Rank rank, const std::function<void(std::vector<Out>&)>& done) {
  const int64_t n2 = model.items(), per = block_users(model, block_pairs);
  for (size_t b0 = 0; b0 < users.size(); b0 += static_cast<size_t>(per)) {
    const size_t b1 = std::min(users.size(), b0 + static_cast<size_t>(per));
    const std::vector<int64_t> block(users.begin() + static_cast<std::ptrdiff_t>(b0),
                                     users.begin() + static_cast<std::ptrdiff_t>(b1));
    const std::vector<float> scores = score(block);
    std::vector<Out> out(block.size());
    at::parallel_for(0, static_cast<int64_t>(block.size()), 16, [&](int64_t a, int64_t z) {
      for (int64_t k = a; k < z; ++k)
        out[static_cast<size_t>(k)] = rank(k, block[static_cast<size_t>(k)], scores.data() + k * n2);
    });
    done(out);
  }
}

/// The user's seen items as a mask of items() entries (empty when nothing is excluded).
std::vector<char> seen_mask(const TrainedModel& model, int64_t user) {
  std::vector<char> mask(static_cast<size_t>(model.items()), 0);
  for (const int64_t i : model.seen_items()[static_cast<size_t>(user)]) mask[static_cast<size_t>(i)] = 1;
  return mask;
}

}  // namespace

void recommend_each(const TrainedModel& model, const std::vector<int64_t>& users,
                    const RecommendOptions& opts,
                    const std::function<void(const UserRecommendations&)>& sink) {
  if (opts.k < 1) throw ConfigError("recommend: k must be at least 1, got " + std::to_string(opts.k));
  const int64_t n2 = model.items();
  for (const int64_t u : users) {
    if (u < 0 || u >= model.users())
      throw ConfigError("recommend: user index " + std::to_string(u) + " outside [0, " +
                        std::to_string(model.users()) + ")");
    const int64_t candidates =
        opts.include_seen ? n2 : n2 - static_cast<int64_t>(model.seen_items()[static_cast<size_t>(u)].size());
    if (candidates < opts.k)
      throw ConfigError(
          "recommend: user '" + model.dataset().users.id_of(u) + "' has " + std::to_string(candidates) +
          " candidate items, fewer than k = " + std::to_string(opts.k) +
          (opts.include_seen ? "" : " (the items they rated are excluded; see --include-seen)"));
  }
  // A model that ranks by scores of its own shows each item's predicted rating beside it,
  // from the block's ratings (computed with its scores).
  const bool by_rating = model.ranks_by_rating();
  std::vector<float> ratings;
  auto rank = [&](int64_t k, int64_t user, const float* scores) {
    UserRecommendations r;
    r.user = user;
    const std::vector<char> mask = opts.include_seen ? std::vector<char>{} : seen_mask(model, user);
    r.items = eval::top_k_items(scores, n2, opts.k, mask);
    const float lo = model.rating_min(), hi = model.rating_max();
    const float* rated = by_rating ? scores : ratings.data() + k * n2;
    for (const int64_t i : r.items) r.scores.push_back(std::clamp(rated[i], lo, hi));
    return r;
  };
  const BlockScorer score = [&](const std::vector<int64_t>& b) {
    if (!by_rating) ratings = model.rating_all_items(b);
    return model.score_all_items(b);
  };
  for_each_block<UserRecommendations>(model, score, users, opts.block_pairs, rank,
                                      [&](std::vector<UserRecommendations>& out) {
                                        for (const auto& r : out) sink(r);
                                      });
}

std::vector<UserRecommendations> recommend(const TrainedModel& model, const std::vector<int64_t>& users,
                                           const RecommendOptions& opts) {
  std::vector<UserRecommendations> all;
  all.reserve(users.size());
  recommend_each(model, users, opts, [&](const UserRecommendations& r) { all.push_back(r); });
  return all;
}

namespace {

/// The errors of `pred` (one per test rating, clipped by the model) and the ranking metrics of `score`.
Evaluation evaluate_with(const TrainedModel& model, const EvaluateOptions& opts,
                         const std::vector<float>& pred, const BlockScorer& score) {
  const RatingList& test = model.dataset().test;
  Evaluation ev;
  ev.test_ratings = static_cast<int64_t>(test.size());
  eval::add_errors(ev.errors, "", eval::differences(pred, test.value));
  const std::string& policy = opts.unknown.empty() ? model.config().data.unknown_test : opts.unknown;
  ev.unseen = infer::report_unseen(model.dataset(), std::vector<double>(pred.begin(), pred.end()), policy);
  ev.relevant_min = std::isnan(opts.relevant_min)
                        ? eval::default_relevant_min(model.rating_min(), model.rating_max())
                        : opts.relevant_min;

  // Each test user's relevant items; users in ascending index order.
  std::vector<std::vector<int64_t>> relevant(static_cast<size_t>(model.users()));
  std::vector<char> has_test(static_cast<size_t>(model.users()), 0);
  for (size_t e = 0; e < test.size(); ++e) {
    has_test[static_cast<size_t>(test.user[e])] = 1;
    if (test.value[e] >= ev.relevant_min) relevant[static_cast<size_t>(test.user[e])].push_back(test.item[e]);
  }
  std::vector<int64_t> users;
  for (int64_t u = 0; u < model.users(); ++u)
    if (has_test[static_cast<size_t>(u)]) users.push_back(u);
  ev.test_users = static_cast<int64_t>(users.size());

  eval::RankingAccumulator acc(opts.ks, model.items());
  const int64_t n2 = model.items(), kmax = acc.max_k();
  auto rank = [&](int64_t, int64_t user, const float* scores) {
    return eval::top_k_items(scores, n2, kmax, seen_mask(model, user));
  };
  size_t next = 0;  // position in `users` of the block's first user
  for_each_block<std::vector<int64_t>>(model, score, users, opts.block_pairs, rank,
                                       [&](std::vector<std::vector<int64_t>>& out) {
                                         for (const auto& ranked : out)
                                           acc.add(ranked, relevant[static_cast<size_t>(users[next++])]);
                                       });
  ev.ranking = acc.report();
  return ev;
}

void require_test(const TrainedModel& model) {
  if (model.dataset().test.size() == 0)
    throw DataError(model.dataset().source + ": the dataset has no test ratings to evaluate on");
}

/// Cut-offs past the catalogue and a threshold below the rating scale would be measured
/// and reported as if they meant something: every item is "in the top k", every test
/// rating "relevant".
void check_evaluate_options(const TrainedModel& model, const EvaluateOptions& opts) {
  // The default cut-offs (up to 20) hold on any catalogue, as the whole list where it is shorter.
  const int64_t largest = std::max<int64_t>(model.items(), 20);
  for (const int64_t k : opts.ks)
    if (k < 1 || k > largest)
      throw ConfigError("evaluate: k = " + std::to_string(k) + " is outside 1.." + std::to_string(largest) +
                        " (the model has " + std::to_string(model.items()) + " items)");
  if (std::isfinite(opts.relevant_min) && opts.relevant_min < model.rating_min())
    throw ConfigError("evaluate: relevant_min " + fixed(opts.relevant_min, 2) +
                      " is below the lowest rating " + fixed(model.rating_min(), 2) +
                      ": the threshold means nothing on this scale");
  if (std::isfinite(opts.relevant_min) && opts.relevant_min > model.rating_max())
    throw ConfigError("evaluate: relevant_min " + fixed(opts.relevant_min, 2) + " is above the top rating " +
                      fixed(model.rating_max(), 2) + ": no test rating would be relevant");
}

}  // namespace

Evaluation evaluate(const TrainedModel& model, const EvaluateOptions& opts) {
  require_test(model);
  check_evaluate_options(model, opts);
  const RatingList& test = model.dataset().test;
  const BlockScorer score = [&](const std::vector<int64_t>& b) { return model.score_all_items(b); };
  return evaluate_with(model, opts, model.predict(test.user, test.item), score);
}

Evaluation evaluate_popularity(const TrainedModel& model, const EvaluateOptions& opts) {
  require_test(model);
  // The popularity kind (models/popularity/popularity_model.h) over the model's data, with
  // its training mean and rating range: counts of the training and validation ratings.
  infer::ModelParts parts;
  parts.cfg = model.config();
  parts.cfg.model = "popularity";
  parts.cfg.train.device = "cpu";
  parts.ds = model.dataset();
  parts.ctx.n1 = model.users();
  parts.ctx.n2 = model.items();
  parts.ctx.global_mean = model.global_mean();
  parts.ctx.rating_min = model.rating_min();
  parts.ctx.rating_max = model.rating_max();
  parts.ctx.train_values = at::zeros({0});
  auto popularity = std::make_shared<models::PopularityModel>(parts.ctx);
  popularity->count({&parts.ds.train, &parts.ds.validation});
  parts.members = {popularity};
  return evaluate(TrainedModel(std::move(parts)), opts);
}

}  // namespace symgnn
