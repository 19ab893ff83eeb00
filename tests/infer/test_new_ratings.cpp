// Inductive prediction (infer/new_ratings.h): a model trained without some users is given
// their ratings at load time; the new users' predictions come from those ratings through
// the trained prior encoder, their rated items are not recommended, and bad files are
// errors naming the line.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <sstream>

#include "infer/new_node_files.h"
#include "infer_test_util.h"
#include "symgnn/error.h"
#include "symgnn/recommend.h"

using namespace symgnn;

namespace {

/// A low-rank model whose users are placed by the prior encoder from their ratings alone
/// (what takes new users without retraining), trained on all ratings given.
RunConfig encoder_config(int64_t epochs) {
  RunConfig cfg;
  cfg.model = "lowrank";
  cfg.data.val_fraction = 0;
  cfg.lowrank.hidden = 8;
  cfg.lowrank.layers = 0;
  cfg.lowrank.prior = "encoder";
  cfg.lowrank.id_embedding = false;
  cfg.lowrank.prior_width = 20;
  cfg.train.epochs = epochs;
  cfg.train.runs = 1;
  return cfg;
}

/// Ratings of a 30 x 20 matrix in which users rate items of their "taste" high: users
/// u0..u24 in the training CSV, u25..u29 held out for --new-ratings.
struct Fixture {
  std::string dir;
  Fixture() {
    dir = symgnn::testing::scratch_dir("infer_new_ratings");
    std::mt19937 gen(11);
    std::uniform_real_distribution<double> coin(0, 1);
    std::ostringstream train, held;
    train << "user,item,rating\n";
    held << "user,item,rating\n";
    for (int u = 0; u < 30; ++u)
      for (int i = 0; i < 20; ++i) {
        if (coin(gen) > 0.6) continue;
        const int r = (u % 2 == i % 2) ? 5 : 1;  // two tastes: even and odd items
        (u < 25 ? train : held) << "u" << u << ",i" << i << "," << r << "\n";
      }
    symgnn::testing::write_file(dir, "held.csv", held.str());
    RunConfig cfg = encoder_config(150);
    cfg.lowrank.prior_node_dropout = 0.1;
    cfg.lowrank.prior_dense_dropout = 0.1;
    cfg.lowrank.decoder = "classes";
    cfg.train.lr = 0.02;
    cfg.train.weight_decay = 0;
    symgnn::testing::train_on_csv(dir, train.str(), cfg);
  }
};

const Fixture& fixture() {
  static const Fixture f;
  return f;
}

}  // namespace

TEST(NewRatings, NewUsersArePredictedFromTheRatingsGiven) {
  const Fixture& f = fixture();
  const TrainedModel m = TrainedModel::load(f.dir + "/run", "cpu", f.dir + "/held.csv");
  EXPECT_EQ(m.users(), 30);
  EXPECT_EQ(m.new_ratings().new_users, 5);
  EXPECT_EQ(m.new_ratings().new_items, 0);
  EXPECT_GT(m.new_ratings().ratings, 0);
  // Each new user's unrated items of their own taste must score above the other taste's.
  int agree = 0, total = 0;
  for (int k = 0; k < 5; ++k) {
    const int u = 25 + k;
    int64_t index = -1;
    for (int64_t x = 0; x < m.users(); ++x)
      if (m.dataset().users.id_of(x) == "u" + std::to_string(u)) index = x;
    ASSERT_GE(index, 25);
    const std::vector<float> s = m.score_all_items({index});
    double same = 0, other = 0;
    int ns = 0, no = 0;
    for (int64_t i = 0; i < 20; ++i) {
      const int item_number = std::stoi(m.dataset().items.id_of(i).substr(1));
      (item_number % 2 == u % 2 ? same : other) += s[static_cast<size_t>(i)];
      (item_number % 2 == u % 2 ? ns : no) += 1;
    }
    agree += same / ns > other / no ? 1 : 0;
    ++total;
    // Their given items are seen: never recommended.
    RecommendOptions ro;
    ro.k = 3;
    const std::vector<UserRecommendations> recs = recommend(m, {index}, ro);  // kept: the loop reads it
    for (const int64_t i : recs[0].items)
      EXPECT_FALSE(std::binary_search(m.seen_items()[static_cast<size_t>(index)].begin(),
                                      m.seen_items()[static_cast<size_t>(index)].end(), i));
  }
  EXPECT_EQ(agree, total);
}

