/// @file test_time_split.cpp
/// Rating times and the time-aware splits (src/data/time_split.h): the time column of a
/// ratings CSV and its errors, data.split = temporal (exactly the ratings at or after the
/// cut-off are test), leave_last_out (each user's last n, equal times in file order), the
/// validation carved by time, the leakage counts against brute force, MovieLens timestamps.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <tuple>

#include "common/test_support.h"
#include "data/data_test_util.h"
#include "data/loaders.h"
#include "data/parsers.h"
#include "data/time_split.h"
#include "symgnn/config.h"
#include "symgnn/dataset.h"
#include "symgnn/error.h"

using symgnn::DataConfig;
using symgnn::Dataset;
using symgnn::RatingList;
using symgnn::TimeSplitReport;
using symgnn::testing::scratch_dir;
using symgnn::testing::write_file;
namespace data = symgnn::data;

namespace {

/// One rating of a test file: ids as written, its time.
struct TimedRating {
  std::string user, item;
  float value;
  double time;
};

/// `n` ratings of `users` x `items` (each pair once) with seeded times drawn from `span`
/// distinct values (a small span makes many equal times).
std::vector<TimedRating> timed_ratings(int users, int items, int n, int span, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<std::pair<int, int>> pairs;
  for (int u = 0; u < users; ++u)
    for (int i = 0; i < items; ++i) pairs.emplace_back(u, i);
  std::shuffle(pairs.begin(), pairs.end(), rng);
  std::vector<TimedRating> out;
  for (int k = 0; k < n && k < static_cast<int>(pairs.size()); ++k)
    out.push_back({"u" + std::to_string(pairs[k].first), "i" + std::to_string(pairs[k].second),
                   static_cast<float>(1 + rng() % 5), static_cast<double>(1000 + rng() % span)});
  return out;
}

std::string csv_of(const std::vector<TimedRating>& r,
                   const std::string& header = "user,item,rating,timestamp\n") {
  std::ostringstream os;
  os << header;
  for (const TimedRating& x : r)
    os << x.user << "," << x.item << "," << x.value << "," << std::fixed << x.time << "\n";
  return os.str();
}

/// (user id, item id) of each rating of `r` in `ds`'s ids.
std::vector<std::pair<std::string, std::string>> id_pairs(const Dataset& ds, const RatingList& r) {
  std::vector<std::pair<std::string, std::string>> out;
  for (size_t k = 0; k < r.size(); ++k)
    out.emplace_back(ds.users.id_of(r.user[k]), ds.items.id_of(r.item[k]));
  std::sort(out.begin(), out.end());
  return out;
}

DataConfig csv_config(const std::string& path, const std::string& split) {
  DataConfig cfg;
  cfg.source = path;
  cfg.split = split;
  return cfg;
}

}  // namespace

TEST(RatingTimes, NumbersAndUtcDates) {
  double t = -1;
  EXPECT_TRUE(data::to_time("874965758", t));
  EXPECT_EQ(t, 874965758.0);
  EXPECT_TRUE(data::to_time("1.5", t));
  EXPECT_EQ(t, 1.5);
  EXPECT_TRUE(data::to_time("1970-01-01", t));
  EXPECT_EQ(t, 0.0);
  EXPECT_TRUE(data::to_time("1997-09-22T22:02:38", t));  // the first rating of u.data, 874965758
  EXPECT_EQ(t, 874965758.0);
  EXPECT_TRUE(data::to_time("1997-09-22 22:02:38Z", t));
  EXPECT_EQ(t, 874965758.0);
  EXPECT_TRUE(data::to_time("2000-02-29", t));
  EXPECT_EQ(t, 951782400.0);
  EXPECT_TRUE(data::to_time("1969-12-31T23:59:59", t));
  EXPECT_EQ(t, -1.0);
  EXPECT_TRUE(data::to_time("253402300799", t));  // 9999-12-31T23:59:59Z, the last time taken
  EXPECT_TRUE(data::to_time("9999-12-31T23:59:59", t));
  EXPECT_EQ(t, 253402300799.0);
  for (const char* bad : {"", "yesterday", "nan", "inf", "1e400", "2023-02-29", "2023-13-01", "2023-1-01",
                          "2023-01-01T24:00:00", "2023-01-01T12:00", "12:00:00", "2023/01/01", "1e30",
                          "-1e30", "253402300800"}) {
    SCOPED_TRACE(bad);
    EXPECT_FALSE(data::to_time(bad, t));
  }
}

