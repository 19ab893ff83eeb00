/// @file mat_v73.cpp
/// @brief Reader for the Monti et al. (2017) MATLAB v7.3 benchmark files (HDF5).
///
/// A v7.3 MAT-file is an HDF5 file behind a 512-byte MATLAB header (an HDF5 user block).
/// Each MATLAB variable is a root-level object carrying a `MATLAB_class` string attribute:
///  - a dense m x n matrix is a rank-2 dataset of HDF5 dims (n, m): MATLAB is column-major,
///    so reading it row-major gives the transpose, and element (row r, col c) sits at
///    HDF5 index [c][r];
///  - a sparse m x n matrix is a group holding CSC arrays `jc` (n + 1 column pointers),
///    `ir` (0-based row indices) and `data` (values), with the row count m in the group's
///    `MATLAB_sparse` attribute (an all-zero sparse matrix may carry `jc` alone).
///
/// Variables read (any of them may be dense or sparse):
///  - `M`: ratings, users x items; 0 means "no rating" in this format;
///  - `Otraining`, `Otest`: 0/1 masks of the training and test ratings, same shape as M;
///  - user graph `W_users` (or `Wrow`), item graph `W_movies`, `W_tracks` (or `Wcol`):
///    symmetric non-negative adjacency, n x n; an absent graph is left GraphOrigin::None
///    (the graph layer makes it the identity). Other variables (e.g. `O`) are ignored.
///
/// Benchmark files (asserted by tests/data/test_benchmarks_mat.cpp). Edges count stored
/// adjacency entries (both directions; self-loops once): loops are douban's 2 and
/// synthetic_netflix's 137 (Wrow) and 122 (Wcol) diagonal entries.
///   | file                      | users | items | train  | test  | levels            | W_users  | W_items  |
///   | douban.mat                |  3000 |  3000 | 123202 | 13689 | 1..5 (5)          |   2690   | absent   |
///   | flixster.mat              |  3000 |  3000 |  23556 |  2617 | 0.5..5 step .5    |  59354   |  50918   |
///   | yahoo_music.mat           |  3000 |  3000 |   4802 |   533 | 1..100 (71 used)  | absent   |  56890   |
///   | movielens_100k_split1.mat |   943 |  1682 |  80000 | 20000 | 1..5 (5)          |  12594 s |  28928 s |
///   | synthetic_netflix.mat     |   150 |   200 |   4500 |  4500 | 1..5 (180, real)  |   1713 s |   2796 s |
/// (s: stored sparse; the others dense. synthetic_netflix names its graphs Wrow/Wcol, has a full
/// real-valued M (only the masked entries are read) and real-valued Wrow weights; every other
/// graph is 0/1. No file has a masked entry with M = 0 or overlapping masks.)
#include <hdf5.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <string>
#include <vector>

#include "data/loaders.h"
#include "symgnn/error.h"

namespace symgnn::data {

namespace {

/// Owns one HDF5 identifier; closing on every path is what keeps a failed load from
/// leaking file handles (the library would otherwise keep the file open).
class Handle {
 public:
  using Closer = herr_t (*)(hid_t);
  Handle() = default;
  Handle(hid_t id, Closer close) : id_(id), close_(close) {}
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  Handle(Handle&& o) noexcept : id_(o.id_), close_(o.close_) { o.id_ = -1; }
  Handle& operator=(Handle&& o) noexcept {
    if (this != &o) {
      reset();
      id_ = o.id_;
      close_ = o.close_;
      o.id_ = -1;
    }
    return *this;
  }
  ~Handle() { reset(); }
  void reset() {
    if (id_ >= 0 && close_) close_(id_);
    id_ = -1;
  }
  hid_t get() const { return id_; }
  bool valid() const { return id_ >= 0; }

