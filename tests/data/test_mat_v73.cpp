// Tests of data::load_mat_v73 on tiny MATLAB-v7.3-like files written here with the HDF5
// C API: dense variables stored transposed (column-major, as MATLAB writes them), sparse
// ones as CSC groups with a MATLAB_sparse attribute, and one file per error case.
#include <gtest/gtest.h>
#include <hdf5.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "common/test_support.h"
#include "data/loaders.h"
#include "symgnn/config.h"
#include "symgnn/dataset.h"
#include "symgnn/error.h"

namespace symgnn {
namespace {

/// A matrix in MATLAB's view: rows x cols, given row by row for readability.
struct Dense {
  hsize_t rows, cols;
  std::vector<double> v;  // row-major
  double at(hsize_t r, hsize_t c) const { return v[r * cols + c]; }
};

/// Writes MATLAB v7.3-like HDF5 files: a 512-byte user block (where MATLAB puts its text
/// header) and variables tagged with MATLAB_class.
class MatWriter {
 public:
  explicit MatWriter(const std::string& path) {
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    const hid_t fcpl = H5Pcreate(H5P_FILE_CREATE);
    H5Pset_userblock(fcpl, 512);
    file_ = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, fcpl, H5P_DEFAULT);
    H5Pclose(fcpl);
    if (file_ < 0) throw std::runtime_error("cannot create " + path);
  }
  ~MatWriter() { H5Fclose(file_); }

  /// Stores `m` as MATLAB does: HDF5 dims (cols, rows), column after column.
  /// `chunk` (HDF5 order, deflated) as MATLAB writes large arrays, or contiguous if empty.
  void dense(const char* name, const Dense& m, const char* cls = "double", std::vector<hsize_t> chunk = {}) {
    std::vector<double> colmajor(m.v.size());
    for (hsize_t r = 0; r < m.rows; ++r)
      for (hsize_t c = 0; c < m.cols; ++c) colmajor[c * m.rows + r] = m.at(r, c);
    raw(name, {m.cols, m.rows}, colmajor, cls, chunk);
  }

  /// A dataset with the given HDF5 dims, written as is.
  void raw(const char* name, std::vector<hsize_t> dims, const std::vector<double>& values,
           const char* cls = "double", std::vector<hsize_t> chunk = {}) {
    const hid_t space = H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr);
    const hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    if (!chunk.empty()) {
      H5Pset_chunk(dcpl, static_cast<int>(chunk.size()), chunk.data());
      H5Pset_deflate(dcpl, 3);
    }
    const hid_t dset = H5Dcreate2(file_, name, H5T_IEEE_F64LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    H5Pclose(dcpl);
    H5Dwrite(dset, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data());
    string_attr(dset, "MATLAB_class", cls);
    H5Dclose(dset);
    H5Sclose(space);
  }

  /// Stores `m` as a MATLAB sparse matrix (CSC), keeping explicit zeros out.
  void sparse(const char* name, const Dense& m) {
    std::vector<uint64_t> jc{0}, ir;
    std::vector<double> data;
    for (hsize_t c = 0; c < m.cols; ++c) {
      for (hsize_t r = 0; r < m.rows; ++r)
        if (m.at(r, c) != 0) {
          ir.push_back(r);
          data.push_back(m.at(r, c));
        }
      jc.push_back(ir.size());
    }
    csc(name, m.rows, jc, ir, data);
  }

