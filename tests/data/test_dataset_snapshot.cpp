// The data a model directory pins (src/data/dataset_snapshot.h): a snapshot reads back as
// the Dataset written, field for field; a damaged or cut file is a one-line error naming it;
// first_difference names the file whose part changed.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "common/test_support.h"
#include "data/dataset_snapshot.h"
#include "data/loaders.h"
#include "symgnn/config.h"
#include "symgnn/error.h"
#include "util/checksum.h"

using symgnn::DataConfig;
using symgnn::Dataset;
using symgnn::GraphOrigin;
namespace data = symgnn::data;

namespace {

/// A small synthetic set with ids, a file graph on the users and features on the items,
/// so that every field of the snapshot holds something.
Dataset small_set() {
  DataConfig cfg;
  cfg.synthetic_users = 20;
  cfg.synthetic_items = 15;
  cfg.synthetic_density = 0.3;
  Dataset ds = data::make_synthetic(cfg);
  symgnn::carve_validation(ds, 0.1, 3);
  for (int64_t u = 0; u < ds.users.count; ++u)
    ds.users.ids.push_back("user, \"" + std::to_string(u) + "\"\n");
  ds.users.graph = symgnn::EdgeList{};
  ds.users.graph.num_nodes = ds.users.count;
  ds.users.graph.add(0, 1, 0.5f);
  ds.users.graph.add(1, 0, 0.5f);
  ds.users.graph_origin = GraphOrigin::File;
  ds.items.features.rows = ds.items.count;
  ds.items.features.cols = 2;
  for (int64_t i = 0; i < ds.items.count * 2; ++i)
    ds.items.features.values.push_back(0.25f * static_cast<float>(i));
  ds.items.features.names = {"a", "b"};
  ds.items.features_origin = "test";
  ds.source = "/data/ratings.csv";
  ds.test_unknown.user = {"stranger", "7"};
  ds.test_unknown.item = {"3", "film, \"new\""};
  ds.test_unknown.value = {4.0f, ds.rating_max};
  ds.test_unknown.line = {12, 40};
  return ds;
}

void expect_equal(const Dataset& a, const Dataset& b) {
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.source, b.source);
  EXPECT_EQ(a.feedback, b.feedback);
  for (const auto& [x, y] : {std::pair{&a.users, &b.users}, std::pair{&a.items, &b.items}}) {
    EXPECT_EQ(x->count, y->count);
    EXPECT_EQ(x->ids, y->ids);
    EXPECT_EQ(x->graph.src, y->graph.src);
    EXPECT_EQ(x->graph.dst, y->graph.dst);
    EXPECT_EQ(x->graph.weight, y->graph.weight);
    EXPECT_EQ(x->graph.num_nodes, y->graph.num_nodes);
    EXPECT_EQ(x->graph_origin, y->graph_origin);
    EXPECT_EQ(x->directed.src, y->directed.src);
    EXPECT_EQ(x->directed.dst, y->directed.dst);
    EXPECT_EQ(x->directed.weight, y->directed.weight);
    EXPECT_EQ(x->features.values, y->features.values);
    EXPECT_EQ(x->features.names, y->features.names);
    EXPECT_EQ(x->features_origin, y->features_origin);
  }
  for (const auto& [x, y] : {std::pair{&a.train, &b.train}, std::pair{&a.validation, &b.validation},
                             std::pair{&a.test, &b.test}}) {
    EXPECT_EQ(x->user, y->user);
    EXPECT_EQ(x->item, y->item);
    EXPECT_EQ(x->value, y->value);
  }
  EXPECT_EQ(a.test_unknown.user, b.test_unknown.user);
  EXPECT_EQ(a.test_unknown.item, b.test_unknown.item);
  EXPECT_EQ(a.test_unknown.value, b.test_unknown.value);
  EXPECT_EQ(a.test_unknown.line, b.test_unknown.line);
  EXPECT_EQ(a.rating_levels, b.rating_levels);
  EXPECT_EQ(a.rating_min, b.rating_min);
  EXPECT_EQ(a.rating_max, b.rating_max);
  EXPECT_EQ(a.time_split.split, b.time_split.split);
  EXPECT_EQ(a.time_split.cutoff, b.time_split.cutoff);
  EXPECT_EQ(a.time_split.last_n, b.time_split.last_n);
  EXPECT_EQ(a.time_split.users_kept, b.time_split.users_kept);
  EXPECT_EQ(a.time_split.training_ratings, b.time_split.training_ratings);
  EXPECT_EQ(a.time_split.test_ratings, b.time_split.test_ratings);
  EXPECT_EQ(a.time_split.cold_item_ratings, b.time_split.cold_item_ratings);
  EXPECT_EQ(a.time_split.cold_items, b.time_split.cold_items);
  EXPECT_EQ(a.time_split.cold_user_ratings, b.time_split.cold_user_ratings);
  EXPECT_EQ(a.time_split.later_training, b.time_split.later_training);
}

}  // namespace

