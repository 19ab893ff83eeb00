/// @file test_movielens.cpp
/// MovieLens-100K and -1M readers on small directories written by the tests: layout, id
/// mapping, side features, splits, and every error (file and line in each message).
#include <gtest/gtest.h>

#include <filesystem>

#include "common/test_support.h"
#include "data/data_test_util.h"
#include "data/loaders.h"
#include "data/parsers.h"
#include "symgnn/config.h"
#include "symgnn/dataset.h"

using symgnn::DataConfig;
using symgnn::Dataset;
using symgnn::data::load_movielens_100k;
using symgnn::data::load_movielens_1m;
using symgnn::testing::scratch_dir;
using symgnn::testing::write_file;

namespace {

// 3 users, 4 items; item 4 has genres Action and Comedy.
std::string genre_flags(std::initializer_list<int> on) {
  std::string s;
  for (int g = 0; g < 19; ++g)
    s += std::string("|") + (std::find(on.begin(), on.end(), g) != on.end() ? "1" : "0");
  return s;
}

std::string make_ml100k(const std::string& tag) {
  const auto dir = scratch_dir(tag);
  write_file(dir, "u.info", "3 users\n4 items\n7 ratings\n");
  write_file(dir, "u.user", "1|24|M|technician|85711\n2|48|F|other|94043\n3|12|M|writer|32067\n");
  write_file(dir, "u.occupation", "other\ntechnician\nwriter\nartist\n");
  write_file(dir, "u.genre",
             "unknown|0\nAction|1\nAdventure|2\nAnimation|3\nChildren's|4\nComedy|5\nCrime|6\nDocumentary|7\n"
             "Drama|8\nFantasy|9\nFilm-Noir|10\nHorror|11\nMusical|12\nMystery|13\nRomance|14\nSci-Fi|15\n"
             "Thriller|16\nWar|17\nWestern|18\n\n");
  write_file(dir, "u.item",
             "1|Toy Story (1995)|01-Jan-1995||http://x" + genre_flags({3, 4, 5}) + "\n" +
                 "2|GoldenEye (1995)|01-Jan-1995||http://x" + genre_flags({1}) + "\n" +
                 "3|Caf\xE9 (1995)|01-Jan-1995||http://x" + genre_flags({8}) + "\n" +
                 "4|Four|01-Jan-1995||http://x" + genre_flags({1, 5}) + "\n");
  const std::string base = "1\t1\t5\t874965758\n1\t2\t3\t876893171\n2\t3\t4\t878542960\n3\t4\t1\t876893119\n";
  const std::string test = "2\t1\t2\t888550871\n3\t2\t5\t875072484\n";
  write_file(dir, "u.data", base + test + "1\t3\t4\t1\n");
  write_file(dir, "u1.base", base);
  write_file(dir, "u1.test", test);
  write_file(dir, "ua.base", base + test);
  write_file(dir, "ua.test", "1\t3\t4\t1\n");
  return dir;
}

DataConfig split_cfg(const std::string& split) {
  DataConfig cfg;
  cfg.split = split;
  return cfg;
}

}  // namespace