 private:
  hid_t id_ = -1;
  Closer close_ = nullptr;
};

// Sizes beyond this are a corrupt header, not a benchmark; the bound also keeps
// row * cols + col inside int64.
constexpr int64_t kMaxDim = int64_t{1} << 31;

/// One MATLAB variable opened for reading, with its MATLAB (not HDF5) shape.
struct Matrix {
  std::string key;
  Handle object;  // dataset (dense) or group (sparse)
  bool sparse = false;
  int64_t rows = 0;
  int64_t cols = 0;
};

std::string shape_text(int64_t rows, int64_t cols) {
  return std::to_string(rows) + " x " + std::to_string(cols);
}

std::string entry_text(int64_t r, int64_t c) {
  return "(row " + std::to_string(r + 1) + ", column " + std::to_string(c + 1) + ")";
}

class MatFile {
 public:
  explicit MatFile(const std::string& path) : path_(path) {
    // HDF5 prints its own error stack to stderr by default; every failure here becomes
    // one DataError line instead.
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec)) fail_file("not a readable file");
    if (H5Fis_hdf5(path.c_str()) <= 0) {
      if (is_mat_v5(path))
        fail_file(
            "MATLAB v5/v7 MAT-file, not HDF5; this reader needs v7.3: re-save it in MATLAB with "
            "save(..., '-v7.3')");
      fail_file("not an HDF5 file (expected a MATLAB v7.3 .mat file, saved with -v7.3)");
    }
    file_ = Handle(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
    if (!file_.valid()) fail_file("cannot open the HDF5 file");
  }

  [[noreturn]] void fail_file(const std::string& what) const { throw DataError(path_, 0, what); }
  [[noreturn]] void fail(const std::string& key, const std::string& what) const {
    throw DataError(path_, 0, "key '" + key + "': " + what);
  }

  bool has(const std::string& key) const {
    const htri_t e = H5Lexists(file_.get(), key.c_str(), H5P_DEFAULT);
    if (e < 0) fail(key, "cannot look the key up");
    return e > 0;
  }

  /// Opens a MATLAB numeric matrix and reads its shape; the key must exist.
  Matrix open(const std::string& key) const {
    Matrix m;
    m.key = key;
    m.object = Handle(H5Oopen(file_.get(), key.c_str(), H5P_DEFAULT), H5Oclose);
    if (!m.object.valid()) fail(key, "cannot open the object");
    check_class(m);
    const H5I_type_t type = H5Iget_type(m.object.get());
    if (type == H5I_GROUP) {
      if (H5Aexists(m.object.get(), "MATLAB_sparse") <= 0)
        fail(key,
             "is an HDF5 group without a MATLAB_sparse attribute (a struct or cell?), expected a matrix");
      m.sparse = true;
      m.rows = read_sparse_rows(m);
      if (H5Lexists(m.object.get(), "jc", H5P_DEFAULT) <= 0) fail(key, "sparse matrix has no 'jc' dataset");
      Handle jc(H5Dopen2(m.object.get(), "jc", H5P_DEFAULT), H5Dclose);
      const std::vector<hsize_t> dims = dims_of(jc, key + "/jc");
      if (dims.size() != 1 && !(dims.size() == 2 && (dims[0] == 1 || dims[1] == 1)))
        fail(key, "sparse 'jc' is not a vector");
      const int64_t len = static_cast<int64_t>(dims.size() == 1 ? dims[0] : dims[0] * dims[1]);
      if (len < 1) fail(key, "sparse 'jc' is empty (needs columns + 1 entries)");
      m.cols = len - 1;
    } else if (type == H5I_DATASET) {
      if (H5Aexists(m.object.get(), "MATLAB_empty") > 0) fail(key, "is an empty MATLAB array");
      const std::vector<hsize_t> dims = dims_of(m.object, key);
      if (dims.size() != 2) fail(key, "has rank " + std::to_string(dims.size()) + ", expected a 2-D matrix");
      check_numeric(m.object, key);
      m.cols = static_cast<int64_t>(dims[0]);
      m.rows = static_cast<int64_t>(dims[1]);
    } else {
      fail(key, "is neither a dataset nor a group");
    }
    if (m.rows >= kMaxDim || m.cols >= kMaxDim) fail(key, "implausible shape " + shape_text(m.rows, m.cols));
    return m;
  }