TEST(DatasetSnapshot, ReadsBackWhatWasWritten) {
  const Dataset ds = small_set();
  const std::string path = symgnn::testing::scratch_dir("snapshot_roundtrip") + "/dataset.bin";
  data::write_snapshot(ds, path);
  expect_equal(data::read_snapshot(path), ds);
  EXPECT_EQ(data::fingerprint(data::read_snapshot(path)), data::fingerprint(ds));
}

TEST(DatasetSnapshot, DamagedOrCutFilesAreOneLineErrorsNamingTheFile) {
  const Dataset ds = small_set();
  const std::string dir = symgnn::testing::scratch_dir("snapshot_damage");
  const std::string path = dir + "/dataset.bin";
  data::write_snapshot(ds, path);
  const std::string good = symgnn::testing::read_file(path);
  for (const size_t at : {size_t{3}, good.size() / 2, good.size() - 1}) {
    std::string bad = good;
    bad[at] ^= 0x10;
    std::ofstream(path, std::ios::binary) << bad;
    try {
      data::read_snapshot(path);
      ADD_FAILURE() << "a flipped byte at " << at << " was read";
    } catch (const symgnn::Error& e) {
      const std::string what = e.what();
      EXPECT_EQ(what.rfind(path + ": ", 0), 0u) << what;
      EXPECT_EQ(what.find('\n'), std::string::npos) << what;
    }
  }
  std::ofstream(path, std::ios::binary) << good.substr(0, good.size() / 3);
  EXPECT_THROW(data::read_snapshot(path), symgnn::Error);
}

TEST(DatasetSnapshot, FirstDifferenceNamesTheFileOfThePartThatChanged) {
  const Dataset ds = small_set();
  DataConfig cfg;
  cfg.source = "/data/ratings.csv";
  cfg.user_graph_file = "/data/users.csv";
  EXPECT_EQ(data::first_difference(ds, ds, cfg), "");

  Dataset swapped = ds;
  std::swap(swapped.train.user[0], swapped.train.user[1]);
  if (swapped.train.user[0] == swapped.train.user[1]) swapped.train.value[0] += 1;
  EXPECT_EQ(data::first_difference(ds, swapped, cfg)
                .rfind("data.source /data/ratings.csv: the training ratings", 0),
            0u);
  Dataset graph = ds;
  graph.users.graph.weight[0] = 0.75f;
  EXPECT_EQ(
      data::first_difference(ds, graph, cfg).rfind("data.user_graph_file /data/users.csv: the user graph", 0),
      0u);
  Dataset features = ds;
  features.items.features.values[3] = 9.0f;
  EXPECT_EQ(
      data::first_difference(ds, features, cfg).rfind("data.source /data/ratings.csv: the item features", 0),
      0u);
  Dataset test = ds;
  test.test.value[0] += 1;
  EXPECT_NE(data::first_difference(ds, test, cfg).find("the test ratings"), std::string::npos);
  Dataset unknown = ds;
  unknown.test_unknown.value[1] -= 1;
  EXPECT_NE(data::first_difference(ds, unknown, cfg).find("the test ratings"), std::string::npos);
}

// A time-aware split's report (version 3) reads back as written.
TEST(DatasetSnapshot, KeepsTheTimeSplitReport) {
  Dataset ds = small_set();
  ds.time_split = {"temporal", 889351975.5, 0, 0, 90, 10, 3, 2, 1, 0};
  const std::string path = symgnn::testing::scratch_dir("snapshot_time") + "/dataset.bin";
  data::write_snapshot(ds, path);
  expect_equal(data::read_snapshot(path), ds);
}

// A version 5 file without directed links, less their six empty lists: the version 4 file it was.
std::string as_version_four(const std::string& v5) {
  constexpr size_t kLinks = 6 * 8;
  EXPECT_EQ(v5.rfind("symgnn-dataset-5\n", 0), 0u);
  EXPECT_EQ(v5.substr(v5.size() - kLinks), std::string(kLinks, '\0'));
  std::string v4 = v5.substr(0, v5.size() - kLinks);
  v4[15] = '4';
  return v4;
}