TEST(MovieLens100k, LoadsSplitIdsAndFeatures) {
  const auto dir = make_ml100k("ml100k");
  const Dataset ds = load_movielens_100k(dir, split_cfg("u1"));
  EXPECT_EQ(ds.name, "ml-100k/u1");
  EXPECT_EQ(ds.users.count, 3);
  EXPECT_EQ(ds.items.count, 4);
  EXPECT_EQ(ds.users.id_of(0), "1");
  EXPECT_EQ(ds.items.id_of(3), "4");
  ASSERT_EQ(ds.train.size(), 4u);
  ASSERT_EQ(ds.test.size(), 2u);
  EXPECT_EQ(ds.train.user[2], 1);  // "2 3 4": index = id - 1
  EXPECT_EQ(ds.train.item[2], 2);
  EXPECT_FLOAT_EQ(ds.train.value[2], 4);
  EXPECT_EQ(ds.test.user[1], 2);
  EXPECT_EQ(ds.rating_levels, (std::vector<float>{1, 2, 3, 4, 5}));
  EXPECT_EQ(ds.rating_min, 1);
  EXPECT_EQ(ds.rating_max, 5);
  EXPECT_EQ(ds.users.graph_origin, symgnn::GraphOrigin::None);

  const auto& uf = ds.users.features;
  ASSERT_EQ(uf.rows, 3);
  ASSERT_EQ(uf.cols, 3 + 4);  // age, gender (2), occupation (4 from u.occupation)
  EXPECT_EQ(uf.names[0], "age");
  EXPECT_EQ(uf.names[1], "gender=M");
  EXPECT_EQ(uf.names[3], "occupation=other");
  EXPECT_FLOAT_EQ(uf.at(0, 0), 0.5f);  // 24 / 48
  EXPECT_FLOAT_EQ(uf.at(1, 0), 1.0f);
  EXPECT_FLOAT_EQ(uf.at(0, 1), 1.0f);      // M
  EXPECT_FLOAT_EQ(uf.at(1, 2), 1.0f);      // F
  EXPECT_FLOAT_EQ(uf.at(0, 3 + 1), 1.0f);  // technician
  EXPECT_FLOAT_EQ(uf.at(2, 3 + 2), 1.0f);  // writer
  float row_sum = 0;
  for (int c = 3; c < uf.cols; ++c) row_sum += uf.at(1, c);
  EXPECT_FLOAT_EQ(row_sum, 1.0f);
  EXPECT_EQ(ds.users.features_origin, "u.user: age, gender, occupation");

  const auto& itf = ds.items.features;
  ASSERT_EQ(itf.rows, 4);
  ASSERT_EQ(itf.cols, 19);
  EXPECT_EQ(itf.names[1], "genre=Action");
  EXPECT_FLOAT_EQ(itf.at(3, 1), 1.0f);
  EXPECT_FLOAT_EQ(itf.at(3, 5), 1.0f);
  EXPECT_FLOAT_EQ(itf.at(3, 2), 0.0f);
  EXPECT_FLOAT_EQ(itf.at(2, 8), 1.0f);  // latin-1 title read as bytes
  EXPECT_EQ(ds.items.features_origin, "u.item: 19 genres");
  EXPECT_NO_THROW(symgnn::validate_dataset(ds, dir));
}

TEST(MovieLens100k, OtherSplitAndLoadDataset) {
  const auto dir = make_ml100k("ml100k");
  DataConfig cfg = split_cfg("ua");
  cfg.source = dir;
  cfg.val_fraction = 0.0;
  const Dataset ds = symgnn::load_dataset(cfg);
  EXPECT_EQ(ds.name, "ml-100k/ua");
  EXPECT_EQ(ds.train.size(), 6u);
  EXPECT_EQ(ds.test.size(), 1u);
  EXPECT_DATA_ERROR(load_movielens_100k(dir, split_cfg("u9")), "unknown MovieLens-100K split 'u9'");
  EXPECT_DATA_ERROR(load_movielens_100k(dir, split_cfg("u2")), "u2.base", "cannot open");
}

TEST(MovieLens100k, SizesAndVocabularyWithoutOptionalFiles) {
  const auto dir = make_ml100k("ml100k");
  std::filesystem::remove(dir + "/u.info");
  std::filesystem::remove(dir + "/u.occupation");
  std::filesystem::remove(dir + "/u.genre");
  const Dataset ds = load_movielens_100k(dir, split_cfg("u1"));
  EXPECT_EQ(ds.users.count, 3);  // largest ids of u.user / u.item
  EXPECT_EQ(ds.items.count, 4);
  ASSERT_EQ(ds.users.features.cols, 3 + 3);  // distinct occupations, sorted
  EXPECT_EQ(ds.users.features.names[3], "occupation=other");
  EXPECT_EQ(ds.users.features.names[5], "occupation=writer");
  EXPECT_EQ(ds.items.features.names[18], "genre=Western");

  std::filesystem::remove(dir + "/u.user");
  std::filesystem::remove(dir + "/u.item");
  const Dataset bare = load_movielens_100k(dir, split_cfg("u1"));
  EXPECT_EQ(bare.users.count, 3);  // from u.data
  EXPECT_EQ(bare.items.count, 4);
  EXPECT_TRUE(bare.users.features.empty());
  EXPECT_EQ(bare.items.features_origin, "none");
}

