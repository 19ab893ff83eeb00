/// @file test_benchmarks_text.cpp
/// The real MovieLens-100K files (shared benchmark data; skipped when absent): every canonical
/// split loads with the published sizes, counted independently from the files here.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "common/test_support.h"
#include "symgnn/config.h"
#include "symgnn/dataset.h"

namespace {

size_t count_lines(const std::string& path) {
  std::ifstream in(path);
  size_t n = 0;
  std::string line;
  while (std::getline(in, line))
    if (!line.empty()) ++n;
  return n;
}

}  // namespace

TEST(BenchmarksText, Ml100kEverySplit) {
  SYMGNN_REQUIRE_DATA("ml-100k/u.data");
  const std::string dir = symgnn::testing::data_dir() + "/ml-100k";
  for (const char* split : {"u1", "u2", "u3", "u4", "u5", "ua", "ub"}) {
    SCOPED_TRACE(split);
    symgnn::DataConfig cfg;
    cfg.source = dir;
    cfg.split = split;
    const symgnn::Dataset ds = symgnn::load_dataset(cfg);
    EXPECT_EQ(ds.name, std::string("ml-100k/") + split);
    EXPECT_EQ(ds.users.count, 943);
    EXPECT_EQ(ds.items.count, 1682);
    const size_t base = count_lines(dir + "/" + split + ".base"),
                 test = count_lines(dir + "/" + split + ".test");
    EXPECT_EQ(ds.train.size() + ds.validation.size(), base);
    EXPECT_EQ(ds.test.size(), test);
    EXPECT_EQ(base + test, 100000u);
    EXPECT_EQ(ds.users.features.rows, 943);
    EXPECT_EQ(ds.users.features.cols, 1 + 2 + 21);  // age, gender, 21 occupations
    EXPECT_EQ(ds.items.features.rows, 1682);
    EXPECT_EQ(ds.items.features.cols, 19);
    EXPECT_EQ(ds.rating_min, 1);
    EXPECT_EQ(ds.rating_max, 5);
  }
}

TEST(BenchmarksText, Ml100kKnownEntry) {
  SYMGNN_REQUIRE_DATA("ml-100k/u1.base");
  symgnn::DataConfig cfg;
  cfg.source = symgnn::testing::data_dir() + "/ml-100k";
  cfg.split = "u1";
  const symgnn::Dataset ds = symgnn::load_dataset(cfg);
  // First line of u1.base: "1 1 5 874965758" -> (0, 0) = 5, in train or validation.
  int found = 0;
  for (const symgnn::RatingList* r : {&ds.train, &ds.validation})
    for (size_t k = 0; k < r->size(); ++k)
      if (r->user[k] == 0 && r->item[k] == 0) {
        EXPECT_EQ(r->value[k], 5.0f);
        ++found;
      }
  EXPECT_EQ(found, 1);
  // User 1 is a 24-year-old male technician; Toy Story (item 1) is Animation, Children's, Comedy.
  const auto& uf = ds.users.features;
  EXPECT_EQ(uf.at(0, 1), 1.0f);
  EXPECT_EQ(uf.names[1], "gender=M");
  EXPECT_EQ(uf.at(0, 3 + 19), 1.0f);
  EXPECT_EQ(uf.names[3 + 19], "occupation=technician");
  EXPECT_EQ(ds.items.features.at(0, 3) + ds.items.features.at(0, 4) + ds.items.features.at(0, 5), 3.0f);
  EXPECT_EQ(ds.users.id_of(942), "943");
}
