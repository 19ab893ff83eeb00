// data.feedback (data/feedback.h): interaction files read as users have them: user, item
// pairs (repeats one interaction), counts (summed, then weighted log(1 + count)), and the
// relevance of every held-out interaction.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "common/test_support.h"
#include "data/feedback.h"
#include "symgnn/config.h"
#include "symgnn/dataset.h"
#include "symgnn/error.h"
#include "symgnn/ranking.h"

namespace st = symgnn::testing;

namespace {

/// 6 users x 5 items of pairs (each user 3 items), `extra` lines appended, under `header`.
std::string pairs_text(const std::string& header, const std::string& extra, bool with_counts) {
  std::string t = header;
  for (int u = 0; u < 6; ++u)
    for (int k = 0; k < 3; ++k)
      t += "u" + std::to_string(u) + ",i" + std::to_string((u + k) % 5) + (with_counts ? ",2" : "") + "\n";
  return t + extra;
}

symgnn::DataConfig config_of(const std::string& path, const std::string& feedback) {
  symgnn::DataConfig cfg;
  cfg.source = path;
  cfg.feedback = feedback;
  cfg.test_fraction = 0.2;
  cfg.val_fraction = 0.1;
  return cfg;
}

/// load_dataset(cfg) refuses with a DataError whose message holds each of `parts`.
void expect_refused(const symgnn::DataConfig& cfg, const std::vector<std::string>& parts) {
  try {
    symgnn::load_dataset(cfg);
    FAIL() << cfg.source << " was accepted";
  } catch (const symgnn::DataError& e) {
    for (const std::string& part : parts)
      EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
  }
}

size_t interactions(const symgnn::Dataset& ds) {
  return ds.train.size() + ds.validation.size() + ds.test.size();
}

}  // namespace

// A file of two columns is implicit feedback under auto: every value 1, a repeated pair one
// interaction, a header naming the user column skipped, and every held-out pair relevant.
TEST(Feedback, TwoColumnsAreInteractionsWithRepeatsMerged) {
  const std::string dir = st::scratch_dir("feedback_pairs");
  const std::string path =
      st::write_file(dir, "clicks.csv", pairs_text("user_id,item_id\n", "u0,i0\nu0,i0\n", false));
  const symgnn::DataConfig cfg = config_of(path, "auto");
  EXPECT_EQ(symgnn::data::resolved_feedback(cfg), "implicit");
  const symgnn::Dataset ds = symgnn::load_dataset(cfg);
  EXPECT_EQ(ds.feedback, "implicit");
  EXPECT_TRUE(ds.implicit());
  EXPECT_EQ(interactions(ds), 18u);  // 6 x 3 pairs; u0,i0 given three times is one
  EXPECT_EQ(ds.users.count, 6);
  for (const symgnn::RatingList* r : {&ds.train, &ds.validation, &ds.test})
    for (const float v : r->value) EXPECT_EQ(v, 1.0f);
  EXPECT_EQ(ds.rating_min, 1.0f);
  EXPECT_EQ(ds.rating_max, 1.0f);
  EXPECT_EQ(symgnn::eval::relevant_min_of(ds), 1.0);
}

// The same pairs with a rating column are ratings under auto, and interactions where
// data.feedback = implicit says so (the third column then ignored).
TEST(Feedback, ARatingColumnIsIgnoredWhereImplicitIsAsked) {
  const std::string dir = st::scratch_dir("feedback_ratings");
  std::string text = "user,item,rating\n";
  for (int u = 0; u < 6; ++u)
    for (int k = 0; k < 3; ++k)
      text += "u" + std::to_string(u) + ",i" + std::to_string((u + k) % 5) + "," +
              std::to_string(1 + (u + k) % 5) + "\n";
  const std::string path = st::write_file(dir, "ratings.csv", text);
  EXPECT_EQ(symgnn::data::resolved_feedback(config_of(path, "auto")), "ratings");
  const symgnn::Dataset rated = symgnn::load_dataset(config_of(path, "auto"));
  EXPECT_EQ(rated.feedback, "ratings");
  EXPECT_EQ(rated.rating_max, 5.0f);
  EXPECT_EQ(symgnn::eval::relevant_min_of(rated), 4.0);
  const symgnn::Dataset clicked = symgnn::load_dataset(config_of(path, "implicit"));
  EXPECT_EQ(clicked.feedback, "implicit");
  EXPECT_EQ(interactions(clicked), interactions(rated));
  // The same pairs in the same splits; the values 1.
  EXPECT_EQ(clicked.test.user, rated.test.user);
  EXPECT_EQ(clicked.test.item, rated.test.item);
  for (const float v : clicked.train.value) EXPECT_EQ(v, 1.0f);
}

// Counts: a repeated pair's counts are summed, then the weight is log(1 + count); every
// held-out interaction is relevant; a count that is not positive is refused at its line.
TEST(Feedback, CountsAreSummedThenWeightedLogOnePlusCount) {
  const std::string dir = st::scratch_dir("feedback_counts");
  symgnn::DataConfig cfg = config_of(
      st::write_file(dir, "plays.csv", pairs_text("user,item,plays\n", "u0,i0,5\n", true)), "counts");
  cfg.test_fraction = 0.0;
  cfg.val_fraction = 0.0;
  const symgnn::Dataset ds = symgnn::load_dataset(cfg, false);
  EXPECT_EQ(ds.feedback, "counts");
  ASSERT_EQ(ds.train.size(), 18u);
  for (size_t e = 0; e < ds.train.size(); ++e) {
    const bool repeated = ds.users.ids[ds.train.user[e]] == "u0" && ds.items.ids[ds.train.item[e]] == "i0";
    EXPECT_NEAR(ds.train.value[e], std::log1p(repeated ? 7.0 : 2.0), 1e-6);
  }
  EXPECT_NEAR(symgnn::eval::relevant_min_of(ds), std::log1p(2.0), 1e-6);

  expect_refused(config_of(st::write_file(dir, "bad.csv", "u0,i0,3\nu0,i1,0\n"), "counts"),
                 {"bad.csv:2", "not positive"});
  // A positive count that a 32-bit float holds as 0 (the fuzz smoke run's find), at its line.
  expect_refused(config_of(st::write_file(dir, "tiny.csv", "u0,i0,3\nu0,i1,1e-302\n"), "counts"),
                 {"tiny.csv:2", "not positive as a 32-bit float"});
}

// A ratings file of two columns where ratings are asked names the way out.
TEST(Feedback, PairsGivenAsRatingsSayWhatTheyAre) {
  const std::string dir = st::scratch_dir("feedback_refused");
  expect_refused(config_of(st::write_file(dir, "clicks.csv", pairs_text("", "", false)), "ratings"),
                 {"clicks.csv:1", "data.feedback = implicit"});
}