TEST(RatingTimes, CsvTimeColumnByHeaderOrPosition) {
  const auto dir = scratch_dir("times_csv");
  // A header naming the 4th column as a time, in any case; a file without a header.
  for (const auto& [file, text] : std::vector<std::pair<std::string, std::string>>{
           {"named.csv", "user,item,rating,TimeStamp\na,x,5,30\nb,x,3,10\na,y,4,2000-01-01\n"},
           {"bare.tsv", "a\tx\t5\t30\nb\tx\t3\t10\na\ty\t4\t2000-01-01\n"}}) {
    SCOPED_TRACE(file);
    const std::string text_copy = text;
    const auto raw = data::parse_ratings_text(text_copy, file);
    ASSERT_EQ(raw.size(), 3u);
    EXPECT_EQ(raw[0].time, 30.0);
    EXPECT_EQ(raw[1].time, 10.0);
    EXPECT_EQ(raw[2].time, 946684800.0);
  }
  // A header naming the 4th column otherwise: an ignored column, as before times were read.
  const std::string other = "user,item,rating,comment\na,x,5,great\n";
  const auto raw = data::parse_ratings_text(other, "other.csv");
  ASSERT_EQ(raw.size(), 1u);
  EXPECT_TRUE(std::isnan(raw[0].time));
  const std::string three = "a,x,5\n";
  EXPECT_TRUE(std::isnan(data::parse_ratings_text(three, "three.csv")[0].time));
}

TEST(RatingTimes, NonNumericTimeNamesFileAndLine) {
  const auto dir = scratch_dir("times_bad");
  const std::string path = write_file(dir, "r.csv", "user,item,rating,timestamp\na,x,5,30\nb,x,3,soon\n");
  EXPECT_DATA_ERROR(data::load_ratings_file(path, csv_config(path, "u1")), "r.csv:3:", "time 'soon'",
                    "is not a time");
  // Without a header, the 4th column is the time as well.
  const std::string bare = write_file(dir, "bare.csv", "a,x,5,30\nb,x,3,1998-02-30\n");
  EXPECT_DATA_ERROR(data::load_ratings_file(bare, csv_config(bare, "u1")),
                    "bare.csv:2:", "time '1998-02-30'");
  // A line without the time its file has.
  const std::string short_line = write_file(dir, "short.csv", "a,x,5,30\nb,x,3\n");
  EXPECT_DATA_ERROR(data::load_ratings_file(short_line, csv_config(short_line, "u1")),
                    "short.csv:2:", "user, item, rating, time");
}

TEST(RatingTimes, TimeSplitsNeedTimes) {
  const auto dir = scratch_dir("times_none");
  const std::string path = write_file(dir, "r.csv", "a,x,5\nb,x,3\na,y,4\n");
  for (const char* split : {"temporal", "leave_last_out"}) {
    SCOPED_TRACE(split);
    EXPECT_DATA_ERROR(symgnn::load_dataset(csv_config(path, split)), "r.csv", split, "no time column");
    EXPECT_DATA_ERROR(symgnn::load_dataset(csv_config("synthetic", split)), "synthetic", split, "times");
  }
  // Files without times keep loading under the other splits.
  EXPECT_EQ(symgnn::load_dataset(csv_config(path, "u1"), false).num_ratings(), 3u);
  // A cut-off without the temporal split, a test file with it: refused, not ignored.
  DataConfig cut = csv_config(path, "u1");
  cut.split_time = "100";
  EXPECT_THROW(symgnn::load_dataset(cut), symgnn::ConfigError);
  const std::string timed = write_file(dir, "t.csv", "a,x,5,1\nb,x,3,2\na,y,4,3\n");
  DataConfig with_test = csv_config(timed, "temporal");
  with_test.test_file = timed;
  EXPECT_THROW(symgnn::load_dataset(with_test), symgnn::ConfigError);
  DataConfig bad_cut = csv_config(timed, "temporal");
  bad_cut.split_time = "next week";
  EXPECT_THROW(symgnn::load_dataset(bad_cut), symgnn::ConfigError);
}