TEST(MovieLens100k, RatingErrorsNameFileAndLine) {
  const auto dir = make_ml100k("ml100k");
  const auto with_base = [&](const std::string& base) {
    write_file(dir, "u1.base", base);
    return load_movielens_100k(dir, split_cfg("u1"));
  };
  EXPECT_DATA_ERROR(with_base("1\t1\t5\t1\n4\t1\t5\t1\n"), "u1.base:2:", "user id 4 outside 1..3");
  EXPECT_DATA_ERROR(with_base("1\t5\t5\t1\n"), "u1.base:1:", "item id 5 outside 1..4");
  EXPECT_DATA_ERROR(with_base("1\t0\t5\t1\n"), "u1.base:1:", "item id '0' is not a positive integer");
  EXPECT_DATA_ERROR(with_base("1\t1\t6\t1\n"), "u1.base:1:", "rating '6' is not one of the levels 1..5");
  EXPECT_DATA_ERROR(with_base("1\t1\t4.5\t1\n"), "u1.base:1:", "not one of the levels");
  EXPECT_DATA_ERROR(with_base("1\t1\tfive\t1\n"), "u1.base:1:", "rating 'five' is not a number");
  EXPECT_DATA_ERROR(with_base("1\t1\tnan\t1\n"), "u1.base:1:", "not a finite number");
  EXPECT_DATA_ERROR(with_base("1\t1\tinf\t1\n"), "u1.base:1:", "not a finite number");
  EXPECT_DATA_ERROR(with_base("1\t1\t5\n"), "u1.base:1:", "expected 4 fields", "found 3");
  EXPECT_DATA_ERROR(with_base("1 1 5 1\n"), "u1.base:1:", "expected 4 fields", "tab separated");
  EXPECT_DATA_ERROR(with_base("1\t1\t5\tyesterday\n"), "u1.base:1:", "timestamp");
  EXPECT_DATA_ERROR(with_base("1\t1\t5\t1\n2\t2\t5\t1\n1\t1\t4\t1\n"),
                    "u1.base:3:", "duplicate (user, item) pair (1, 1)", "u1.base:1");
  // (2, 1) is in u1.test too.
  EXPECT_DATA_ERROR(with_base("2\t1\t5\t1\n"), "u1.test:1:", "duplicate", "u1.base:1");
  EXPECT_DATA_ERROR(with_base(""), "u1.base", "file is empty");
  EXPECT_DATA_ERROR(with_base("\n\n"), "u1.base", "file is empty");
}