  /// A sparse group from its raw arrays; a false with_* flag leaves that dataset out.
  void csc(const char* name, uint64_t rows, const std::vector<uint64_t>& jc, const std::vector<uint64_t>& ir,
           const std::vector<double>& data, bool with_jc = true, bool with_ir = true, bool with_data = true) {
    const hid_t group = H5Gcreate2(file_, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    string_attr(group, "MATLAB_class", "double");
    const hid_t scalar = H5Screate(H5S_SCALAR);
    const hid_t attr = H5Acreate2(group, "MATLAB_sparse", H5T_STD_U64LE, scalar, H5P_DEFAULT, H5P_DEFAULT);
    H5Awrite(attr, H5T_NATIVE_UINT64, &rows);
    H5Aclose(attr);
    H5Sclose(scalar);
    if (with_jc) vector(group, "jc", H5T_STD_U64LE, H5T_NATIVE_UINT64, jc.size(), jc.data());
    if (with_ir) vector(group, "ir", H5T_STD_U64LE, H5T_NATIVE_UINT64, ir.size(), ir.data());
    if (with_data) vector(group, "data", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, data.size(), data.data());
    H5Gclose(group);
  }

  void group(const char* name) { H5Gclose(H5Gcreate2(file_, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT)); }

 private:
  static void string_attr(hid_t obj, const char* name, const char* value) {
    const hid_t type = H5Tcopy(H5T_C_S1);
    H5Tset_size(type, std::strlen(value));
    const hid_t scalar = H5Screate(H5S_SCALAR);
    const hid_t attr = H5Acreate2(obj, name, type, scalar, H5P_DEFAULT, H5P_DEFAULT);
    H5Awrite(attr, type, value);
    H5Aclose(attr);
    H5Sclose(scalar);
    H5Tclose(type);
  }
  static void vector(hid_t group, const char* name, hid_t file_type, hid_t mem_type, size_t n,
                     const void* data) {
    const hsize_t dims[1] = {n};
    const hid_t space = H5Screate_simple(1, dims, nullptr);
    const hid_t dset = H5Dcreate2(group, name, file_type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (n > 0) H5Dwrite(dset, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data);
    H5Dclose(dset);
    H5Sclose(space);
  }
  hid_t file_ = -1;
};

// 3 users x 4 items: neither square nor symmetric, so a missed transpose cannot pass.
const Dense kRatings{3,
                     4,
                     {5, 0, 3, 0,  //
                      0, 4, 0, 1,  //
                      2, 0, 0, 5}};
const Dense kTrain{3,
                   4,
                   {1, 0, 1, 0,  //
                    0, 1, 0, 0,  //
                    1, 0, 0, 0}};
const Dense kTest{3,
                  4,
                  {0, 0, 0, 0,  //
                   0, 0, 0, 1,  //
                   0, 0, 0, 1}};
// Users 0-1 (weight 1), 1-2 (weight 0.5) and a self-loop on 2.
const Dense kUserGraph{3,
                       3,
                       {0, 1, 0,    //
                        1, 0, 0.5,  //
                        0, 0.5, 1}};
const Dense kItemGraph{4,
                       4,
                       {0, 0, 0, 2,  //
                        0, 0, 0, 0,  //
                        0, 0, 0, 0,  //
                        2, 0, 0, 0}};

using Triples = std::vector<std::tuple<int64_t, int64_t, float>>;

Triples triples(const RatingList& r) {
  Triples out;
  for (size_t k = 0; k < r.size(); ++k) out.emplace_back(r.user[k], r.item[k], r.value[k]);
  std::sort(out.begin(), out.end());
  return out;
}

Triples edges(const EdgeList& g) {
  Triples out;
  for (size_t k = 0; k < g.size(); ++k) out.emplace_back(g.src[k], g.dst[k], g.weight[k]);
  std::sort(out.begin(), out.end());
  return out;
}

class MatV73Test : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = testing::scratch_dir("mat_v73"); }
  void TearDown() override {
    // Every load, failed or not, must close what it opened.
    EXPECT_EQ(H5Fget_obj_count(static_cast<hid_t>(H5F_OBJ_ALL), H5F_OBJ_ALL), 0);
  }
  std::string path(const std::string& name) const { return dir_ + "/" + name; }

  /// Writes a valid dense file into `w` (M, masks, W_users); callers add or replace.
  static void write_valid(MatWriter& w, bool with_m = true, bool with_train = true, bool with_test = true) {
    if (with_m) w.dense("M", kRatings);
    if (with_train) w.dense("Otraining", kTrain);
    if (with_test) w.dense("Otest", kTest);
  }

