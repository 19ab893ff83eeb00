// The inference API (symgnn/trained_model.h, symgnn/recommend.h) on a low-rank model
// trained here on a small CSV: recommendations against brute force over every pair, seen
// items never recommended unless asked, blocked scoring equal to unblocked, evaluate()
// against metrics computed by hand from predict(), and the errors of bad requests.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <set>
#include <sstream>

#include "infer_test_util.h"
#include "symgnn/error.h"
#include "symgnn/recommend.h"

using namespace symgnn;

namespace {

/// Trains one low-rank run on a 30 x 20 CSV (about half the cells rated) and saves it.
const std::string& trained_model_dir() {
  static const std::string dir = [] {
    const std::string d = symgnn::testing::scratch_dir("infer_model");
    std::mt19937 gen(7);
    std::uniform_real_distribution<double> coin(0, 1);
    std::uniform_int_distribution<int> star(1, 5);
    std::ostringstream csv;
    csv << "user,item,rating\n";
    for (int u = 0; u < 30; ++u)
      for (int i = 0; i < 20; ++i)
        if (coin(gen) < 0.5) csv << "u" << u << ",i" << i << "," << star(gen) << "\n";
    RunConfig cfg;
    cfg.model = "lowrank";
    cfg.data.test_fraction = 0.3;
    cfg.lowrank.hidden = 4;
    cfg.train.epochs = 5;
    cfg.train.runs = 1;
    return symgnn::testing::train_on_csv(d, csv.str(), cfg);
  }();
  return dir;
}

/// The k best candidates of `scores` by a full sort (ties: lower index first).
std::vector<int64_t> brute_top_k(const std::vector<float>& scores, const std::vector<int64_t>& seen,
                                 int64_t k) {
  std::vector<int64_t> order;
  for (int64_t i = 0; i < static_cast<int64_t>(scores.size()); ++i)
    if (!std::binary_search(seen.begin(), seen.end(), i)) order.push_back(i);
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return scores[a] > scores[b]; });
  order.resize(std::min<size_t>(order.size(), static_cast<size_t>(k)));
  return order;
}

std::vector<int64_t> all_users(const TrainedModel& m) {
  std::vector<int64_t> u(static_cast<size_t>(m.users()));
  std::iota(u.begin(), u.end(), 0);
  return u;
}

}  // namespace

TEST(TrainedModel, ScoresOfAllItemsArePredictionsOfEveryPair) {
  const TrainedModel m = TrainedModel::load(trained_model_dir());
  ASSERT_EQ(m.users(), 30);
  ASSERT_EQ(m.items(), 20);
  const std::vector<int64_t> users{0, 7, 29};
  const std::vector<float> scores = m.score_all_items(users);
  ASSERT_EQ(scores.size(), 60u);
  std::vector<int64_t> pu, pi;
  for (const int64_t u : users)
    for (int64_t i = 0; i < 20; ++i) {
      pu.push_back(u);
      pi.push_back(i);
    }
  const std::vector<float> pred = m.predict(pu, pi);
  for (size_t k = 0; k < pred.size(); ++k)
    EXPECT_NEAR(pred[k], std::clamp(scores[k], m.rating_min(), m.rating_max()), 1e-5) << k;
  EXPECT_THROW(m.predict({30}, {0}), ConfigError);
  EXPECT_THROW(m.score_all_items({-1}), ConfigError);
}

TEST(Recommend, EqualsBruteForceAndNeverReturnsASeenItemUnlessAsked) {
  const TrainedModel m = TrainedModel::load(trained_model_dir());
  const auto users = all_users(m);
  RecommendOptions opts;
  opts.k = 3;
  const auto recs = recommend(m, users, opts);
  ASSERT_EQ(recs.size(), users.size());
  const std::vector<float> scores = m.score_all_items(users);
  bool seen_recommended_with_include = false;
  opts.include_seen = true;
  const auto with_seen = recommend(m, users, opts);
  for (size_t u = 0; u < users.size(); ++u) {
    const auto& seen = m.seen_items()[u];
    ASSERT_FALSE(seen.empty());
    const std::vector<float> row(scores.begin() + static_cast<std::ptrdiff_t>(u * 20),
                                 scores.begin() + static_cast<std::ptrdiff_t>((u + 1) * 20));
    EXPECT_EQ(recs[u].user, static_cast<int64_t>(u));
    EXPECT_EQ(recs[u].items, brute_top_k(row, seen, 3)) << "user " << u;
    for (const int64_t i : recs[u].items) EXPECT_FALSE(std::binary_search(seen.begin(), seen.end(), i));
    EXPECT_EQ(with_seen[u].items, brute_top_k(row, {}, 3)) << "user " << u;
    for (const int64_t i : with_seen[u].items)
      seen_recommended_with_include |= std::binary_search(seen.begin(), seen.end(), i);
    for (size_t r = 0; r < recs[u].items.size(); ++r) {
      EXPECT_GE(recs[u].scores[r], m.rating_min());
      EXPECT_LE(recs[u].scores[r], m.rating_max());
    }
  }
  EXPECT_TRUE(seen_recommended_with_include);  // half the cells are rated: some top item is
}