// TrainedModel::with_new_nodes grows the model in memory exactly as load() grows the saved
// one: the same users, data and scores, bit for bit; the base model is left as it was.
TEST(NewRatings, GrowingInMemoryEqualsLoadingWithTheRatings) {
  const Fixture& f = fixture();
  const TrainedModel from_disk = TrainedModel::load(f.dir + "/run", "cpu", f.dir + "/held.csv");
  const TrainedModel base = TrainedModel::load(f.dir + "/run");
  const std::vector<float> base_scores = base.score_all_items({0, 1});
  symgnn::NewNodeFiles files;
  files.ratings = f.dir + "/held.csv";
  const TrainedModel in_memory =
      base.with_new_nodes(symgnn::infer::read_new_node_files(files, base.dataset()));
  ASSERT_EQ(in_memory.users(), from_disk.users());
  EXPECT_EQ(in_memory.new_ratings().new_users, from_disk.new_ratings().new_users);
  EXPECT_EQ(in_memory.new_ratings().ratings, from_disk.new_ratings().ratings);
  EXPECT_EQ(in_memory.ranker(), from_disk.ranker());
  std::vector<int64_t> all(static_cast<size_t>(from_disk.users()));
  for (size_t u = 0; u < all.size(); ++u) all[u] = static_cast<int64_t>(u);
  EXPECT_EQ(in_memory.score_all_items(all), from_disk.score_all_items(all));
  const symgnn::RatingList& test = from_disk.dataset().test;
  EXPECT_EQ(in_memory.predict(test.user, test.item), from_disk.predict(test.user, test.item));
  EXPECT_EQ(base.users(), 25);
  EXPECT_EQ(base.score_all_items({0, 1}), base_scores);
}