  /// Asserts that loading `file` throws a DataError whose one-line message names the
  /// file and contains every fragment.
  void expect_error(const std::string& file, std::initializer_list<const char*> fragments) {
    try {
      data::load_mat_v73(file, DataConfig{});
      ADD_FAILURE() << file << ": no DataError";
    } catch (const DataError& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find(file), std::string::npos) << msg;
      EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
      for (const char* f : fragments)
        EXPECT_NE(msg.find(f), std::string::npos) << "'" << f << "' not in: " << msg;
    }
  }

  std::string dir_;
};

const Triples kExpectedTrain{{0, 0, 5.0f}, {0, 2, 3.0f}, {1, 1, 4.0f}, {2, 0, 2.0f}};
const Triples kExpectedTest{{1, 3, 1.0f}, {2, 3, 5.0f}};
const Triples kExpectedUserEdges{{0, 1, 1.0f}, {1, 0, 1.0f}, {1, 2, 0.5f}, {2, 1, 0.5f}, {2, 2, 1.0f}};
const Triples kExpectedItemEdges{{0, 3, 2.0f}, {3, 0, 2.0f}};

TEST_F(MatV73Test, DenseValuesLandAtUserItemAfterTranspose) {
  const std::string file = path("tiny.mat");
  {
    MatWriter w(file);
    write_valid(w);
    w.dense("W_users", kUserGraph);
  }
  const Dataset ds = data::load_mat_v73(file, DataConfig{});
  EXPECT_EQ(ds.name, "tiny");
  EXPECT_EQ(ds.users.count, 3);
  EXPECT_EQ(ds.items.count, 4);
  EXPECT_EQ(triples(ds.train), kExpectedTrain);
  EXPECT_EQ(triples(ds.test), kExpectedTest);
  EXPECT_TRUE(ds.validation.empty());
  EXPECT_EQ(ds.rating_levels, (std::vector<float>{1, 2, 3, 4, 5}));
  EXPECT_EQ(ds.rating_min, 1.0f);
  EXPECT_EQ(ds.rating_max, 5.0f);
  EXPECT_EQ(ds.users.graph_origin, GraphOrigin::File);
  EXPECT_EQ(ds.users.graph.num_nodes, 3);
  EXPECT_EQ(edges(ds.users.graph), kExpectedUserEdges);
  // Absent item graph: left for the graph layer to make the identity.
  EXPECT_EQ(ds.items.graph_origin, GraphOrigin::None);
  EXPECT_EQ(ds.items.graph.size(), 0u);
  EXPECT_TRUE(ds.users.features.empty());
  EXPECT_TRUE(ds.items.features.empty());
  EXPECT_TRUE(ds.users.ids.empty());
}

TEST_F(MatV73Test, SparseVariablesDecodeLikeDenseOnes) {
  const std::string file = path("sparse.mat");
  {
    MatWriter w(file);
    w.sparse("M", kRatings);
    w.sparse("Otraining", kTrain);
    w.sparse("Otest", kTest);
    w.sparse("W_users", kUserGraph);
    // An explicit stored zero (MATLAB can leave them after assignments) is no edge.
    w.csc("W_movies", 4, {0, 2, 2, 2, 3}, {1, 3, 0}, {0.0, 2.0, 2.0});
  }
  const Dataset ds = data::load_mat_v73(file, DataConfig{});
  EXPECT_EQ(ds.users.count, 3);
  EXPECT_EQ(ds.items.count, 4);
  EXPECT_EQ(triples(ds.train), kExpectedTrain);
  EXPECT_EQ(triples(ds.test), kExpectedTest);
  EXPECT_EQ(edges(ds.users.graph), kExpectedUserEdges);
  EXPECT_EQ(ds.items.graph_origin, GraphOrigin::File);
  EXPECT_EQ(ds.items.graph.num_nodes, 4);
  EXPECT_EQ(edges(ds.items.graph), kExpectedItemEdges);
}