TEST(TemporalSplit, ExactlyTheRatingsAtOrAfterTheCutoffAreTest) {
  const auto ratings = timed_ratings(12, 15, 120, 40, 5);  // many equal times
  const auto dir = scratch_dir("temporal");
  const std::string path = write_file(dir, "r.csv", csv_of(ratings));
  for (const char* cut : {"1020", "1970-01-01T00:17:00"}) {  // the same second
    SCOPED_TRACE(cut);
    DataConfig cfg = csv_config(path, "temporal");
    cfg.split_time = cut;
    cfg.val_fraction = 0;
    const Dataset ds = symgnn::load_dataset(cfg);
    std::vector<std::pair<std::string, std::string>> want_test, want_train;
    for (const TimedRating& r : ratings)
      (r.time >= 1020 ? want_test : want_train).emplace_back(r.user, r.item);
    std::sort(want_test.begin(), want_test.end());
    std::sort(want_train.begin(), want_train.end());
    EXPECT_EQ(id_pairs(ds, ds.test), want_test);
    EXPECT_EQ(id_pairs(ds, ds.train), want_train);
    EXPECT_TRUE(ds.validation.empty());
    EXPECT_EQ(ds.time_split.split, "temporal");
    EXPECT_EQ(ds.time_split.cutoff, 1020.0);
    EXPECT_EQ(ds.time_split.later_training, 0);  // nothing before a global cut-off is later than it
  }
}

TEST(TemporalSplit, FractionCutsAtTheLatestRatings) {
  // Distinct times: the latest round(0.2 x 50) = 10 are test.
  std::vector<TimedRating> ratings;
  for (int k = 0; k < 50; ++k)
    ratings.push_back({"u" + std::to_string(k % 7), "i" + std::to_string(k), 3.0f, 5000.0 - 7 * k});
  const auto dir = scratch_dir("temporal_fraction");
  const std::string path = write_file(dir, "r.csv", csv_of(ratings));
  DataConfig cfg = csv_config(path, "temporal");
  cfg.test_fraction = 0.2;
  cfg.val_fraction = 0.1;
  const Dataset ds = symgnn::load_dataset(cfg);
  ASSERT_EQ(ds.test.size(), 10u);
  ASSERT_EQ(ds.validation.size(), 4u);  // round(0.1 x 40), the latest of the training ratings
  ASSERT_EQ(ds.train.size(), 36u);
  // Ratings k = 0..9 are the latest (times 5000 - 7k), then k = 10..13 for validation.
  for (size_t k = 0; k < ds.test.size(); ++k)
    EXPECT_LT(std::stoi(ds.items.id_of(ds.test.item[k]).substr(1)), 10);
  for (size_t k = 0; k < ds.validation.size(); ++k) {
    const int i = std::stoi(ds.items.id_of(ds.validation.item[k]).substr(1));
    EXPECT_TRUE(i >= 10 && i < 14) << i;
  }
  EXPECT_EQ(ds.time_split.cutoff, 5000.0 - 7 * 9);
  // Every test item is rated once: all are cold.
  EXPECT_EQ(ds.time_split.cold_item_ratings, 10);
  EXPECT_EQ(ds.time_split.cold_items, 10);
}