// NewNodes::rows (a Delta): the same ratings given in memory grow the model as the file does
// (the same nodes, scores and predictions, bit for bit), and a bad row is an error naming it
// as rows_name[k] that leaves the model as it was.
TEST(NewRatings, RowsInMemoryEqualTheFileAndBadRowsAreNamed) {
  const Fixture& f = fixture();
  const TrainedModel base = TrainedModel::load(f.dir + "/run");
  symgnn::NewNodeFiles file;
  file.ratings = f.dir + "/held.csv";
  const TrainedModel from_file =
      base.with_new_nodes(symgnn::infer::read_new_node_files(file, base.dataset()));
  symgnn::NewNodes rows;
  std::istringstream held(symgnn::testing::read_file(f.dir + "/held.csv"));
  std::string line;
  std::getline(held, line);  // the header
  while (std::getline(held, line)) {
    const size_t a = line.find(','), b = line.find(',', a + 1);
    rows.rows.ratings.push_back(
        {line.substr(0, a), line.substr(a + 1, b - a - 1), std::stod(line.substr(b + 1))});
  }
  const TrainedModel from_rows = base.with_new_nodes(rows);
  ASSERT_EQ(from_rows.users(), from_file.users());
  EXPECT_EQ(from_rows.new_ratings().ratings, from_file.new_ratings().ratings);
  EXPECT_EQ(from_rows.new_ratings().new_users, 5);
  std::vector<int64_t> all(static_cast<size_t>(from_file.users()));
  for (size_t u = 0; u < all.size(); ++u) all[u] = static_cast<int64_t>(u);
  EXPECT_EQ(from_rows.score_all_items(all), from_file.score_all_items(all));
  EXPECT_EQ(from_rows.seen_items(), from_file.seen_items());

  const auto error_of = [&](std::vector<Delta::Rating> bad) {
    symgnn::NewNodes n;
    n.rows.ratings = std::move(bad);
    n.rows.ratings_name = "given";
    try {
      base.with_new_nodes(n);
    } catch (const DataError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const std::string rated = base.dataset().items.id_of(base.dataset().train.item[0]);
  const std::string first_user = base.dataset().users.id_of(base.dataset().train.user[0]);
  EXPECT_EQ(error_of({{"new", "i1", 5}, {"new", "i2", 3.5}}),
            "given[1]: rating 3.5 is not one of the model's rating levels (1 5)");
  EXPECT_EQ(error_of({{"new", "i1", 5}, {"new", "i2", 9}}),
            "given[1]: rating 9 is outside the model's rating range [1, 5]");  // a two-level scale
  EXPECT_NE(error_of({{"new\tcomer", "i1", 5}}).find("given[0]: user id 'new\\x09comer' holds a tab"),
            std::string::npos)
      << error_of({{"new\tcomer", "i1", 5}});
  EXPECT_EQ(error_of({{"new", "i1", 5}, {"new", "i1", 1}}),
            "given[1]: the pair ('new', 'i1') is given twice");
  EXPECT_EQ(error_of({{first_user, rated, 5}}),
            "given[0]: the pair ('" + first_user + "', '" + rated + "') is already in the model's data");
  EXPECT_EQ(error_of({{"new", "", 5}}), "given[0]: empty item id");
  EXPECT_EQ(error_of({{"new", "i1", std::nan("")}}), "given[0]: rating is not a finite number");
  EXPECT_EQ(error_of({{"new", "i1", 9}}).rfind("given[0]: rating ", 0), 0u);
  EXPECT_EQ(base.users(), 25);
}

TEST(NewRatings, BadFilesAreErrorsNamingTheLine) {
  const Fixture& f = fixture();
  const std::string& d = f.dir;
  symgnn::testing::write_file(d, "level.csv", "u40,i1,5\nu40,i2,3.5\n");
  symgnn::testing::write_file(d, "known.csv", "u41,i1,5\n");
  // The first training line of ratings.csv, given again.
  const std::string first = symgnn::testing::read_file(d + "/ratings.csv");
  const std::string line1 =
      first.substr(first.find('\n') + 1, first.find('\n', first.find('\n') + 1) - first.find('\n') - 1);
  symgnn::testing::write_file(d, "again.csv", line1 + "\n");
  try {
    TrainedModel::load(d + "/run", "cpu", d + "/level.csv");
    ADD_FAILURE() << "no error";
  } catch (const DataError& e) {
    EXPECT_NE(std::string(e.what()).find("level.csv:2"), std::string::npos) << e.what();
  }
  try {
    TrainedModel::load(d + "/run", "cpu", d + "/again.csv");
    ADD_FAILURE() << "no error";
  } catch (const DataError& e) {
    EXPECT_NE(std::string(e.what()).find("already in the model's data"), std::string::npos) << e.what();
  }
  EXPECT_THROW(TrainedModel::load(d + "/run", "cpu", d + "/missing.csv"), DataError);
  const TrainedModel m = TrainedModel::load(d + "/run", "cpu", d + "/known.csv");
  EXPECT_EQ(m.new_ratings().new_users, 1);
}

TEST(NewRatings, TheClassDecodersDenseScoresEqualItsPairPredictions) {
  const Fixture& f = fixture();
  const TrainedModel m = TrainedModel::load(f.dir + "/run");
  const std::vector<int64_t> users{0, 3, 24};
  const std::vector<float> dense = m.score_all_items(users);
  std::vector<int64_t> pu, pi;
  for (const int64_t u : users)
    for (int64_t i = 0; i < m.items(); ++i) pu.push_back(u), pi.push_back(i);
  const std::vector<float> pairs = m.predict(pu, pi);
  ASSERT_EQ(dense.size(), pairs.size());
  for (size_t k = 0; k < dense.size(); ++k)
    EXPECT_NEAR(std::clamp(dense[k], m.rating_min(), m.rating_max()), pairs[k], 1e-5) << k;
}

// A refresh: fresh ratings of a trained user (a test pair among them) join theirs; the items
// leave their candidates, and their scores equal those of the model loaded with the same
// ratings from a file; a pair the model learned from is still refused.
TEST(NewRatings, ATrainedUsersFreshRatingsRefreshTheirList) {
  const Fixture& f = fixture();
  const TrainedModel base = TrainedModel::load(f.dir + "/run");
  const Dataset& ds = base.dataset();
  const int64_t u = 3;
  const std::string user = ds.users.id_of(u);
  // Two items the user did not rate in training: one of their test ratings where they have one.
  std::vector<std::string> fresh;
  for (size_t e = 0; e < ds.test.size() && fresh.empty(); ++e)
    if (ds.test.user[e] == u) fresh.push_back(ds.items.id_of(ds.test.item[e]));
  const auto& seen = base.seen_items()[static_cast<size_t>(u)];
  for (int64_t i = 0; i < base.items() && fresh.size() < 2; ++i)
    if (!std::binary_search(seen.begin(), seen.end(), i) && (fresh.empty() || ds.items.id_of(i) != fresh[0]))
      fresh.push_back(ds.items.id_of(i));
  ASSERT_EQ(fresh.size(), 2u);
  symgnn::NewNodes rows;
  for (const std::string& item : fresh) rows.rows.ratings.push_back({user, item, 5});
  const TrainedModel refreshed = base.with_new_nodes(rows);
  EXPECT_EQ(refreshed.users(), base.users());
  EXPECT_EQ(refreshed.new_ratings().new_users, 0);
  EXPECT_EQ(refreshed.new_ratings().ratings, 2);
  symgnn::testing::write_file(
      f.dir, "fresh.csv",
      "user,item,rating\n" + user + "," + fresh[0] + ",5\n" + user + "," + fresh[1] + ",5\n");
  const TrainedModel loaded = TrainedModel::load(f.dir + "/run", "cpu", f.dir + "/fresh.csv");
  const std::vector<float> a = refreshed.score_all_items({u}), b = loaded.score_all_items({u});
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i], b[i], 1e-5);
  RecommendOptions ro;
  ro.k = 3;
  const std::vector<UserRecommendations> lists = recommend(refreshed, {u}, ro);
  for (const int64_t i : lists[0].items)
    EXPECT_TRUE(std::find(fresh.begin(), fresh.end(), ds.items.id_of(i)) == fresh.end());
  const auto& now_seen = refreshed.seen_items()[static_cast<size_t>(u)];
  EXPECT_EQ(now_seen.size(), seen.size() + 2);
  // A pair the model learned from is still refused.
  symgnn::NewNodes again;
  again.rows.ratings.push_back({ds.users.id_of(ds.train.user[0]), ds.items.id_of(ds.train.item[0]), 5});
  EXPECT_THROW(base.with_new_nodes(again), DataError);
}