TEST(MovieLens100k, SideFileErrors) {
  const auto with = [&](const std::string& file, const std::string& text) {
    const auto fresh = make_ml100k("ml100k_side");
    write_file(fresh, file, text);
    return load_movielens_100k(fresh, split_cfg("u1"));
  };
  EXPECT_DATA_ERROR(with("u.user", "1|24|M|technician|1\n3|12|M|writer|1\n"), "u.user",
                    "no row for user id 2");
  EXPECT_DATA_ERROR(with("u.user", "1|24|X|technician|1\n"), "u.user:1:", "gender 'X' is not M or F");
  EXPECT_DATA_ERROR(with("u.user", "1|24|M|pilot|1\n"), "u.user:1:", "occupation 'pilot'");
  EXPECT_DATA_ERROR(with("u.user", "1|old|M|other|1\n"), "u.user:1:", "age 'old'");
  EXPECT_DATA_ERROR(with("u.user", "1|24|M|other\n"), "u.user:1:", "expected 5 fields");
  EXPECT_DATA_ERROR(with("u.user", "1|24|M|other|1\n1|25|F|other|1\n"),
                    "u.user:2:", "second row for user id 1");
  EXPECT_DATA_ERROR(with("u.user", "9|24|M|other|1\n"), "u.user:1:", "user id 9 outside 1..3");
  EXPECT_DATA_ERROR(with("u.item", "1|T|d||u" + genre_flags({}).substr(2) + "\n"),
                    "u.item:1:", "expected at least 24");
  EXPECT_DATA_ERROR(with("u.item", "1|T|d||u" + genre_flags({}).substr(0, 36) + "|2\n"),
                    "u.item:1:", "genre flag '2' (Western)");
  EXPECT_DATA_ERROR(with("u.info", "3 users\nmany items\n"), "u.info:2:", "count 'many'");
  EXPECT_DATA_ERROR(with("u.info", "3 users\n"), "u.info", "expected lines '<n> users' and '<n> items'");
  EXPECT_DATA_ERROR(with("u.info", "3 users\n99999999999 items\n"), "u.info:2:", "count");
  EXPECT_DATA_ERROR(with("u.occupation", "other\nwriter\nother\n"), "u.occupation:3:", "listed twice");
  EXPECT_DATA_ERROR(with("u.genre", "unknown|0\nAction|2\n"), "u.genre:2:", "should be 1");
}

namespace {

std::string make_ml1m(const std::string& tag) {
  const auto dir = scratch_dir(tag);
  write_file(dir, "users.dat", "1::F::1::10::48067\n2::M::56::16::70072\n3::M::25::15::55117\n");
  write_file(dir, "movies.dat",
             "1::Toy Story (1995)::Animation|Children's|Comedy\n"
             "2::Jumanji (1995)::Adventure|Children's|Fantasy\n"
             "10::Star Wars: Episode IV (1977)::Action|Sci-Fi\n"
             "7::Sabrina (1995)::Comedy|Romance\n");
  std::string ratings;
  const int movies[] = {1, 2, 7, 10};
  for (int u = 1; u <= 3; ++u)
    for (int m : movies)
      ratings += std::to_string(u) + "::" + std::to_string(m) + "::" + std::to_string(1 + (u + m) % 5) +
                 "::978300760\n";
  write_file(dir, "ratings.dat", ratings);
  return dir;
}

}  // namespace

TEST(MovieLens1m, LoadsWithSparseMovieIds) {
  const auto dir = make_ml1m("ml1m");
  DataConfig cfg;
  cfg.test_fraction = 0.25;
  const Dataset ds = load_movielens_1m(dir, cfg);
  EXPECT_EQ(ds.name, "ml-1m");
  EXPECT_EQ(ds.users.count, 3);
  EXPECT_EQ(ds.items.count, 4);
  EXPECT_EQ(ds.items.ids, (std::vector<std::string>{"1", "2", "7", "10"}));  // ascending id order
  EXPECT_EQ(ds.train.size() + ds.test.size(), 12u);
  EXPECT_EQ(ds.test.size(), 3u);
  // Rating "2::10::r" with r = 1 + 12 % 5 = 3 sits at (1, 3).
  bool found = false;
  for (const auto* r : {&ds.train, &ds.test})
    for (size_t k = 0; k < r->size(); ++k)
      if (r->user[k] == 1 && r->item[k] == 3) found = r->value[k] == 3.0f;
  EXPECT_TRUE(found);
  ASSERT_EQ(ds.users.features.cols, 2 + 7 + 21);
  EXPECT_FLOAT_EQ(ds.users.features.at(0, 1), 1.0f);           // F
  EXPECT_FLOAT_EQ(ds.users.features.at(1, 2 + 6), 1.0f);       // age code 56
  EXPECT_FLOAT_EQ(ds.users.features.at(1, 2 + 7 + 16), 1.0f);  // occupation 16
  ASSERT_EQ(ds.items.features.cols, 18);
  EXPECT_EQ(ds.items.features.names[0], "genre=Action");
  EXPECT_FLOAT_EQ(ds.items.features.at(3, 0), 1.0f);   // id 10: Action
  EXPECT_FLOAT_EQ(ds.items.features.at(3, 14), 1.0f);  // Sci-Fi
  EXPECT_EQ(ds.users.features_origin, "users.dat: gender, age, occupation");
  EXPECT_NO_THROW(symgnn::validate_dataset(ds, dir));

  const Dataset again = load_movielens_1m(dir, cfg);
  EXPECT_EQ(again.test.user, ds.test.user);
  EXPECT_EQ(again.test.item, ds.test.item);
}

