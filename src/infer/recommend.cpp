#include "symgnn/recommend.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>

#include "eval/errors.h"
#include "eval/measure.h"
#include "infer/unseen_test.h"
#include "models/popularity/popularity_model.h"
#include "symgnn/error.h"
#include "symgnn/update.h"
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

/// The items `seen` as a mask of n2 entries.
std::vector<char> seen_mask(int64_t n2, const std::vector<int64_t>& seen) {
  std::vector<char> mask(static_cast<size_t>(n2), 0);
  for (const int64_t i : seen) mask[static_cast<size_t>(i)] = 1;
  return mask;
}

/// What a list of `user` (whose rated items are `seen`, ascending) may not show under
/// `opts`: their seen items (unless include_seen), the items the filter does not allow and
/// those it excludes for them; empty when nothing.
std::vector<char> candidate_mask(int64_t n2, int64_t user, const std::vector<int64_t>& seen,
                                 const RecommendOptions& opts) {
  const ItemFilter& f = opts.filter;
  std::vector<char> mask = opts.include_seen ? std::vector<char>{} : seen_mask(n2, seen);
  if (f.empty()) return mask;
  if (mask.empty()) mask.assign(static_cast<size_t>(n2), 0);
  if (!f.allowed.empty())
    for (size_t i = 0; i < mask.size(); ++i) mask[i] |= f.allowed[i] ? 0 : 1;
  if (const auto it = f.excluded_for.find(user); it != f.excluded_for.end())
    for (const int64_t i : it->second) mask[static_cast<size_t>(i)] = 1;
  return mask;
}

/// How many candidate items user `user` (id `id`, rated items `seen`) has under `opts`;
/// throws ConfigError where none is left, saying why. Fewer than k give a shorter list
/// (short_list_note says so).
int64_t check_candidates(int64_t n2, int64_t user, const std::string& id, const std::vector<int64_t>& seen,
                         const RecommendOptions& opts) {
  const ItemFilter& f = opts.filter;
  const int64_t allowed = f.allowed.empty() ? n2 : std::count(f.allowed.begin(), f.allowed.end(), char{1});
  const auto may_show = [&](int64_t i) { return f.allowed.empty() || f.allowed[static_cast<size_t>(i)]; };
  // The filter's items less those the user rated and those excluded for them (each counted once).
  int64_t candidates = allowed;
  if (!opts.include_seen)
    for (const int64_t i : seen) candidates -= may_show(i) ? 1 : 0;
  if (const auto it = f.excluded_for.find(user); it != f.excluded_for.end())
    for (const int64_t i : it->second)
      candidates -=
          may_show(i) && (opts.include_seen || !std::binary_search(seen.begin(), seen.end(), i)) ? 1 : 0;
  if (candidates < 1)
    throw ConfigError("recommend: user '" + id + "' has no candidate item" +
                      (f.what.empty() ? "" : " after the filters (" + f.what + ")") +
                      (opts.include_seen ? "" : " (the items they rated are excluded; see --include-seen)"));
  return candidates;
}

/// The list of one user from their scores and the ratings shown beside them.
UserRecommendations top_of(int64_t n2, int64_t user, const std::vector<int64_t>& seen, const float* scores,
                           const float* ratings, float lo, float hi, const RecommendOptions& opts) {
  UserRecommendations r;
  r.user = user;
  r.items = eval::top_k_items(scores, n2, opts.k, candidate_mask(n2, user, seen, opts));
  for (const int64_t i : r.items) r.scores.push_back(std::clamp(ratings[i], lo, hi));
  r.candidates = static_cast<int64_t>(r.items.size()) < opts.k ? static_cast<int64_t>(r.items.size()) : -1;
  return r;
}

}  // namespace

std::string short_list_note(const UserRecommendations& r, const std::string& user_id, int64_t k,
                            const std::string& filters) {
  if (r.candidates < 0) return "";
  return "user '" + user_id + "' has " + std::to_string(r.candidates) + " candidate item" +
         (r.candidates == 1 ? "" : "s") + (filters.empty() ? "" : " after the filters (" + filters + ")") +
         ", fewer than k = " + std::to_string(k) + ": the list holds " + std::to_string(r.items.size());
}