  /// Calls f(row, col, value) for every stored non-zero (and every NaN) in MATLAB
  /// coordinates; dense data is read in slabs so that a 3000 x 3000 double matrix
  /// (72 MB) never needs to be held whole.
  template <class F>
  void for_each_nonzero(const Matrix& m, F&& f) const {
    if (m.sparse)
      for_each_sparse(m, f);
    else
      for_each_dense(m, f);
  }

 private:
  static bool is_mat_v5(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    char head[20] = {};
    in.read(head, sizeof head);
    return in.gcount() >= 10 && std::strncmp(head, "MATLAB 5.0", 10) == 0;
  }

  std::vector<hsize_t> dims_of(const Handle& dset, const std::string& what) const {
    Handle space(H5Dget_space(dset.get()), H5Sclose);
    if (!space.valid()) fail(what, "cannot read the dataspace");
    const int rank = H5Sget_simple_extent_ndims(space.get());
    if (rank < 0) fail(what, "cannot read the rank");
    std::vector<hsize_t> dims(static_cast<size_t>(rank));
    if (rank > 0 && H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr) < 0)
      fail(what, "cannot read the dimensions");
    return dims;
  }

  void check_numeric(const Handle& dset, const std::string& what) const {
    Handle type(H5Dget_type(dset.get()), H5Tclose);
    const H5T_class_t c = type.valid() ? H5Tget_class(type.get()) : H5T_NO_CLASS;
    if (c != H5T_FLOAT && c != H5T_INTEGER)
      fail(what, "is not a real numeric array (complex, string or cell?)");
  }

  /// Rejects MATLAB classes that are not numbers, so a char or cell variable named M
  /// fails with its class instead of with a conversion error.
  void check_class(const Matrix& m) const {
    if (H5Aexists(m.object.get(), "MATLAB_class") <= 0) return;  // plain HDF5: judged by its type
    Handle attr(H5Aopen(m.object.get(), "MATLAB_class", H5P_DEFAULT), H5Aclose);
    Handle type(attr.valid() ? H5Aget_type(attr.get()) : -1, H5Tclose);
    if (!type.valid() || H5Tget_class(type.get()) != H5T_STRING || H5Tis_variable_str(type.get()) != 0)
      return;
    const size_t size = H5Tget_size(type.get());
    std::string name(size, '\0');
    if (size == 0 || H5Aread(attr.get(), type.get(), name.data()) < 0) return;
    name.resize(std::strlen(name.c_str()));
    static const char* const numeric[] = {"double", "single", "logical", "int8",  "uint8", "int16",
                                          "uint16", "int32",  "uint32",  "int64", "uint64"};
    for (const char* ok : numeric)
      if (name == ok) return;
    fail(m.key, "has MATLAB class '" + name + "', expected a numeric matrix");
  }

  int64_t read_sparse_rows(const Matrix& m) const {
    Handle attr(H5Aopen(m.object.get(), "MATLAB_sparse", H5P_DEFAULT), H5Aclose);
    Handle type(attr.valid() ? H5Aget_type(attr.get()) : -1, H5Tclose);
    Handle space(attr.valid() ? H5Aget_space(attr.get()) : -1, H5Sclose);
    if (!type.valid() || !space.valid() || H5Tget_class(type.get()) != H5T_INTEGER ||
        H5Sget_simple_extent_npoints(space.get()) != 1)
      fail(m.key, "MATLAB_sparse attribute is not one integer (the row count)");
    uint64_t rows = 0;
    if (H5Aread(attr.get(), H5T_NATIVE_UINT64, &rows) < 0)
      fail(m.key, "cannot read the MATLAB_sparse attribute");
    return static_cast<int64_t>(std::min<uint64_t>(rows, static_cast<uint64_t>(kMaxDim)));
  }