TEST(TemporalSplit, CutoffsOutsideTheRatingsAreErrors) {
  const auto dir = scratch_dir("temporal_outside");
  const std::string path = write_file(dir, "r.csv", "a,x,5,10\nb,x,3,20\na,y,4,30\n");
  DataConfig late = csv_config(path, "temporal");
  late.split_time = "31";
  EXPECT_DATA_ERROR(symgnn::load_dataset(late), "r.csv", "no rating at or after the cut-off");
  DataConfig early = csv_config(path, "temporal");
  early.split_time = "10";
  EXPECT_DATA_ERROR(symgnn::load_dataset(early), "r.csv", "no rating before the cut-off");
}

TEST(LeaveLastOut, EachUsersLastNWithTiesInFileOrder) {
  const std::string text =
      "user,item,rating,timestamp\n"
      "a,1,5,10\n"
      "a,2,4,30\n"
      "a,3,3,30\n"  // a's last two by time: 3 (a tie with 2, a later line) and 4
      "a,4,2,40\n"
      "b,1,1,50\n"  // b has two ratings: with n = 2 it keeps both in training
      "b,2,2,5\n"
      "c,5,3,7\n"
      "c,1,4,7\n"
      "c,2,5,7\n";  // c: all at one time, the last two lines are the last
  const auto dir = scratch_dir("leave_last");
  const std::string path = write_file(dir, "r.csv", text);
  DataConfig cfg = csv_config(path, "leave_last_out");
  cfg.leave_last_n = 2;
  cfg.val_fraction = 0;
  const Dataset ds = symgnn::load_dataset(cfg);
  const std::vector<std::pair<std::string, std::string>> want = {
      {"a", "3"}, {"a", "4"}, {"c", "1"}, {"c", "2"}};
  EXPECT_EQ(id_pairs(ds, ds.test), want);
  EXPECT_EQ(ds.train.size(), 5u);
  EXPECT_EQ(ds.time_split.users_kept, 1);
  EXPECT_EQ(ds.time_split.last_n, 2);
  // The same data give the same split.
  const Dataset again = symgnn::load_dataset(cfg);
  EXPECT_EQ(again.test.user, ds.test.user);
  EXPECT_EQ(again.test.item, ds.test.item);
  // The validation: each user's last n of the training ratings left, by the same rule. With
  // n = 1: test a's 4, b's 1, c's 2; validation a's 3 (tied with 2, a later line) and c's 1;
  // b has one rating left and keeps it.
  cfg.leave_last_n = 1;
  cfg.val_fraction = 0.05;
  const Dataset carved = symgnn::load_dataset(cfg);
  const std::vector<std::pair<std::string, std::string>> want_test = {{"a", "4"}, {"b", "1"}, {"c", "2"}};
  EXPECT_EQ(id_pairs(carved, carved.test), want_test);
  const std::vector<std::pair<std::string, std::string>> want_val = {{"a", "3"}, {"c", "1"}};
  EXPECT_EQ(id_pairs(carved, carved.validation), want_val);
  EXPECT_EQ(carved.train.size(), 4u);
}

TEST(LeaveLastOut, MatchesASortOfEachUsersRatings) {
  const auto ratings = timed_ratings(30, 25, 400, 60, 11);
  const auto dir = scratch_dir("leave_last_sort");
  const std::string path = write_file(dir, "r.csv", csv_of(ratings));
  for (const int n : {1, 3}) {
    SCOPED_TRACE(n);
    DataConfig cfg = csv_config(path, "leave_last_out");
    cfg.leave_last_n = n;
    cfg.val_fraction = 0;
    const Dataset ds = symgnn::load_dataset(cfg);
    // Each user's ratings by (time, line): the last n are test where the user has more.
    std::map<std::string, std::vector<std::tuple<double, size_t, std::string>>> by_user;
    for (size_t k = 0; k < ratings.size(); ++k)
      by_user[ratings[k].user].emplace_back(ratings[k].time, k, ratings[k].item);
    std::vector<std::pair<std::string, std::string>> want;
    for (auto& [user, list] : by_user) {
      std::sort(list.begin(), list.end());
      if (static_cast<int>(list.size()) <= n) continue;
      for (size_t k = list.size() - static_cast<size_t>(n); k < list.size(); ++k)
        want.emplace_back(user, std::get<2>(list[k]));
    }
    std::sort(want.begin(), want.end());
    EXPECT_EQ(id_pairs(ds, ds.test), want);
  }
}

