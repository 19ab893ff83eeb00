/// @file test_generate.cpp
/// `symgnn data generate` (data/generate.h): seeded byte-identical output, exact counts,
/// unique in-range pairs, heavy-tailed degrees, star ratings with a realistic mean, files the
/// CSV loader reads, and no temporary left when a write fails.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <vector>

#include "common/test_support.h"
#include "data/generate.h"
#include "symgnn/config.h"
#include "symgnn/dataset.h"
#include "symgnn/error.h"
#include "util/fault_injection.h"

using namespace symgnn;
using symgnn::data::GenerateSpec;
using symgnn::testing::read_file;
using symgnn::testing::scratch_dir;
namespace fs = std::filesystem;

namespace {

GenerateSpec small_spec(const std::string& dir, uint64_t seed = 3) {
  GenerateSpec s;
  s.users = 3000;
  s.items = 800;
  s.ratings = 120000;
  s.seed = seed;
  s.graph_k = 5;
  s.out_dir = dir;
  return s;
}

struct Rating {
  int64_t user, item, stars;
};

std::vector<Rating> ratings_of(const std::string& path) {
  std::vector<Rating> out;
  std::istringstream in(read_file(path));
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "user,item,rating");
  char c1, c2;
  Rating r{};
  while (in >> r.user >> c1 >> r.item >> c2 >> r.stars) out.push_back(r);
  return out;
}

}  // namespace

TEST(Generate, SameSeedSameBytesOtherSeedOtherBytes) {
  const std::string a = scratch_dir("gen_a"), b = scratch_dir("gen_b"), c = scratch_dir("gen_c");
  data::generate_dataset(small_spec(a), {});
  data::generate_dataset(small_spec(b), {});
  data::generate_dataset(small_spec(c, 4), {});
  for (const char* f : {"ratings.csv", "test.csv", "user_graph.csv", "item_graph.csv"}) {
    EXPECT_EQ(read_file(a + "/" + f), read_file(b + "/" + f)) << f;
    EXPECT_NE(read_file(a + "/" + f), read_file(c + "/" + f)) << f;
  }
}

TEST(Generate, ExactCountsUniqueInRangePairsAndHeavyTails) {
  const std::string dir = scratch_dir("gen_counts");
  const GenerateSpec s = small_spec(dir);
  const data::GenerateSummary sum = data::generate_dataset(s, {});
  const std::vector<Rating> train = ratings_of(dir + "/ratings.csv"), test = ratings_of(dir + "/test.csv");
  EXPECT_EQ(static_cast<int64_t>(train.size() + test.size()), s.ratings);
  EXPECT_EQ(static_cast<int64_t>(test.size()), 12000);  // round(0.1 x 120,000)
  EXPECT_EQ(sum.train, static_cast<int64_t>(train.size()));
  std::set<std::pair<int64_t, int64_t>> pairs;
  std::vector<int64_t> user_degree(s.users + 1, 0), item_degree(s.items + 1, 0), train_items(s.items + 1, 0),
      train_users(s.users + 1, 0);
  double stars = 0;
  std::map<int64_t, int64_t> levels;
  for (const auto* list : {&train, &test})
    for (const Rating& r : *list) {
      ASSERT_GE(r.user, 1);
      ASSERT_LE(r.user, s.users);
      ASSERT_GE(r.item, 1);
      ASSERT_LE(r.item, s.items);
      ASSERT_TRUE(pairs.insert({r.user, r.item}).second) << r.user << "," << r.item;
      ++user_degree[r.user], ++item_degree[r.item];
      stars += r.stars;
      ++levels[r.stars];
    }
  for (const Rating& r : train) ++train_users[r.user], ++train_items[r.item];
  // Every id the test file names is known from training.
  for (int64_t u = 1; u <= s.users; ++u) ASSERT_GT(train_users[u], 0) << u;
  for (int64_t i = 1; i <= s.items; ++i) ASSERT_GT(train_items[i], 0) << i;
  EXPECT_EQ(levels.begin()->first, 1);
  EXPECT_EQ(levels.rbegin()->first, 5);
  EXPECT_EQ(levels.size(), 5u);
  EXPECT_NEAR(stars / static_cast<double>(s.ratings), 3.5, 0.15);
  // Heavy tails: the busiest user rates many times the mean; the top 1% of items hold a
  // share of the ratings far above 1%.
  const double mean_user = static_cast<double>(s.ratings) / static_cast<double>(s.users);
  EXPECT_GT(*std::max_element(user_degree.begin(), user_degree.end()), 8 * mean_user);
  std::sort(item_degree.rbegin(), item_degree.rend());
  int64_t top = 0;
  for (int64_t k = 0; k < s.items / 100; ++k) top += item_degree[k];
  EXPECT_GT(static_cast<double>(top) / static_cast<double>(s.ratings), 0.08);
  EXPECT_EQ(sum.max_item_degree, item_degree[0]);
}