// Large enough for several 8 MB slabs, chunked both ways MATLAB may chunk.
TEST_F(MatV73Test, ChunkedDenseReadInSlabs) {
  const hsize_t users = 600, items = 2100;
  Dense m{users, items, std::vector<double>(users * items, 0.0)};
  Dense train{users, items, std::vector<double>(users * items, 0.0)};
  Dense test = train;
  Triples want_train, want_test;
  for (hsize_t u = 0; u < users; ++u)
    for (hsize_t i = 0; i < items; ++i) {
      if ((u + 2 * i) % 97 != 0) continue;
      const double r = 1 + (u * 7 + i) % 5;
      m.v[u * items + i] = r;
      const bool is_test = (u + i) % 3 == 0;
      (is_test ? test : train).v[u * items + i] = 1;
      (is_test ? want_test : want_train).emplace_back(u, i, static_cast<float>(r));
    }
  for (const std::vector<hsize_t>& chunk : {std::vector<hsize_t>{items, 2}, std::vector<hsize_t>{7, users}}) {
    const std::string file = path("chunked" + std::to_string(chunk[0]) + ".mat");
    {
      MatWriter w(file);
      w.dense("M", m, "double", chunk);
      w.dense("Otraining", train, "double", chunk);
      w.dense("Otest", test, "double", chunk);
    }
    const Dataset ds = data::load_mat_v73(file, DataConfig{});
    EXPECT_EQ(ds.users.count, static_cast<int64_t>(users));
    EXPECT_EQ(ds.items.count, static_cast<int64_t>(items));
    EXPECT_EQ(triples(ds.train), want_train);
    EXPECT_EQ(triples(ds.test), want_test);
  }
}

TEST_F(MatV73Test, AllZeroSparseGraphMayOmitIrAndData) {
  const std::string file = path("empty_graph.mat");
  {
    MatWriter w(file);
    write_valid(w);
    w.csc("W_users", 3, {0, 0, 0, 0}, {}, {}, true, false, false);
  }
  const Dataset ds = data::load_mat_v73(file, DataConfig{});
  EXPECT_EQ(ds.users.graph_origin, GraphOrigin::File);
  EXPECT_EQ(ds.users.graph.size(), 0u);
}

TEST_F(MatV73Test, GraphKeyAliases) {
  for (const auto& [user_key, item_key] :
       {std::pair<const char*, const char*>{"Wrow", "W_tracks"}, {"W_users", "Wcol"}}) {
    const std::string file = path(std::string(item_key) + ".mat");
    {
      MatWriter w(file);
      write_valid(w);
      w.dense(user_key, kUserGraph);
      w.dense(item_key, kItemGraph);
    }
    const Dataset ds = data::load_mat_v73(file, DataConfig{});
    EXPECT_EQ(edges(ds.users.graph), kExpectedUserEdges) << user_key;
    EXPECT_EQ(edges(ds.items.graph), kExpectedItemEdges) << item_key;
  }
}

TEST_F(MatV73Test, LogicalMasksAndFractionalRatings) {
  const std::string file = path("half.mat");
  {
    MatWriter w(file);
    Dense m = kRatings;
    for (double& x : m.v) x /= 2;  // Flixster-like 0.5 steps
    w.dense("M", m);
    w.dense("Otraining", kTrain, "logical");
    w.dense("Otest", kTest, "logical");
  }
  const Dataset ds = data::load_mat_v73(file, DataConfig{});
  EXPECT_EQ(ds.rating_levels, (std::vector<float>{0.5f, 1.0f, 1.5f, 2.0f, 2.5f}));
  EXPECT_EQ(ds.rating_min, 0.5f);
  EXPECT_EQ(ds.rating_max, 2.5f);
}

TEST_F(MatV73Test, LoadDatasetCarvesValidationFromMatFile) {
  const std::string file = path("via_load_dataset.mat");
  {
    MatWriter w(file);
    write_valid(w);
  }
  DataConfig cfg;
  cfg.source = file;
  cfg.val_fraction = 0.25;
  const Dataset ds = load_dataset(cfg);
  EXPECT_EQ(ds.train.size(), 3u);
  EXPECT_EQ(ds.validation.size(), 1u);
  EXPECT_EQ(ds.test.size(), 2u);
  EXPECT_EQ(ds.source, file);
}