TEST(Recommend, BlockedScoringEqualsUnblocked) {
  const TrainedModel m = TrainedModel::load(trained_model_dir());
  const auto users = all_users(m);
  RecommendOptions whole;
  whole.k = 5;
  whole.block_pairs = int64_t{1} << 30;
  const auto reference = recommend(m, users, whole);
  for (const int64_t block_pairs : {int64_t{1}, int64_t{20}, int64_t{7 * 20 + 3}}) {
    RecommendOptions blocked = whole;
    blocked.block_pairs = block_pairs;
    const auto got = recommend(m, users, blocked);
    ASSERT_EQ(got.size(), reference.size());
    for (size_t u = 0; u < got.size(); ++u) {
      EXPECT_EQ(got[u].items, reference[u].items) << "block_pairs " << block_pairs << ", user " << u;
      // Equal up to float rounding: a BLAS may pick another kernel for another block shape
      // (PyPI's LibTorch 2.11 did; Debian's 1.13 gives the same bits).
      ASSERT_EQ(got[u].scores.size(), reference[u].scores.size());
      for (size_t r = 0; r < got[u].scores.size(); ++r)
        EXPECT_NEAR(got[u].scores[r], reference[u].scores[r], 1e-5) << "block_pairs " << block_pairs;
    }
  }
}

TEST(Recommend, BadRequestsAreErrorsNamingTheProblem) {
  const TrainedModel m = TrainedModel::load(trained_model_dir());
  RecommendOptions opts;
  opts.k = 0;
  EXPECT_THROW(recommend(m, {0}, opts), ConfigError);
  opts.k = 20;  // every user rated some items: fewer than 20 candidates, a shorter list
  const UserRecommendations shorter = recommend(m, {3}, opts)[0];
  const auto unrated = static_cast<int64_t>(20 - m.seen_items()[3].size());
  ASSERT_GT(unrated, 0);
  EXPECT_EQ(static_cast<int64_t>(shorter.items.size()), unrated);
  EXPECT_EQ(shorter.candidates, unrated);
  const std::string note = short_list_note(shorter, "u3", 20, "");
  EXPECT_NE(note.find("user 'u3' has " + std::to_string(unrated) + " candidate items, fewer than k = 20"),
            std::string::npos)
      << note;
  opts.include_seen = true;  // all 20 items are candidates then: a full list, no note
  const UserRecommendations full = recommend(m, {3}, opts)[0];
  EXPECT_EQ(full.items.size(), 20u);
  EXPECT_EQ(full.candidates, -1);
  EXPECT_EQ(short_list_note(full, "u3", 20, ""), "");
  // No candidate at all: the one error, naming the user and the filters.
  opts.include_seen = false;
  opts.filter.allowed.assign(20, 0);
  opts.filter.allowed[static_cast<size_t>(m.seen_items()[3][0])] = 1;
  opts.filter.what = "items";
  try {
    recommend(m, {3}, opts);
    ADD_FAILURE() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("user 'u3' has no candidate item after the filters (items)"),
              std::string::npos)
        << e.what();
  }
  opts.filter = ItemFilter{};
  opts.k = 1;
  EXPECT_THROW(recommend(m, {30}, opts), ConfigError);
}

TEST(Evaluate, MatchesMetricsComputedByHandFromPredict) {
  const TrainedModel m = TrainedModel::load(trained_model_dir());
  const RatingList& test = m.dataset().test;
  ASSERT_GT(test.size(), 0u);
  EvaluateOptions opts;
  opts.ks = {1, 5, 20};  // 20, the whole catalogue: more than any user's candidates
  const Evaluation ev = evaluate(m, opts);

  const std::vector<float> pred = m.predict(test.user, test.item);
  double se = 0, ae = 0;
  for (size_t e = 0; e < test.size(); ++e) {
    se += std::pow(pred[e] - test.value[e], 2);
    ae += std::abs(pred[e] - test.value[e]);
  }
  EXPECT_NEAR(ev.errors.at("rmse"), std::sqrt(se / test.size()), 1e-6);
  EXPECT_NEAR(ev.errors.at("mae"), ae / test.size(), 1e-6);
  EXPECT_EQ(ev.relevant_min, 4.0);

  // Precision, recall and hit rate at each k from full sorts of every pair's score.
  const auto users = all_users(m);
  const std::vector<float> scores = m.score_all_items(users);
  for (size_t kk = 0; kk < opts.ks.size(); ++kk) {
    const int64_t k = opts.ks[kk];
    double prec = 0, rec = 0, hit = 0;
    int64_t evaluated = 0;
    for (const int64_t u : users) {
      std::set<int64_t> relevant;
      for (size_t e = 0; e < test.size(); ++e)
        if (test.user[e] == u && test.value[e] >= 4) relevant.insert(test.item[e]);
      if (relevant.empty()) continue;
      ++evaluated;
      const std::vector<float> row(scores.begin() + u * 20, scores.begin() + (u + 1) * 20);
      int64_t hits = 0;
      for (const int64_t i : brute_top_k(row, m.seen_items()[static_cast<size_t>(u)], k))
        hits += relevant.count(i);
      prec += static_cast<double>(hits) / static_cast<double>(k);
      rec += static_cast<double>(hits) / static_cast<double>(relevant.size());
      hit += hits > 0 ? 1 : 0;
    }
    ASSERT_GT(evaluated, 0);
    EXPECT_EQ(ev.ranking.users_evaluated, evaluated);
    const auto& a = ev.ranking.at_k[kk];
    EXPECT_EQ(a.k, k);
    EXPECT_NEAR(eval::metric_value(a, "precision"), prec / evaluated, 1e-12) << "k " << k;
    EXPECT_NEAR(eval::metric_value(a, "recall"), rec / evaluated, 1e-12) << "k " << k;
    EXPECT_NEAR(eval::metric_value(a, "hit_rate"), hit / evaluated, 1e-12) << "k " << k;
  }
  // With k beyond every candidate list, recall is 1 for every evaluated user.
  EXPECT_NEAR(eval::metric_value(ev.ranking.at_k[2], "recall"), 1.0, 1e-12);
}
