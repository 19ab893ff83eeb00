// The Monti et al. benchmark .mat files through symgnn::load_dataset, checked against
// numbers computed here straight from the HDF5 arrays (not through the loader) and
// against the published statistics. Skips when ../shared/data/monti is absent.
#include <gtest/gtest.h>
#include <hdf5.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "common/test_support.h"
#include "symgnn/config.h"
#include "symgnn/dataset.h"

namespace symgnn {
namespace {

/// A dense HDF5 dataset as stored: dims (d0, d1) row-major, i.e. MATLAB's transpose.
struct Raw {
  hsize_t d0 = 0, d1 = 0;
  std::vector<double> v;
  double at(hsize_t i, hsize_t j) const { return v[i * d1 + j]; }
};

Raw read_raw(const std::string& file, const char* key) {
  Raw raw;
  const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f < 0) return raw;
  const hid_t d = H5Dopen2(f, key, H5P_DEFAULT);
  if (d >= 0) {
    const hid_t s = H5Dget_space(d);
    hsize_t dims[2] = {0, 0};
    if (H5Sget_simple_extent_ndims(s) == 2 && H5Sget_simple_extent_dims(s, dims, nullptr) == 2) {
      raw.d0 = dims[0];
      raw.d1 = dims[1];
      raw.v.resize(dims[0] * dims[1]);
      if (H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, raw.v.data()) < 0) raw = Raw{};
    }
    H5Sclose(s);
    H5Dclose(d);
  }
  H5Fclose(f);
  return raw;
}

/// Non-zeros of a 1-D or 2-D dataset.
size_t nonzeros_of(hid_t dset) {
  const hid_t s = H5Dget_space(dset);
  std::vector<double> v(static_cast<size_t>(H5Sget_simple_extent_npoints(s)));
  H5Sclose(s);
  if (H5Dread(dset, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()) < 0) return 0;
  size_t n = 0;
  for (double x : v) n += x != 0;
  return n;
}

/// Stored non-zeros of a variable: a dense dataset, or a sparse group's `data`.
size_t count_nonzeros(const std::string& file, const char* key) {
  const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  const hid_t obj = H5Oopen(f, key, H5P_DEFAULT);
  size_t n = 0;
  if (H5Iget_type(obj) == H5I_GROUP) {
    const hid_t d = H5Dopen2(obj, "data", H5P_DEFAULT);
    n = nonzeros_of(d);
    H5Dclose(d);
  } else {
    n = nonzeros_of(obj);
  }
  H5Oclose(obj);
  H5Fclose(f);
  return n;
}

bool has_key(const std::string& file, const char* key) {
  const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  const bool found = f >= 0 && H5Lexists(f, key, H5P_DEFAULT) > 0;
  if (f >= 0) H5Fclose(f);
  return found;
}

/// Published statistics (the table in src/data/mat_v73.cpp); 0 edges = absent graph.
struct Expected {
  const char* file;
  int64_t users, items;
  size_t train, test;
  size_t levels;
  float min, max;
  const char* user_key;
  const char* item_key;
  size_t user_edges, item_edges;
};

const Expected kFiles[] = {
    {"douban.mat", 3000, 3000, 123202, 13689, 5, 1.0f, 5.0f, "W_users", "W_movies", 2690, 0},
    {"flixster.mat", 3000, 3000, 23556, 2617, 10, 0.5f, 5.0f, "W_users", "W_movies", 59354, 50918},
    {"yahoo_music.mat", 3000, 3000, 4802, 533, 71, 1.0f, 100.0f, "W_users", "W_tracks", 0, 56890},
    {"movielens_100k_split1.mat", 943, 1682, 80000, 20000, 5, 1.0f, 5.0f, "W_users", "W_movies", 12594,
     28928},
    {"synthetic_netflix.mat", 150, 200, 4500, 4500, 180, 1.0f, 5.0f, "Wrow", "Wcol", 1713, 2796},
};

// Names the parameter in test listings instead of dumping its bytes.
void PrintTo(const Expected& e, std::ostream* os) {
  *os << e.file;
}

class BenchmarkMat : public ::testing::TestWithParam<Expected> {};