TEST(NewRatings, AContinuousTargetTakesAnyValueInItsRange) {
  // A continuous target (ln(1 + plays): hundreds of distinct values) is no rating scale: a new
  // user's value need not be one the training ratings hold (issue 65, item 6); one outside
  // the range is still refused, printed as given.
  const std::string dir = symgnn::testing::scratch_dir("infer_new_ratings_continuous");
  std::ostringstream train;
  train << "user,item,rating\n";
  for (int u = 0; u < 25; ++u)
    for (int i = 0; i < 20; ++i)
      if ((u + 2 * i) % 3 != 0) train << "u" << u << ",i" << i << "," << std::log1p(1.0 + u * 20 + i) << "\n";
  const TrainedModel base =
      TrainedModel::load(symgnn::testing::train_on_csv(dir, train.str(), encoder_config(5)));
  ASSERT_GT(base.dataset().rating_levels.size(), 20u);
  const float lo = base.dataset().rating_min, hi = base.dataset().rating_max;
  const double between = 0.5 * (lo + hi) + 1e-4;  // held by no training rating
  ASSERT_TRUE(std::find(base.dataset().rating_levels.begin(), base.dataset().rating_levels.end(),
                        static_cast<float>(between)) == base.dataset().rating_levels.end());
  symgnn::NewNodes n;
  n.rows.ratings = {{"fresh", "i1", between}, {"fresh", "i2", lo}};
  n.rows.ratings_name = "given";
  const TrainedModel grown = base.with_new_nodes(n);
  EXPECT_EQ(grown.users(), base.users() + 1);
  n.rows.ratings = {{"fresh", "i1", hi + 1.0}};
  try {
    base.with_new_nodes(n);
    ADD_FAILURE() << "a value outside the range joined";
  } catch (const DataError& e) {
    EXPECT_NE(std::string(e.what()).find("given[0]: rating "), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("is outside the model's rating range"), std::string::npos)
        << e.what();
  }
}