TEST(Generate, TheCsvLoaderReadsTheSetWithItsGraphs) {
  const std::string dir = scratch_dir("gen_load");
  GenerateSpec s = small_spec(dir);
  s.users = 300, s.items = 200, s.ratings = 6000;
  data::generate_dataset(s, {});
  const std::string conf = read_file(dir + "/data.conf");
  EXPECT_NE(conf.find("data.source = " + fs::absolute(dir).lexically_normal().string() + "/ratings.csv"),
            std::string::npos)
      << conf;
  DataConfig cfg;
  cfg.source = dir + "/ratings.csv";
  cfg.test_file = dir + "/test.csv";
  cfg.user_graph_file = dir + "/user_graph.csv";
  cfg.item_graph_file = dir + "/item_graph.csv";
  cfg.val_fraction = 0.0;
  const Dataset ds = load_dataset(cfg);
  EXPECT_EQ(ds.users.count, 300);
  EXPECT_EQ(ds.items.count, 200);
  EXPECT_EQ(ds.num_ratings(), 6000u);
  EXPECT_EQ(ds.test.size(), 600u);
  EXPECT_EQ(ds.users.graph_origin, GraphOrigin::File);
  EXPECT_GE(ds.users.graph.size(), 300u * 5u);  // 5 links a user, both directions stored
  EXPECT_GE(ds.items.graph.size(), 200u * 5u);
}

TEST(Generate, BadSpecsAreOneLineUsageErrors) {
  const std::string dir = scratch_dir("gen_bad");
  const auto message = [&](GenerateSpec s) -> std::string {
    try {
      data::check_generate_spec(s);
    } catch (const UsageError& e) {
      return e.what();
    }
    return "<none>";
  };
  GenerateSpec s = small_spec(dir);
  s.ratings = 100;
  EXPECT_NE(message(s).find("--ratings 100: must be at least"), std::string::npos) << message(s);
  s = small_spec(dir);
  s.ratings = s.users * s.items + 1;
  EXPECT_NE(message(s).find("distinct pairs"), std::string::npos);
  s = small_spec(dir);
  s.test_fraction = 1.0;
  EXPECT_NE(message(s).find("--test-fraction"), std::string::npos);
  s = small_spec(dir);
  s.users = 0;
  EXPECT_NE(message(s).find("--users 0"), std::string::npos);
  s = small_spec(dir);
  data::generate_dataset(s, {});
  EXPECT_NE(message(s).find("--overwrite"), std::string::npos);
  s.overwrite = true;
  EXPECT_EQ(message(s), "<none>");
  GenerateSpec p;
  EXPECT_TRUE(data::generate_preset("netflix-like", p));
  EXPECT_EQ(p.ratings, 100000000);
  EXPECT_FALSE(data::generate_preset("imdb", p));
}

TEST(Generate, AFailedWriteLeavesNoTemporaryAndNoConfig) {
  for (const char* spec : {"write:ENOSPC:test.csv", "write:EIO:item_graph.csv", "write:EACCES:ratings.csv"}) {
    const std::string dir = scratch_dir("gen_fault");
    fault::configure(spec);
    GenerateSpec s = small_spec(dir);
    EXPECT_THROW(data::generate_dataset(s, {}), Error) << spec;
    fault::configure("");
    for (const auto& e : fs::directory_iterator(dir)) {
      EXPECT_EQ(e.path().filename().string().find(".tmp."), std::string::npos) << spec << ": " << e.path();
      EXPECT_NE(e.path().filename(), "data.conf") << spec;  // the set is not announced
    }
  }
}