TEST(TimeSplitLeakage, CountsEqualBruteForce) {
  std::mt19937 rng(3);
  for (int trial = 0; trial < 20; ++trial) {
    SCOPED_TRACE(trial);
    RatingList all;
    std::vector<double> times;
    std::vector<char> is_test;
    const int n = 30 + static_cast<int>(rng() % 200);
    for (int k = 0; k < n; ++k) {
      all.add(rng() % 12, rng() % 20, 3.0f);
      times.push_back(static_cast<double>(rng() % 50));
      is_test.push_back(rng() % 4 == 0);
    }
    TimeSplitReport r;
    data::count_leakage(all, times, is_test, r);
    int64_t test = 0, train = 0, cold_item = 0, cold_user = 0, later = 0;
    std::vector<int64_t> cold_items;
    for (int k = 0; k < n; ++k) {
      if (!is_test[k]) {
        ++train;
        // Later than some test rating of another user.
        bool leaks = false;
        for (int j = 0; j < n; ++j)
          leaks = leaks || (is_test[j] && all.user[j] != all.user[k] && times[k] > times[j]);
        later += leaks;
        continue;
      }
      ++test;
      bool item_seen = false, user_seen = false;
      for (int j = 0; j < n; ++j) {
        item_seen = item_seen || (!is_test[j] && all.item[j] == all.item[k]);
        user_seen = user_seen || (!is_test[j] && all.user[j] == all.user[k]);
      }
      if (!item_seen) ++cold_item, cold_items.push_back(all.item[k]);
      cold_user += !user_seen;
    }
    std::sort(cold_items.begin(), cold_items.end());
    cold_items.erase(std::unique(cold_items.begin(), cold_items.end()), cold_items.end());
    EXPECT_EQ(r.test_ratings, test);
    EXPECT_EQ(r.training_ratings, train);
    EXPECT_EQ(r.cold_item_ratings, cold_item);
    EXPECT_EQ(r.cold_items, static_cast<int64_t>(cold_items.size()));
    EXPECT_EQ(r.cold_user_ratings, cold_user);
    EXPECT_EQ(r.later_training, later);
  }
}

TEST(TimeSplitLeakage, DescribedInOneLine) {
  TimeSplitReport r{"temporal", 874965758, 0, 0, 90, 10, 3, 2, 1, 0};
  const std::string line = data::describe(r);
  EXPECT_EQ(line.find('\n'), std::string::npos);
  EXPECT_NE(line.find("1997-09-22 22:02:38 UTC"), std::string::npos) << line;
  EXPECT_NE(line.find("3 (30.0 %)"), std::string::npos) << line;
  EXPECT_EQ(data::describe(TimeSplitReport{}), "");
}