// ---- errors: one DataError line naming the file and the key ----

TEST_F(MatV73Test, NotHdf5) {
  const std::string text = testing::write_file(dir_, "ratings.mat", "1,2,5\n3,4,1\n");
  expect_error(text, {"not an HDF5 file", "-v7.3"});
  std::string v5 = "MATLAB 5.0 MAT-file, Platform: GLNXA64, Created on: Mon Feb 13 2017";
  v5.resize(128, ' ');
  const std::string old = testing::write_file(dir_, "old.mat", v5);
  expect_error(old, {"MATLAB v5", "-v7.3"});
  expect_error(testing::write_file(dir_, "empty.mat", ""), {"HDF5"});
  expect_error(path("absent.mat"), {"not a readable file"});
}

TEST_F(MatV73Test, MissingKeys) {
  for (int missing = 0; missing < 3; ++missing) {
    const std::string file = path("missing" + std::to_string(missing) + ".mat");
    {
      MatWriter w(file);
      write_valid(w, missing != 0, missing != 1, missing != 2);
    }
    const char* key = missing == 0 ? "'M'" : missing == 1 ? "'Otraining'" : "'Otest'";
    expect_error(file, {key, "missing"});
  }
}

TEST_F(MatV73Test, WrongRankAndClass) {
  const std::string rank3 = path("rank3.mat");
  {
    MatWriter w(rank3);
    w.raw("M", {2, 4, 3}, std::vector<double>(24, 1.0));
    write_valid(w, false);
  }
  expect_error(rank3, {"'M'", "rank 3"});
  const std::string chars = path("char.mat");
  {
    MatWriter w(chars);
    write_valid(w, true, true, false);
    w.dense("Otest", kTest, "char");
  }
  expect_error(chars, {"'Otest'", "class 'char'"});
  const std::string grp = path("struct.mat");
  {
    MatWriter w(grp);
    write_valid(w, false);
    w.group("M");
  }
  expect_error(grp, {"'M'", "MATLAB_sparse"});
}

TEST_F(MatV73Test, MaskShapeMismatch) {
  const std::string file = path("mask_shape.mat");
  {
    MatWriter w(file);
    write_valid(w, true, true, false);
    w.dense("Otest", Dense{4, 3, std::vector<double>(12, 0.0)});  // the transposed shape
  }
  expect_error(file, {"'Otest'", "4 x 3", "3 x 4"});
}

TEST_F(MatV73Test, GraphShapeMismatch) {
  const std::string not_square = path("graph_rect.mat");
  {
    MatWriter w(not_square);
    write_valid(w);
    w.dense("W_users", Dense{3, 4, std::vector<double>(12, 0.0)});
  }
  expect_error(not_square, {"'W_users'", "3 x 4", "expected 3 x 3"});
  const std::string wrong_side = path("graph_side.mat");
  {
    MatWriter w(wrong_side);
    write_valid(w);
    w.dense("W_movies", kUserGraph);  // 3 x 3, but there are 4 items
  }
  expect_error(wrong_side, {"'W_movies'", "expected 4 x 4"});
}

TEST_F(MatV73Test, AmbiguousGraphKeys) {
  const std::string file = path("two_item_graphs.mat");
  {
    MatWriter w(file);
    write_valid(w);
    w.dense("W_movies", kItemGraph);
    w.dense("W_tracks", kItemGraph);
  }
  expect_error(file, {"'W_tracks'", "W_movies"});
}