  template <class T>
  std::vector<T> read_vector(const Matrix& m, const char* name, hid_t mem_type, bool* present) const {
    std::vector<T> out;
    *present = H5Lexists(m.object.get(), name, H5P_DEFAULT) > 0;
    if (!*present) return out;
    const std::string what = m.key + "/" + name;
    Handle dset(H5Dopen2(m.object.get(), name, H5P_DEFAULT), H5Dclose);
    if (!dset.valid()) fail(m.key, std::string("cannot open sparse '") + name + "'");
    check_numeric(dset, what);
    hsize_t n = 1;
    for (hsize_t d : dims_of(dset, what)) n *= d;
    out.resize(static_cast<size_t>(n));
    if (n > 0 && H5Dread(dset.get(), mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data()) < 0)
      fail(m.key, std::string("cannot read sparse '") + name + "'");
    return out;
  }

  template <class F>
  void for_each_sparse(const Matrix& m, F& f) const {
    bool has_jc = false, has_ir = false, has_data = false;
    const auto jc = read_vector<uint64_t>(m, "jc", H5T_NATIVE_UINT64, &has_jc);
    const auto ir = read_vector<uint64_t>(m, "ir", H5T_NATIVE_UINT64, &has_ir);
    const auto data = read_vector<double>(m, "data", H5T_NATIVE_DOUBLE, &has_data);
    const uint64_t nnz = jc.empty() ? 0 : jc.back();
    // MATLAB writes an all-zero sparse matrix as jc alone.
    if (nnz > 0 && !has_ir) fail(m.key, "sparse matrix has no 'ir' dataset");
    if (nnz > 0 && !has_data) fail(m.key, "sparse matrix has no 'data' dataset");
    if (jc.size() != static_cast<size_t>(m.cols + 1) || jc.front() != 0)
      fail(m.key, "sparse 'jc' must have columns + 1 entries starting at 0");
    if (ir.size() != data.size() || ir.size() != nnz)
      fail(m.key, "sparse lengths disagree: ir has " + std::to_string(ir.size()) + ", data " +
                      std::to_string(data.size()) + ", jc ends at " + std::to_string(nnz));
    for (int64_t c = 0; c < m.cols; ++c) {
      const uint64_t begin = jc[static_cast<size_t>(c)], end = jc[static_cast<size_t>(c) + 1];
      if (end < begin || end > nnz) fail(m.key, "sparse 'jc' is not non-decreasing");
      for (uint64_t k = begin; k < end; ++k) {
        if (ir[k] >= static_cast<uint64_t>(m.rows))
          fail(m.key, "sparse row index " + std::to_string(ir[k]) + " out of range (" +
                          std::to_string(m.rows) + " rows) in column " + std::to_string(c + 1));
        // Strictly increasing rows per column also rules out duplicate entries.
        if (k > begin && ir[k] <= ir[k - 1])
          fail(m.key, "sparse row indices not strictly increasing in column " + std::to_string(c + 1));
        if (data[k] != 0) f(static_cast<int64_t>(ir[k]), c, data[k]);
      }
    }
  }

  template <class F>
  void for_each_dense(const Matrix& m, F& f) const {
    if (m.rows == 0 || m.cols == 0) return;
    Handle file_space(H5Dget_space(m.object.get()), H5Sclose);
    if (!file_space.valid()) fail(m.key, "cannot read the dataspace");
    // HDF5 element [i][j] is MATLAB (row j, column i).
    const hsize_t dims[2] = {static_cast<hsize_t>(m.cols), static_cast<hsize_t>(m.rows)};
    // Slabs of about 8 MB, cut along chunk boundaries: MATLAB chunks a 3000 x 3000 matrix
    // as (3000, 2) deflated blocks, and slabs across that grain would inflate every chunk
    // once per slab (seconds instead of a fraction of one).
    hsize_t chunk[2] = {dims[0], dims[1]};
    {
      Handle dcpl(H5Dget_create_plist(m.object.get()), H5Pclose);
      if (dcpl.valid() && H5Pget_layout(dcpl.get()) == H5D_CHUNKED) H5Pget_chunk(dcpl.get(), 2, chunk);
    }
    const int axis = chunk[0] < dims[0] ? 0 : 1;  // cut along the axis the chunks subdivide
    const hsize_t step = std::max<hsize_t>(1, std::min(chunk[axis], dims[axis]));
    const hsize_t other = dims[1 - axis];
    const hsize_t budget = (hsize_t{1} << 20) / other;  // 8 MB of doubles
    const hsize_t block = std::min(dims[axis], std::max(step, budget / step * step));
    std::vector<double> buf(static_cast<size_t>(block * other));
    for (hsize_t k0 = 0; k0 < dims[axis]; k0 += block) {
      hsize_t start[2] = {0, 0}, count[2] = {dims[0], dims[1]};
      start[axis] = k0;
      count[axis] = std::min(block, dims[axis] - k0);
      Handle mem_space(H5Screate_simple(2, count, nullptr), H5Sclose);
      if (!mem_space.valid() ||
          H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, start, nullptr, count, nullptr) < 0 ||
          H5Dread(m.object.get(), H5T_NATIVE_DOUBLE, mem_space.get(), file_space.get(), H5P_DEFAULT,
                  buf.data()) < 0)
        fail(m.key, "cannot read the data");
      for (hsize_t i = 0; i < count[0]; ++i) {
        const double* line = buf.data() + i * count[1];
        for (hsize_t j = 0; j < count[1]; ++j)
          if (line[j] != 0)  // NaN != 0: passed on for the caller to reject
            f(static_cast<int64_t>(start[1] + j), static_cast<int64_t>(start[0] + i), line[j]);
      }
    }
  }

  std::string path_;
  Handle file_;
};