/// The rating the loader holds at (user, item) in train or validation, or NaN.
float rating_at(const Dataset& ds, int64_t user, int64_t item) {
  for (const RatingList* list : {&ds.train, &ds.validation})
    for (size_t k = 0; k < list->size(); ++k)
      if (list->user[k] == user && list->item[k] == item) return list->value[k];
  return std::nanf("");
}

TEST_P(BenchmarkMat, MatchesRawHdf5) {
  const Expected& e = GetParam();
  SYMGNN_REQUIRE_DATA(std::string("monti/") + e.file);
  const std::string file = testing::data_dir() + "/monti/" + e.file;
  DataConfig cfg;
  cfg.source = file;
  const Dataset ds = load_dataset(cfg);

  EXPECT_EQ(ds.name, std::string(e.file).substr(0, std::string(e.file).size() - 4));
  EXPECT_EQ(ds.users.count, e.users);
  EXPECT_EQ(ds.items.count, e.items);
  EXPECT_EQ(ds.train.size() + ds.validation.size(), e.train);
  EXPECT_EQ(ds.test.size(), e.test);
  EXPECT_EQ(ds.validation.size(), static_cast<size_t>(std::llround(cfg.val_fraction * e.train)));
  EXPECT_EQ(ds.rating_levels.size(), e.levels);
  EXPECT_EQ(ds.rating_min, e.min);
  EXPECT_EQ(ds.rating_max, e.max);

  // Independent counts from the raw arrays: HDF5 dims are (items, users).
  const Raw m = read_raw(file, "M");
  const Raw train = read_raw(file, "Otraining");
  const Raw test = read_raw(file, "Otest");
  ASSERT_FALSE(m.v.empty());
  EXPECT_EQ(static_cast<int64_t>(m.d0), ds.items.count);
  EXPECT_EQ(static_cast<int64_t>(m.d1), ds.users.count);
  size_t n_train = 0, n_test = 0;
  for (double x : train.v) n_train += x != 0;
  for (double x : test.v) n_test += x != 0;
  EXPECT_EQ(ds.train.size() + ds.validation.size(), n_train);
  EXPECT_EQ(ds.test.size(), n_test);

  // A training entry whose transposed position holds a different value: the loader must
  // put raw [i][j] at (user j, item i), which on a square file is the only tell.
  bool checked = false;
  for (hsize_t i = 0; i < m.d0 && !checked; ++i)
    for (hsize_t j = 0; j < m.d1 && !checked; ++j) {
      if (train.at(i, j) == 0 || i == j) continue;
      const bool distinct = j >= m.d0 || i >= m.d1 || m.at(j, i) != m.at(i, j);
      if (!distinct) continue;
      EXPECT_EQ(rating_at(ds, static_cast<int64_t>(j), static_cast<int64_t>(i)),
                static_cast<float>(m.at(i, j)))
          << "raw [" << i << "][" << j << "]";
      checked = true;
    }
  EXPECT_TRUE(checked);

  // Graphs: present exactly when the file has them, with every stored non-zero.
  EXPECT_EQ(ds.users.graph_origin, e.user_edges ? GraphOrigin::File : GraphOrigin::None);
  EXPECT_EQ(ds.items.graph_origin, e.item_edges ? GraphOrigin::File : GraphOrigin::None);
  EXPECT_EQ(has_key(file, e.user_key), e.user_edges > 0);
  EXPECT_EQ(has_key(file, e.item_key), e.item_edges > 0);
  EXPECT_EQ(ds.users.graph.size(), e.user_edges);
  EXPECT_EQ(ds.items.graph.size(), e.item_edges);
  if (e.user_edges) {
    EXPECT_EQ(count_nonzeros(file, e.user_key), e.user_edges);
  }
  if (e.item_edges) {
    EXPECT_EQ(count_nonzeros(file, e.item_key), e.item_edges);
  }
}

INSTANTIATE_TEST_SUITE_P(Monti, BenchmarkMat, ::testing::ValuesIn(kFiles),
                         [](const ::testing::TestParamInfo<Expected>& info) {
                           std::string name = info.param.file;
                           name = name.substr(0, name.size() - 4);
                           name.erase(std::remove(name.begin(), name.end(), '_'), name.end());
                           return name;
                         });

}  // namespace
}  // namespace symgnn