// A version 4 file of ratings, less its feedback text: the version 3 file it was.
std::string as_version_three(const std::string& v5) {
  const std::string v4 = as_version_four(v5);
  // "ratings": its 8-byte count and 7 bytes.
  constexpr size_t kFeedback = 8 + 7;
  EXPECT_EQ(v4.rfind("symgnn-dataset-4\n", 0), 0u);
  EXPECT_EQ(v4.substr(v4.size() - 7), "ratings");
  std::string v3 = v4.substr(0, v4.size() - kFeedback);
  v3[15] = '3';
  return v3;
}

// Interactions (data.feedback = implicit or counts, version 4) read back as written, and a
// version 3 file loads as ratings.
TEST(DatasetSnapshot, KeepsWhatTheValuesAreAndReadsVersionThreeAsRatings) {
  Dataset ds = small_set();
  const std::string path = symgnn::testing::scratch_dir("snapshot_feedback") + "/dataset.bin";
  data::write_snapshot(ds, path);
  const Dataset v3 = data::parse_snapshot(as_version_three(symgnn::read_sealed_file(path)), "v3.bin");
  expect_equal(v3, ds);
  EXPECT_EQ(v3.feedback, "ratings");
  ds.feedback = "counts";
  data::write_snapshot(ds, path);
  EXPECT_EQ(data::read_snapshot(path).feedback, "counts");
}

// A version 3 file without a time-aware split, less its report: the version 2 file it was.
std::string as_version_two(const std::string& v4) {
  const std::string v3 = as_version_three(v4);
  // The report: an empty text (its 8-byte count), the cut-off (8 bytes), eight 8-byte counts.
  constexpr size_t kReport = 8 + 8 + 8 * 8;
  EXPECT_EQ(v3.rfind("symgnn-dataset-3\n", 0), 0u);
  std::string v2 = v3.substr(0, v3.size() - kReport);
  v2[15] = '2';
  return v2;
}

// The files of earlier sessions (version 2, before the time-aware split's report) still load.
TEST(DatasetSnapshot, VersionTwoFilesStillLoad) {
  const Dataset ds = small_set();
  const std::string path = symgnn::testing::scratch_dir("snapshot_v2") + "/dataset.bin";
  data::write_snapshot(ds, path);
  expect_equal(data::parse_snapshot(as_version_two(symgnn::read_sealed_file(path)), "v2.bin"), ds);
}

// The files of the last session (version 1, before the test ratings of unknown ids) still load.
TEST(DatasetSnapshot, VersionOneFilesStillLoad) {
  Dataset ds = small_set();
  ds.test_unknown = symgnn::UnknownRatings{};
  const std::string path = symgnn::testing::scratch_dir("snapshot_v1") + "/dataset.bin";
  data::write_snapshot(ds, path);
  std::string bytes = as_version_two(symgnn::read_sealed_file(path));
  // Version 2 holds four empty vectors (four 8-byte counts) between the test ratings and the
  // rating levels (a count, the levels, two floats); version 1 is the rest under its header.
  ASSERT_EQ(bytes.rfind("symgnn-dataset-2\n", 0), 0u);
  bytes[15] = '1';
  const size_t tail = 8 + 4 * ds.rating_levels.size() + 8;
  ASSERT_EQ(bytes.substr(bytes.size() - tail - 32, 32), std::string(32, '\0'));
  bytes.erase(bytes.size() - tail - 32, 32);
  expect_equal(data::parse_snapshot(bytes, "v1.bin"), ds);
}

// A directed graph file's links (version 5) read back as written; a version 4 file (without
// them) loads with its graph read both ways.
TEST(DatasetSnapshot, KeepsADirectedGraphsLinksAndReadsVersionFourWithout) {
  Dataset ds = small_set();
  const std::string path = symgnn::testing::scratch_dir("snapshot_links") + "/dataset.bin";
  data::write_snapshot(ds, path);
  const Dataset v4 = data::parse_snapshot(as_version_four(symgnn::read_sealed_file(path)), "v4.bin");
  expect_equal(v4, ds);
  ds.users.graph.add(2, 3, 1.0f);
  ds.users.graph.add(3, 2, 1.0f);
  ds.users.directed.num_nodes = ds.users.count;
  ds.users.directed.add(0, 1, 0.5f);
  ds.users.directed.add(1, 0, 0.5f);
  ds.users.directed.add(3, 2, 1.0f);  // 3 follows 2; 2 does not follow 3
  data::write_snapshot(ds, path);
  const Dataset back = data::read_snapshot(path);
  expect_equal(back, ds);
  EXPECT_EQ(back.users.directed.num_nodes, ds.users.count);
  // A changed direction is a different graph to a resumed run.
  Dataset turned = ds;
  turned.users.directed.src[2] = 2, turned.users.directed.dst[2] = 3;
  EXPECT_NE(data::first_difference(ds, turned, DataConfig{}).find("the user graph"), std::string::npos);
}