/// Sorted linear indices (row * cols + col) of a mask's non-zero entries.
std::vector<int64_t> mask_entries(const MatFile& file, const Matrix& mask) {
  std::vector<int64_t> keys;
  file.for_each_nonzero(mask, [&](int64_t r, int64_t c, double v) {
    if (!std::isfinite(v)) file.fail(mask.key, "non-finite value at " + entry_text(r, c));
    keys.push_back(r * mask.cols + c);
  });
  std::sort(keys.begin(), keys.end());  // dense slabs arrive column by column
  return keys;
}

/// Reads the first present key of `keys` as the n x n graph of one side.
void read_graph(const MatFile& file, std::initializer_list<const char*> keys, int64_t n, const char* side,
                NodeSet& out) {
  std::string key;
  for (const char* k : keys) {
    if (!file.has(k)) continue;
    if (!key.empty())
      file.fail(k,
                std::string("both '") + key + "' and '" + k + "' present: which is the " + side + " graph?");
    key = k;
  }
  if (key.empty()) return;  // absent: GraphOrigin::None; the graph layer uses the identity
  const Matrix w = file.open(key);
  if (w.rows != n || w.cols != n)
    file.fail(key, "is " + shape_text(w.rows, w.cols) + ", expected " + shape_text(n, n) + " (one row per " +
                       side + ")");
  struct Entry {
    int64_t r, c;
    double w;
  };
  std::vector<Entry> entries;
  file.for_each_nonzero(w, [&](int64_t r, int64_t c, double v) {
    if (!std::isfinite(v)) file.fail(key, "non-finite weight at " + entry_text(r, c));
    if (v < 0) file.fail(key, "negative weight " + std::to_string(v) + " at " + entry_text(r, c));
    entries.push_back({r, c, v});
  });
  const auto less = [](const Entry& a, const Entry& b) { return a.r != b.r ? a.r < b.r : a.c < b.c; };
  std::sort(entries.begin(), entries.end(), less);
  // EdgeList promises both directions with equal weights; a file that breaks this is
  // wrong, not something to symmetrise silently.
  for (const Entry& e : entries) {
    const auto it = std::lower_bound(entries.begin(), entries.end(), Entry{e.c, e.r, 0.0}, less);
    if (it == entries.end() || it->r != e.c || it->c != e.r || it->w != e.w)
      file.fail(key, "is not symmetric: entry " + entry_text(e.r, e.c) + " has no equal entry " +
                         entry_text(e.c, e.r));
  }
  out.graph = EdgeList{};
  out.graph.num_nodes = n;
  out.graph.src.reserve(entries.size());
  out.graph.dst.reserve(entries.size());
  out.graph.weight.reserve(entries.size());
  for (const Entry& e : entries) out.graph.add(e.r, e.c, static_cast<float>(e.w));
  out.graph_origin = GraphOrigin::File;
}

}  // namespace

