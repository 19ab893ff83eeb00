/// @file fuzz_mat.cpp
/// libFuzzer target over the MATLAB v7.3 reader (src/data/mat_v73.cpp). The input is a recipe,
/// decoded with FuzzedDataProvider, for a small .mat file: which of M, Otraining, Otest,
/// W_users and W_movies exist; each dense or sparse, its MATLAB_class, shape and values; for a
/// sparse one, jc / ir / data arrays of any length and content (not necessarily consistent)
/// and its MATLAB_sparse row count. The file is written with HDF5 and loaded; bad input
/// must end in symgnn::Error. Raw bytes are not fed to HDF5 itself: parsing a damaged HDF5
/// file is HDF5's own code and its own fuzzing, and this reader's logic lies after it.
#include <fuzzer/FuzzedDataProvider.h>
#include <hdf5.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "data/loaders.h"
#include "symgnn/config.h"
#include "symgnn/error.h"

namespace {

constexpr double kValues[] = {0,
                              1,
                              2,
                              3,
                              5,
                              4.5,
                              -1,
                              100,
                              0.25,
                              1e39,
                              -1e300,
                              std::numeric_limits<double>::quiet_NaN(),
                              std::numeric_limits<double>::infinity()};

double value(FuzzedDataProvider& in) {
  if (in.ConsumeBool()) return in.PickValueInArray(kValues);
  return in.ConsumeFloatingPoint<double>();
}

void string_attr(hid_t obj, const char* name, const std::string& text) {
  const hid_t type = H5Tcopy(H5T_C_S1);
  H5Tset_size(type, text.empty() ? 1 : text.size());
  const hid_t scalar = H5Screate(H5S_SCALAR);
  const hid_t attr = H5Acreate2(obj, name, type, scalar, H5P_DEFAULT, H5P_DEFAULT);
  H5Awrite(attr, type, text.c_str());
  H5Aclose(attr);
  H5Sclose(scalar);
  H5Tclose(type);
}

void vector(hid_t where, const char* name, bool integers, FuzzedDataProvider& in) {
  const hsize_t n = in.ConsumeIntegralInRange<hsize_t>(0, 12);
  std::vector<uint64_t> u(n);
  std::vector<double> d(n);
  for (hsize_t k = 0; k < n; ++k) {
    if (integers)
      u[k] = in.ConsumeBool() ? in.ConsumeIntegralInRange<uint64_t>(0, 10) : in.ConsumeIntegral<uint64_t>();
    else
      d[k] = value(in);
  }
  const hid_t space = H5Screate_simple(1, &n, nullptr);
  const hid_t dset = H5Dcreate2(where, name, integers ? H5T_STD_U64LE : H5T_IEEE_F64LE, space, H5P_DEFAULT,
                                H5P_DEFAULT, H5P_DEFAULT);
  if (n > 0)
    H5Dwrite(dset, integers ? H5T_NATIVE_UINT64 : H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT,
             integers ? static_cast<const void*>(u.data()) : static_cast<const void*>(d.data()));
  H5Dclose(dset);
  H5Sclose(space);
}

void variable(hid_t file, const char* name, FuzzedDataProvider& in) {
  const char* classes[] = {"double", "logical", "single", "char", "cell", ""};
  const std::string cls = in.PickValueInArray(classes);
  if (in.ConsumeBool()) {  // sparse: a group with jc, ir, data and MATLAB_sparse
    const hid_t group = H5Gcreate2(file, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (!cls.empty()) string_attr(group, "MATLAB_class", cls);
    if (in.ConsumeProbability<double>() < 0.9) {
      const uint64_t rows =
          in.ConsumeBool() ? in.ConsumeIntegralInRange<uint64_t>(0, 8) : in.ConsumeIntegral<uint64_t>();
      const hid_t scalar = H5Screate(H5S_SCALAR);
      const hid_t attr = H5Acreate2(group, "MATLAB_sparse", H5T_STD_U64LE, scalar, H5P_DEFAULT, H5P_DEFAULT);
      H5Awrite(attr, H5T_NATIVE_UINT64, &rows);
      H5Aclose(attr);
      H5Sclose(scalar);
    }
    if (in.ConsumeProbability<double>() < 0.95) vector(group, "jc", true, in);
    if (in.ConsumeProbability<double>() < 0.9) vector(group, "ir", true, in);
    if (in.ConsumeProbability<double>() < 0.9)
      vector(group, "data", in.ConsumeBool() && in.ConsumeBool(), in);
    H5Gclose(group);
    return;
  }
  // dense: HDF5 dims (cols, rows), MATLAB being column-major
  const int rank = in.ConsumeProbability<double>() < 0.9 ? 2 : in.ConsumeIntegralInRange<int>(1, 3);
  std::vector<hsize_t> dims(static_cast<size_t>(rank));
  hsize_t total = 1;
  for (hsize_t& d : dims) total *= (d = in.ConsumeIntegralInRange<hsize_t>(0, 8));
  std::vector<double> values(total);
  for (double& v : values) v = value(in);
  const hid_t space = H5Screate_simple(rank, dims.data(), nullptr);
  const hid_t dset = H5Dcreate2(file, name, in.ConsumeBool() ? H5T_IEEE_F64LE : H5T_STD_I32LE, space,
                                H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (total > 0) H5Dwrite(dset, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data());
  if (!cls.empty()) string_attr(dset, "MATLAB_class", cls);
  if (in.ConsumeProbability<double>() < 0.05) string_attr(dset, "MATLAB_empty", "1");
  H5Dclose(dset);
  H5Sclose(space);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string path = "/tmp/symgnn_fuzz_mat_" + std::to_string(::getpid()) + ".mat";
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  FuzzedDataProvider in(data, size);
  {
    const hid_t fcpl = H5Pcreate(H5P_FILE_CREATE);
    H5Pset_userblock(fcpl, 512);  // where MATLAB puts its text header
    const hid_t file = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, fcpl, H5P_DEFAULT);
    H5Pclose(fcpl);
    if (file < 0) return 0;
    for (const char* name : {"M", "Otraining", "Otest", "W_users", "W_movies"})
      if (in.ConsumeProbability<double>() < (name[0] == 'W' ? 0.5 : 0.95)) variable(file, name, in);
    H5Fclose(file);
  }
  try {
    symgnn::data::load_mat_v73(path, symgnn::DataConfig{});
  } catch (const symgnn::Error&) {
  }
  return 0;
}