TEST_F(MatV73Test, BrokenSparseGroups) {
  struct Case {
    const char* name;
    std::vector<uint64_t> jc, ir;
    std::vector<double> data;
    bool with_jc, with_ir, with_data;
    const char* fragment;
  };
  const std::vector<Case> cases{
      {"no_ir", {0, 1, 2, 2}, {1, 0}, {1, 1}, true, false, true, "no 'ir'"},
      {"no_data", {0, 1, 2, 2}, {1, 0}, {1, 1}, true, true, false, "no 'data'"},
      {"no_jc", {0, 1, 2, 2}, {1, 0}, {1, 1}, false, true, true, "no 'jc'"},
      {"short_data", {0, 1, 2, 2}, {1, 0}, {1}, true, true, true, "lengths disagree"},
      {"jc_length", {0, 1, 2}, {1, 0}, {1, 1}, true, true, true, "3 x 2"},
      {"jc_decreasing", {0, 2, 1, 2}, {0, 1}, {1, 1}, true, true, true, "non-decreasing"},
      {"row_range", {0, 1, 2, 2}, {7, 0}, {1, 1}, true, true, true, "row index 7 out of range"},
      {"row_order", {0, 2, 2, 2}, {1, 1}, {1, 1}, true, true, true, "strictly increasing"},
  };
  for (const Case& c : cases) {
    const std::string file = path(std::string(c.name) + ".mat");
    {
      MatWriter w(file);
      write_valid(w);
      w.csc("W_users", 3, c.jc, c.ir, c.data, c.with_jc, c.with_ir, c.with_data);
    }
    SCOPED_TRACE(c.name);
    expect_error(file, {"'W_users'", c.fragment});
  }
}

TEST_F(MatV73Test, BadGraphWeights) {
  const std::string asym = path("asym.mat");
  {
    MatWriter w(asym);
    write_valid(w);
    Dense g = kUserGraph;
    g.v[1 * 3 + 2] = 0.25;  // (1,2) != (2,1)
    w.dense("W_users", g);
  }
  expect_error(asym, {"'W_users'", "not symmetric"});
  const std::string neg = path("negative.mat");
  {
    MatWriter w(neg);
    write_valid(w);
    w.dense("W_movies", Dense{4, 4, {0, -1, 0, 0, -1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}});
  }
  expect_error(neg, {"'W_movies'", "negative weight"});
  const std::string nan = path("nan_graph.mat");
  {
    MatWriter w(nan);
    write_valid(w);
    Dense g = kUserGraph;
    g.v[0] = std::numeric_limits<double>::quiet_NaN();
    w.dense("W_users", g);
  }
  expect_error(nan, {"'W_users'", "non-finite"});
}

TEST_F(MatV73Test, BadRatingsAndMasks) {
  const std::string nan = path("nan.mat");
  {
    MatWriter w(nan);
    write_valid(w, false);
    Dense m = kRatings;
    m.v[2 * 4 + 2] = std::numeric_limits<double>::quiet_NaN();  // unmasked, still rejected
    w.dense("M", m);
  }
  expect_error(nan, {"'M'", "non-finite", "(row 3, column 3)"});
  const std::string overlap = path("overlap.mat");
  {
    MatWriter w(overlap);
    write_valid(w, true, true, false);
    Dense t = kTest;
    t.v[0] = 1;  // (0,0) is also a training entry
    w.dense("Otest", t);
  }
  expect_error(overlap, {"'Otest'", "'Otraining'", "(row 1, column 1)"});
  const std::string unrated = path("unrated.mat");
  {
    MatWriter w(unrated);
    write_valid(w, true, false);
    Dense t = kTrain;
    t.v[0 * 4 + 1] = 1;  // M(1,2) is 0
    w.dense("Otraining", t);
  }
  expect_error(unrated, {"'M'", "(row 1, column 2)", "'Otraining'"});
  const std::string nan_mask = path("nan_mask.mat");
  {
    MatWriter w(nan_mask);
    write_valid(w, true, true, false);
    Dense t = kTest;
    t.v[0] = std::numeric_limits<double>::quiet_NaN();
    w.dense("Otest", t);
  }
  expect_error(nan_mask, {"'Otest'", "non-finite"});
  const std::string no_train = path("no_train.mat");
  {
    MatWriter w(no_train);
    write_valid(w, true, false);
    w.dense("Otraining", Dense{3, 4, std::vector<double>(12, 0.0)});
  }
  expect_error(no_train, {"'Otraining'", "no training ratings"});
}

}  // namespace
}  // namespace symgnn