Dataset load_mat_v73(const std::string& path, const DataConfig& /*cfg*/) {
  const MatFile file(path);
  for (const char* key : {"M", "Otraining", "Otest"})
    if (!file.has(key)) file.fail(key, "missing (expected M, Otraining and Otest)");
  const Matrix m = file.open("M");
  const Matrix train_mask = file.open("Otraining");
  const Matrix test_mask = file.open("Otest");
  for (const Matrix* mask : {&train_mask, &test_mask})
    if (mask->rows != m.rows || mask->cols != m.cols)
      file.fail(mask->key,
                "is " + shape_text(mask->rows, mask->cols) + " but M is " + shape_text(m.rows, m.cols));
  const int64_t n_users = m.rows, n_items = m.cols;

  const std::vector<int64_t> train_keys = mask_entries(file, train_mask);
  const std::vector<int64_t> test_keys = mask_entries(file, test_mask);
  if (train_keys.empty()) file.fail("Otraining", "has no non-zero entry (no training ratings)");
  std::vector<int64_t> overlap;
  std::set_intersection(train_keys.begin(), train_keys.end(), test_keys.begin(), test_keys.end(),
                        std::back_inserter(overlap));
  if (!overlap.empty())
    file.fail("Otest", std::to_string(overlap.size()) + " entries also in 'Otraining', first " +
                           entry_text(overlap[0] / n_items, overlap[0] % n_items));

  // NaN marks "M is 0 here", which in this format means the masked entry has no rating.
  const double unset = std::numeric_limits<double>::quiet_NaN();
  std::vector<double> train_values(train_keys.size(), unset), test_values(test_keys.size(), unset);
  const auto place = [](const std::vector<int64_t>& keys, std::vector<double>& values, int64_t key,
                        double v) {
    const auto it = std::lower_bound(keys.begin(), keys.end(), key);
    if (it == keys.end() || *it != key) return;
    values[static_cast<size_t>(it - keys.begin())] = v;
  };
  file.for_each_nonzero(m, [&](int64_t r, int64_t c, double v) {
    if (!std::isfinite(v)) file.fail("M", "non-finite rating at " + entry_text(r, c));
    if (std::abs(v) > std::numeric_limits<float>::max())
      file.fail("M", "rating out of float range at " + entry_text(r, c));
    place(train_keys, train_values, r * n_items + c, v);
    place(test_keys, test_values, r * n_items + c, v);
  });

  Dataset ds;
  ds.name = std::filesystem::path(path).stem().string();
  ds.users.count = n_users;
  ds.items.count = n_items;
  const auto fill = [&](const std::vector<int64_t>& keys, const std::vector<double>& values, const char* mask,
                        RatingList& out) {
    out.user.reserve(keys.size());
    out.item.reserve(keys.size());
    out.value.reserve(keys.size());
    for (size_t k = 0; k < keys.size(); ++k) {
      const int64_t r = keys[k] / n_items, c = keys[k] % n_items;
      if (std::isnan(values[k]))
        file.fail("M", std::string("is 0 (no rating) at ") + entry_text(r, c) + ", which '" + mask +
                           "' marks as observed");
      out.add(r, c, static_cast<float>(values[k]));
    }
  };
  fill(train_keys, train_values, "Otraining", ds.train);
  fill(test_keys, test_values, "Otest", ds.test);

  for (const RatingList* list : {&ds.train, &ds.test})
    ds.rating_levels.insert(ds.rating_levels.end(), list->value.begin(), list->value.end());
  std::sort(ds.rating_levels.begin(), ds.rating_levels.end());
  ds.rating_levels.erase(std::unique(ds.rating_levels.begin(), ds.rating_levels.end()),
                         ds.rating_levels.end());
  ds.rating_min = ds.rating_levels.front();
  ds.rating_max = ds.rating_levels.back();

  read_graph(file, {"W_users", "Wrow"}, n_users, "user", ds.users);
  read_graph(file, {"W_movies", "W_tracks", "Wcol"}, n_items, "item", ds.items);
  return ds;
}

}  // namespace symgnn::data