void recommend_each(const TrainedModel& model, const std::vector<int64_t>& users,
                    const RecommendOptions& opts,
                    const std::function<void(const UserRecommendations&)>& sink) {
  if (opts.k < 1) throw ConfigError("recommend: k must be at least 1, got " + std::to_string(opts.k));
  const int64_t n2 = model.items();
  for (const int64_t u : users) {
    if (u < 0 || u >= model.users())
      throw ConfigError("recommend: user index " + std::to_string(u) + " outside [0, " +
                        std::to_string(model.users()) + ")");
    check_candidates(n2, u, model.dataset().users.id_of(u), model.seen_items()[static_cast<size_t>(u)], opts);
  }
  // A model that ranks by scores of its own shows each item's predicted rating beside it,
  // from the block's ratings (computed with its scores).
  const bool by_rating = model.ranks_by_rating();
  std::vector<float> ratings;
  auto rank = [&](int64_t k, int64_t user, const float* scores) {
    const float* rated = by_rating ? scores : ratings.data() + k * n2;
    return top_of(n2, user, model.seen_items()[static_cast<size_t>(user)], scores, rated, model.rating_min(),
                  model.rating_max(), opts);
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

namespace {

/// `items` of `user` in the order of `scores`, with `ratings` beside them (rank_items).
UserRecommendations ranked_items(const TrainedModel& model, int64_t user, const std::vector<int64_t>& items,
                                 const std::vector<float>& scores, const std::vector<float>& ratings) {
  if (items.empty()) throw ConfigError("rank: no item to rank");
  // top_k_items over the given items only: the same order (and ties) as recommend's lists.
  std::vector<char> others(static_cast<size_t>(model.items()), 1);
  for (const int64_t i : items) {
    if (i < 0 || i >= model.items())
      throw ConfigError("rank: item index " + std::to_string(i) + " outside [0, " +
                        std::to_string(model.items()) + ")");
    if (!others[static_cast<size_t>(i)])
      throw ConfigError("rank: item '" + model.dataset().items.id_of(i) + "' is given twice");
    others[static_cast<size_t>(i)] = 0;
  }
  UserRecommendations r;
  r.user = user;
  r.items = eval::top_k_items(scores.data(), model.items(), static_cast<int64_t>(items.size()), others);
  for (const int64_t i : r.items)
    r.scores.push_back(std::clamp(ratings[static_cast<size_t>(i)], model.rating_min(), model.rating_max()));
  return r;
}

}  // namespace

UserRecommendations rank_items(const TrainedModel& model, int64_t user, const std::vector<int64_t>& items) {
  if (user < 0 || user >= model.users())
    throw ConfigError("rank: user index " + std::to_string(user) + " outside [0, " +
                      std::to_string(model.users()) + ")");
  if (items.empty()) throw ConfigError("rank: no item to rank");
  const std::vector<float> scores = model.score_all_items({user});
  const std::vector<float> ratings = model.ranks_by_rating() ? scores : model.rating_all_items({user});
  return ranked_items(model, user, items, scores, ratings);
}

UserRecommendations rank_items(const UserUpdate& user, const std::vector<int64_t>& items) {
  const TrainedModel& model = user.model();
  if (!user.folded()) return rank_items(model, user.user, items);
  UserRecommendations r = ranked_items(model, user.user, items, user.scores, user.scores);
  const std::vector<float> rated = user.ratings(r.items);
  for (size_t k = 0; k < rated.size(); ++k)
    r.scores[k] = std::clamp(rated[k], model.rating_min(), model.rating_max());
  return r;
}

UserRecommendations recommend(const UserUpdate& user, const RecommendOptions& opts) {
  const TrainedModel& model = user.model();
  if (!user.folded()) return recommend(model, {user.user}, opts).front();
  if (opts.k < 1) throw ConfigError("recommend: k must be at least 1, got " + std::to_string(opts.k));
  const int64_t n2 = model.items();
  check_candidates(n2, user.user, user.id, user.seen, opts);
  UserRecommendations r;
  r.user = user.user;
  r.items = eval::top_k_items(user.scores.data(), n2, opts.k, candidate_mask(n2, user.user, user.seen, opts));
  r.candidates = static_cast<int64_t>(r.items.size()) < opts.k ? static_cast<int64_t>(r.items.size()) : -1;
  const std::vector<float> rated = user.ratings(r.items);
  for (const float v : rated) r.scores.push_back(std::clamp(v, model.rating_min(), model.rating_max()));
  return r;
}

std::vector<UserRecommendations> recommend(const TrainedModel& model, const std::vector<int64_t>& users,
                                           const RecommendOptions& opts) {
  std::vector<UserRecommendations> all;
  all.reserve(users.size());
  recommend_each(model, users, opts, [&](const UserRecommendations& r) { all.push_back(r); });
  return all;
}

namespace {

/// What beyond-accuracy figures measure `model`'s lists against (symgnn/beyond_accuracy.h):
/// each item's raters in the data it trained on, and its vector for diversity: its row of
/// the item graph where the model has one, else its binary column of those ratings.
eval::CatalogueProfile catalogue_profile(const TrainedModel& model) {
  eval::CatalogueProfile p;
  const auto n2 = static_cast<size_t>(model.items());
  p.users = model.users();
  p.raters.assign(n2, 0);
  const std::vector<std::vector<int64_t>>& seen = model.seen_items();
  for (const auto& items : seen)
    for (const int64_t i : items) ++p.raters[static_cast<size_t>(i)];
  std::vector<std::vector<std::pair<int64_t, float>>> rows(n2);
  const NodeSet& side = model.dataset().items;
  if ((side.graph_origin == GraphOrigin::File || side.graph_origin == GraphOrigin::Knn) &&
      side.graph.size() > 0) {
    p.basis = "item graph";
    for (size_t e = 0; e < side.graph.size(); ++e)
      rows[static_cast<size_t>(side.graph.src[e])].emplace_back(side.graph.dst[e], side.graph.weight[e]);
  } else {
    p.basis = "co-ratings";
    for (size_t u = 0; u < seen.size(); ++u)  // users ascending: each column's entries ascend
      for (const int64_t i : seen[u])
        rows[static_cast<size_t>(i)].emplace_back(static_cast<int64_t>(u), 1.0f);
  }
  p.ptr.push_back(0);
  for (auto& r : rows) {
    std::sort(r.begin(), r.end());
    for (const auto& [j, w] : r) p.index.push_back(j), p.value.push_back(w);
    p.ptr.push_back(static_cast<int64_t>(p.index.size()));
  }
  return p;
}

/// The top kmax items of each of `users`, in their order, the items each user rated left
/// out (TrainedModel::seen_items): the lists evaluate_with measures.
using TestLists =
    std::function<std::vector<std::vector<int64_t>>(const std::vector<int64_t>& users, int64_t kmax)>;

/// The lists of `model`'s scores `score`, ranked user by user in blocks.
TestLists lists_by_scores(const TrainedModel& model, const BlockScorer& score, int64_t block_pairs) {
  return [&model, score, block_pairs](const std::vector<int64_t>& users, int64_t kmax) {
    const int64_t n2 = model.items();
    auto rank = [&](int64_t, int64_t user, const float* scores) {
      return eval::top_k_items(scores, n2, kmax,
                               seen_mask(n2, model.seen_items()[static_cast<size_t>(user)]));
    };
    std::vector<std::vector<int64_t>> lists;
    lists.reserve(users.size());
    for_each_block<std::vector<int64_t>>(model, score, users, block_pairs, rank,
                                         [&](std::vector<std::vector<int64_t>>& out) {
                                           for (auto& list : out) lists.push_back(std::move(list));
                                         });
    return lists;
  };
}

/// The lists of a score row that every user shares (popularity's counts): the catalogue
/// ranked once by top_k_items' rules, and each user's list the first kmax items of that
/// order they did not rate. The same lists as top_k_items over each user's copy of the row
/// (a strict order gives one answer), in O(kmax + rated) a user instead of O(items): on a
/// catalogue of 260,000 items, ranking every item for every test user was most of the
/// popularity reference's time (docs/experiments.md).
TestLists lists_of_shared_row(const TrainedModel& model, std::vector<float> row) {
  return [&model, row = std::move(row)](const std::vector<int64_t>& users, int64_t kmax) {
    const auto n2 = static_cast<int64_t>(row.size());
    const std::vector<int64_t> order = eval::top_k_items(row.data(), n2, n2, {});
    std::vector<std::vector<int64_t>> lists(users.size());
    at::parallel_for(0, static_cast<int64_t>(users.size()), 64, [&](int64_t a, int64_t z) {
      for (int64_t k = a; k < z; ++k) {
        const std::vector<int64_t>& seen =
            model.seen_items()[static_cast<size_t>(users[static_cast<size_t>(k)])];
        std::vector<int64_t>& list = lists[static_cast<size_t>(k)];
        for (size_t r = 0; r < order.size() && static_cast<int64_t>(list.size()) < kmax; ++r)
          if (!std::binary_search(seen.begin(), seen.end(), order[r])) list.push_back(order[r]);
      }
    });
    return lists;
  };
}

/// The errors of `pred` (one per test rating, clipped by the model) and the ranking metrics
/// of the lists `lists_of`.
Evaluation evaluate_with(const TrainedModel& model, const EvaluateOptions& opts,
                         const std::vector<float>& pred, const TestLists& lists_of) {
  const RatingList& test = model.dataset().test;
  Evaluation ev;
  ev.test_ratings = static_cast<int64_t>(test.size());
  // Interactions (data/feedback.h) have no rating error: the lists' figures alone.
  if (!model.dataset().implicit()) eval::add_errors(ev.errors, "", eval::differences(pred, test.value));
  const std::string& policy = opts.unknown.empty() ? model.config().data.unknown_test : opts.unknown;
  ev.unseen = infer::report_unseen(model.dataset(), std::vector<double>(pred.begin(), pred.end()), policy);
  ev.relevant_min =
      std::isnan(opts.relevant_min) ? eval::relevant_min_of(model.dataset()) : opts.relevant_min;

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
  eval::BeyondAccuracyAccumulator beyond(opts.ks, catalogue_profile(model));
  const std::vector<std::vector<int64_t>> lists = lists_of(users, acc.max_k());
  for (size_t k = 0; k < users.size(); ++k) {
    const auto& rel = relevant[static_cast<size_t>(users[k])];
    acc.add(lists[k], rel);
    if (!rel.empty()) beyond.add(lists[k]);  // the same users
  }
  ev.ranking = acc.report();
  ev.beyond = beyond.report();
  ev.beyond_basis = beyond.profile().basis;
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
  return evaluate_with(model, opts, model.predict(test.user, test.item),
                       lists_by_scores(model, score, opts.block_pairs));
}

Evaluation evaluate_popularity(const TrainedModel& model, const EvaluateOptions& opts) {
  require_test(model);
  check_evaluate_options(model, opts);
  // The popularity kind (models/popularity/popularity_model.h) over the model's own data
  // (no copy of it), with its training mean and rating range: the counts of the training and
  // validation ratings, one row of scores for every user, those without ratings among them.
  const Dataset& ds = model.dataset();
  models::ModelContext ctx;
  ctx.n1 = model.users();
  ctx.n2 = model.items();
  ctx.global_mean = model.global_mean();
  ctx.rating_min = model.rating_min();
  ctx.rating_max = model.rating_max();
  ctx.train_values = at::zeros({0});
  models::PopularityModel popularity(ctx);
  popularity.count({&ds.train, &ds.validation}, ds.feedback == "counts");
  at::NoGradGuard no_grad;
  const auto as_vector = [](const at::Tensor& t) {
    const at::Tensor c = t.to(at::kFloat).contiguous();
    return std::vector<float>(c.data_ptr<float>(), c.data_ptr<float>() + c.numel());
  };
  const RatingList& test = ds.test;
  const std::vector<float> pred = as_vector(popularity.forward(at::tensor(test.user), at::tensor(test.item))
                                                .clamp(model.rating_min(), model.rating_max()));
  std::vector<float> row = as_vector(popularity.score_items(at::zeros({1}, at::kLong), ctx.n2));
  return evaluate_with(model, opts, pred, lists_of_shared_row(model, std::move(row)));
}

}  // namespace symgnn