TEST(MovieLensTimes, Ml100kTimestampsDriveTheTimeSplits) {
  // A small ML-100K directory: u.data with 3 users, their times.
  const auto dir = scratch_dir("ml100k_times");
  write_file(dir, "u.info", "3 users\n4 items\n");
  write_file(
      dir, "u.data",
      "1\t1\t5\t100\n1\t2\t3\t300\n2\t3\t4\t200\n3\t4\t1\t50\n2\t1\t2\t400\n3\t2\t5\t250\n1\t3\t4\t150\n");
  write_file(dir, "u1.base", "1\t1\t5\t100\n");
  write_file(dir, "u1.test", "1\t2\t3\t300\n");
  DataConfig cfg;
  cfg.source = dir;
  cfg.split = "temporal";
  cfg.split_time = "250";
  cfg.val_fraction = 0;
  const Dataset ds = symgnn::load_dataset(cfg);
  EXPECT_EQ(ds.name, "ml-100k/temporal");
  const std::vector<std::pair<std::string, std::string>> want = {{"1", "2"}, {"2", "1"}, {"3", "2"}};
  EXPECT_EQ(id_pairs(ds, ds.test), want);
  EXPECT_EQ(ds.train.size(), 4u);
  EXPECT_EQ(ds.time_split.cold_item_ratings, 2);  // item 2 is first rated at 250
  EXPECT_EQ(ds.time_split.cold_items, 1);
  cfg.split = "leave_last_out";
  cfg.split_time = "";
  const Dataset last = symgnn::load_dataset(cfg);
  const std::vector<std::pair<std::string, std::string>> want_last = {{"1", "2"}, {"2", "1"}, {"3", "2"}};
  EXPECT_EQ(id_pairs(last, last.test), want_last);
  // No training rating is later than another user's test rating: the earliest test rating
  // is user 3's at 250, and user 3's own training rating (50) is not later than 300.
  EXPECT_EQ(last.time_split.later_training, 0);
  // The ML-1M reader passes its timestamps as well.
  const auto dir_1m = scratch_dir("ml1m_times");
  write_file(dir_1m, "ratings.dat", "1::10::5::250\n1::20::3::300\n2::10::4::200\n2::20::2::50\n");
  DataConfig m;
  m.source = dir_1m;
  m.split = "leave_last_out";
  m.val_fraction = 0;
  const Dataset one_m = symgnn::load_dataset(m);
  const std::vector<std::pair<std::string, std::string>> want_1m = {{"1", "20"}, {"2", "10"}};
  EXPECT_EQ(id_pairs(one_m, one_m.test), want_1m);
  EXPECT_EQ(one_m.time_split.later_training, 1);  // user 1's 250, after user 2's test rating at 200
}

TEST(MovieLensTimes, RealMl100kLoadsItsTimestamps) {
  SYMGNN_REQUIRE_DATA("ml-100k/u.data");
  const std::string dir = symgnn::testing::data_dir() + "/ml-100k";
  DataConfig cfg;
  cfg.source = dir;
  cfg.split = "temporal";
  const Dataset ds = symgnn::load_dataset(cfg);
  EXPECT_EQ(ds.num_ratings(), 100000u);
  // The latest tenth, a little more where ratings share the cut-off's second.
  EXPECT_GE(ds.test.size(), 10000u);
  EXPECT_LT(ds.test.size(), 10100u);
  // u.data spans 1997-09-20 .. 1998-04-23 (874724710 .. 893286638).
  EXPECT_GT(ds.time_split.cutoff, 874724710.0);
  EXPECT_LT(ds.time_split.cutoff, 893286638.0);
  EXPECT_EQ(ds.time_split.later_training, 0);
  // Brute force from the file: the test ratings are exactly those at or after the cut-off.
  std::ifstream in(dir + "/u.data");
  size_t at_or_after = 0;
  int64_t u = 0, i = 0, r = 0, t = 0;
  while (in >> u >> i >> r >> t) at_or_after += static_cast<double>(t) >= ds.time_split.cutoff;
  EXPECT_EQ(ds.test.size(), at_or_after);
  cfg.split = "leave_last_out";
  const Dataset last = symgnn::load_dataset(cfg);
  EXPECT_EQ(last.test.size(), 943u);  // every user has at least 20 ratings
  EXPECT_EQ(last.validation.size(), 943u);
  EXPECT_EQ(last.time_split.users_kept, 0);
}