TEST(MovieLens1m, LoadDatasetDetectsDirectory) {
  const auto dir = make_ml1m("ml1m");
  DataConfig cfg;
  cfg.source = dir;
  cfg.test_fraction = 0.25;
  cfg.val_fraction = 0.2;
  const Dataset ds = symgnn::load_dataset(cfg);
  EXPECT_EQ(ds.name, "ml-1m");
  EXPECT_EQ(ds.test.size(), 3u);
  EXPECT_EQ(ds.validation.size(), 2u);  // round(0.2 * 9)
}

TEST(MovieLens1m, Errors) {
  const auto with = [&](const std::string& file, const std::string& text) {
    const auto dir = make_ml1m("ml1m_err");
    write_file(dir, file, text);
    return load_movielens_1m(dir, DataConfig{});
  };
  EXPECT_DATA_ERROR(with("ratings.dat", "1::1::5::1\n1::3::5::1\n"),
                    "ratings.dat:2:", "movie id 3 is not in movies.dat");
  EXPECT_DATA_ERROR(with("ratings.dat", "1::1::5::1\n4::1::5::1\n"),
                    "ratings.dat:2:", "user id 4 is not in users.dat");
  EXPECT_DATA_ERROR(with("ratings.dat", "1::1::5::1\n1::1::4::2\n"), "ratings.dat:2:", "duplicate",
                    "ratings.dat:1");
  EXPECT_DATA_ERROR(with("ratings.dat", "1::1::5\n"), "ratings.dat:1:", "expected 4 fields");
  EXPECT_DATA_ERROR(with("ratings.dat", "1::1::0::1\n"), "ratings.dat:1:", "levels 1..5");
  EXPECT_DATA_ERROR(with("ratings.dat", ""), "ratings.dat", "file is empty");
  EXPECT_DATA_ERROR(with("users.dat", "1::F::2::10::48067\n"), "users.dat:1:", "age code '2'");
  EXPECT_DATA_ERROR(with("users.dat", "1::F::1::21::48067\n"), "users.dat:1:", "occupation '21'");
  EXPECT_DATA_ERROR(with("users.dat", "1::F::1::1::1\n1::M::1::1::1\n"),
                    "users.dat:2:", "second row for user id 1");
  EXPECT_DATA_ERROR(with("movies.dat", "1::Toy Story::Animation|Cartoon\n"),
                    "movies.dat:1:", "unknown genre 'Cartoon'");
  EXPECT_DATA_ERROR(with("movies.dat", "1::Toy Story\n"), "movies.dat:1:", "expected 3 fields");
  EXPECT_DATA_ERROR(with("movies.dat", "x::Toy Story::Comedy\n"), "movies.dat:1:", "movie id 'x'");
}

TEST(MovieLens1m, WithoutDescriptionFilesUsesRatedIds) {
  const auto dir = make_ml1m("ml1m");
  std::filesystem::remove(dir + "/users.dat");
  std::filesystem::remove(dir + "/movies.dat");
  const Dataset ds = load_movielens_1m(dir, DataConfig{});
  EXPECT_EQ(ds.items.ids, (std::vector<std::string>{"1", "2", "7", "10"}));
  EXPECT_TRUE(ds.items.features.empty());
}
